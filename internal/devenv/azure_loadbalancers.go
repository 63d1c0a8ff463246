package devenv

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	ctrl "sigs.k8s.io/controller-runtime"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/devenv/lbcontroller"
)

// setupAzureLoadBalancers registers the stand-in for Azure's cloud
// provider: each Azure LoadBalancer Service a frontend on the shared load
// balancer of its kind in the management resource group (one per
// configuration of Options.AzureLoadBalancerConfigurations), internal
// ones taking a private address from the management VNet. Its calls are
// counted in LoadBalancerCalls.
func (e *Env) setupAzureLoadBalancers(mgr ctrl.Manager) error {
	e.LoadBalancerCalls = newCallCounter("Microsoft.Network")
	opts := *e.AzureClientOptions
	opts.PerRetryPolicies = append(append([]policy.Policy{}, opts.PerRetryPolicies...), azureCallCounting{e.LoadBalancerCalls})
	return (&lbcontroller.AzureReconciler{Client: mgr.GetClient(), Options: lbcontroller.AzureOptions{
		Credential: e.AzureAdmin, ClientOptions: &opts,
		SubscriptionID: e.AzureManagement.SubscriptionID, ResourceGroup: e.AzureManagement.ResourceGroup,
		Location: AzureLocation, SubnetID: e.AzureManagement.LoadBalancerSubnetID,
		Configurations: azureLoadBalancerConfigurations(e.azureLoadBalancerConfigurations),
	}}).SetupWithManager(mgr)
}

// azureCallCounting counts each attempt of a call as cloudsim names it:
// the resource type under Microsoft.Network and read, write or delete.
type azureCallCounting struct{ counter *CallCounter }

func (c azureCallCounting) Do(req *policy.Request) (*http.Response, error) {
	c.counter.record(azureOperation(req.Raw().Method, req.Raw().URL.Path))
	return req.Next()
}

// azureOperation is "loadBalancers/write" for a PUT of a load balancer:
// the resource types after the provider namespace, then the verb.
func azureOperation(method, path string) string {
	verb := map[string]string{http.MethodGet: "read", http.MethodHead: "read", http.MethodDelete: "delete"}[method]
	if verb == "" {
		verb = "write"
	}
	_, rest, ok := strings.Cut(path, "/providers/Microsoft.Network/")
	if !ok {
		return "other/" + verb
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	var types []string
	for i := 0; i < len(segs); i += 2 {
		types = append(types, segs[i])
	}
	return strings.Join(types, "/") + "/" + verb
}

// azureLoadBalancerConfigurations are the cloud provider's configurations
// of those names, each allowing service placement.
func azureLoadBalancerConfigurations(names []string) []lbcontroller.AzureLoadBalancerConfiguration {
	out := make([]lbcontroller.AzureLoadBalancerConfiguration, 0, len(names))
	for _, n := range names {
		out = append(out, lbcontroller.AzureLoadBalancerConfiguration{Name: n})
	}
	return out
}

// AzureLoadBalancerConfigurationsFor names the Azure cloud provider's
// load-balancer configurations a fleet of clusters needs (the bench and
// the soak give them to the management cluster):
// want of them, or (want 0) ceil(clusters/8) when that is more than one.
// The first is named after the cloud provider's cluster ("kubernetes"), as
// cloud-provider-azure requires.
func AzureLoadBalancerConfigurationsFor(want, clusters int) []string {
	if want <= 0 {
		want = (clusters + azurecloud.MaxPrivateLinkServicesPerLoadBalancer - 1) / azurecloud.MaxPrivateLinkServicesPerLoadBalancer
		if want <= 1 {
			return nil
		}
	}
	out := []string{"kubernetes"}
	for i := 2; i <= want; i++ {
		out = append(out, fmt.Sprintf("lb-%d", i))
	}
	return out
}
