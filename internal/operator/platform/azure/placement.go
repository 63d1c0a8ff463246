package azure

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator/azureprivatelink"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Placer puts each new private Azure cluster's routers on one of the
// cloud provider's load-balancer configurations with room for its Private
// Link Service. cloud-provider-azure's multiple standard load balancers
// (https://cloud-provider-azure.sigs.k8s.io/topics/multislb/) make, for a
// configuration <name>, the internal load balancer <name>-internal, and
// put a Service annotated service.beta.kubernetes.io/azure-load-balancer-configurations
// on the configurations it names; Azure allows 8 Private Link Services
// per load balancer. The choice is recorded on the HostedCluster (status)
// and the control plane (spec) before the routers exist, and kept.
//
// It counts, per configuration, the Private Link Services on its internal
// load balancer that the operator's one batched listing of the resource
// group shows (whoever made them), together with those of clusters placed
// there whose service is not listed yet — no cloud call per cluster.
type Placer struct {
	// Configurations are the configurations it may use, in the order a tie
	// is broken.
	Configurations []string
	// Reader lists HostedClusters (the manager's cache).
	Reader client.Reader
	// Services is the operator's listing of Private Link Services, and
	// ResourceGroup the group of the management cluster's load balancers.
	Services      *azureprivatelink.ServiceCache
	ResourceGroup string

	// mu makes one choice at a time, so that workers placing several new
	// clusters at once count each other's choices.
	mu sync.Mutex
	// chosen are the choices of this process, by cluster, until the
	// cache's copy of the cluster shows them.
	chosen map[types.UID]string
}

var _ platform.Placer = (*Placer)(nil)

// Recorded implements platform.Placer: status.azureLoadBalancerConfiguration.
func (p *Placer) Recorded(hc *hcplinkv1beta1.HostedCluster) string {
	return hc.Status.AzureLoadBalancerConfiguration
}

// Record implements platform.Placer.
func (p *Placer) Record(hc *hcplinkv1beta1.HostedCluster, where string) {
	hc.Status.AzureLoadBalancerConfiguration = where
}

// StatusField implements platform.Placer.
func (p *Placer) StatusField() string { return "azureLoadBalancerConfiguration" }

// InControlPlane implements platform.Placer: spec.azureLoadBalancerConfiguration.
func (p *Placer) InControlPlane(hcp *hcplinkv1beta1.HostedControlPlane) string {
	return hcp.Spec.AzureLoadBalancerConfiguration
}

// Place implements platform.Placer.
func (p *Placer) Place(ctx context.Context, hc *hcplinkv1beta1.HostedCluster, recorded string) (string, error) {
	if !isPrivate(hc) {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.chosen == nil {
		p.chosen = map[types.UID]string{}
	}
	if recorded != "" {
		p.chosen[hc.UID] = recorded
		return recorded, nil
	}
	if c, ok := p.chosen[hc.UID]; ok {
		return c, nil
	}
	placed, err := p.placedClusters(ctx, hc)
	if err != nil {
		return "", err
	}
	listed, err := p.Services.All(ctx, p.ResourceGroup)
	if err != nil {
		return "", fmt.Errorf("listing the Private Link Services of resource group %s: %w", p.ResourceGroup, err)
	}
	occupied := Occupancy(p.Configurations, listed, placed)
	c, ok := ChooseConfiguration(p.Configurations, occupied, azurecloud.MaxPrivateLinkServicesPerLoadBalancer)
	if !ok {
		return "", configurationsFull(p.Configurations)
	}
	p.chosen[hc.UID] = c
	return c, nil
}

// placedClusters maps the Private Link Service name of every other placed
// cluster to its configuration, and forgets the choices of clusters that
// are gone.
func (p *Placer) placedClusters(ctx context.Context, self *hcplinkv1beta1.HostedCluster) (map[string]string, error) {
	list := &hcplinkv1beta1.HostedClusterList{}
	if err := p.Reader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing HostedClusters: %w", err)
	}
	out := map[string]string{}
	alive := map[types.UID]bool{}
	for i := range list.Items {
		hc := &list.Items[i]
		alive[hc.UID] = true
		if hc.UID == self.UID {
			continue
		}
		c := hc.Status.AzureLoadBalancerConfiguration
		if c == "" {
			c = p.chosen[hc.UID]
		}
		if c == "" && isPrivate(hc) {
			// A placement whose status write was lost (or that a restarted
			// operator has not chosen again yet) is still in the cluster's
			// control plane: counted, or a new cluster could take its
			// room before that cluster's own pass takes it back.
			var err error
			if c, err = placementInControlPlane(ctx, p.Reader, hc); err != nil {
				return nil, err
			}
		}
		if c != "" {
			out[strings.ToLower(azureprivatelink.ServiceNameOf(hc))] = c
		}
	}
	for uid := range p.chosen {
		if !alive[uid] {
			delete(p.chosen, uid)
		}
	}
	return out, nil
}

// placementInControlPlane is the placement the cluster's
// HostedControlPlane records, "" when it has none or does not exist.
func placementInControlPlane(ctx context.Context, c client.Reader, hc *hcplinkv1beta1.HostedCluster) (string, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	key := client.ObjectKey{Namespace: hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name), Name: hc.Name}
	if err := c.Get(ctx, key, hcp); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("reading the HostedControlPlane of %s/%s: %w", hc.Namespace, hc.Name, err)
	}
	return hcp.Spec.AzureLoadBalancerConfiguration, nil
}

// Occupancy counts, per configuration, the Private Link Services on its
// internal load balancer: those listed in front of one of its frontends,
// and those of the placed clusters (service name → configuration) not
// listed yet, each service once.
func Occupancy(configs []string, listed []armnetwork.PrivateLinkService, placed map[string]string) map[string]int {
	byLB := map[string]string{}
	for _, c := range configs {
		byLB[strings.ToLower(c+"-internal")] = c
	}
	seen := map[string]bool{}
	out := map[string]int{}
	for _, pls := range listed {
		name := strings.ToLower(deref(pls.Name))
		if pls.Properties == nil {
			continue
		}
		for _, fe := range pls.Properties.LoadBalancerFrontendIPConfigurations {
			if fe == nil {
				continue
			}
			if c, ok := byLB[strings.ToLower(loadBalancerOfFrontend(deref(fe.ID)))]; ok {
				out[c]++
				seen[name] = true
				break
			}
		}
	}
	for name, c := range placed {
		if !seen[strings.ToLower(name)] {
			out[c]++
		}
	}
	return out
}

// ChooseConfiguration is the configuration with room (fewer than limit
// services) that holds the fewest, the first listed on a tie, so that
// clusters spread as the cloud provider spreads Services; false when every
// one is full.
func ChooseConfiguration(configs []string, occupied map[string]int, limit int) (string, bool) {
	best, fewest := "", limit
	for _, c := range configs {
		if n := occupied[c]; n < fewest {
			best, fewest = c, n
		}
	}
	return best, best != ""
}

// configurationsFull is the refusal when every configuration is full.
func configurationsFull(configs []string) *platform.PlacementRefused {
	lbs := make([]string, 0, len(configs))
	for _, c := range configs {
		lbs = append(lbs, c+"-internal")
	}
	return &platform.PlacementRefused{Reason: hcplinkv1beta1.LoadBalancerPrivateLinkServiceLimitReason, Message: fmt.Sprintf(
		"Every load-balancer configuration the operator may place routers on (%s) already has %d Private Link Services on its internal load balancer (%s), Azure's limit per load balancer; add a configuration to the cloud provider's multipleStandardLoadBalancerConfigurations and to the operator's --azure-load-balancer-configurations, or delete a cluster. Nothing was created for this cluster.",
		strings.Join(configs, ", "), azurecloud.MaxPrivateLinkServicesPerLoadBalancer, strings.Join(lbs, ", "))}
}

// loadBalancerOfFrontend is the load balancer's name in a frontend's ID
// (…/loadBalancers/<name>/frontendIPConfigurations/<frontend>).
func loadBalancerOfFrontend(id string) string {
	parts := strings.Split(id, "/")
	for i := 0; i+1 < len(parts); i++ {
		if strings.EqualFold(parts[i], "loadBalancers") {
			return parts[i+1]
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
