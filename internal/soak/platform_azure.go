package soak

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

type azurePlatform struct{}

func (azurePlatform) name() string { return "azure" }

// capacity: none beyond the management cluster's load balancers, which
// devenvOptions makes enough of.
func (azurePlatform) capacity() (int, string) { return 0, "" }

func (azurePlatform) throttling() sim.Throttling {
	return sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{azure.ThrottlingService: azure.DefaultThrottling()}}
}

// devenvOptions gives the management cluster enough of the cloud
// provider's internal load balancers for every cluster's Private Link
// Service (8 each), and one more for the services of deleted clusters
// still going while their names are made again.
func (p azurePlatform) devenvOptions(o Options) devenv.Options {
	return devenv.Options{Platform: devenv.PlatformAzure, Faults: &sim.FaultConfig{Throttling: p.throttling()}, DriftInterval: driftInterval, OperatorReplicas: operatorReplicas,
		AzureLoadBalancerConfigurations: devenv.AzureLoadBalancerConfigurationsFor(0, o.Clusters+azurecloud.MaxPrivateLinkServicesPerLoadBalancer)}
}

func (azurePlatform) prepare(ctx context.Context, env *devenv.Env, n int) ([]*cluster, error) {
	cidr, err := env.AzureGuestAddressSpace(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*cluster, n)
	for i := range out {
		c := &cluster{index: i, namespace: fmt.Sprintf("soak-%03d", i), name: fmt.Sprintf("hc-%d", i), infraID: fmt.Sprintf("soak-%03d", i), cidr: cidr}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		err := patiently(ctx, func() (err error) {
			c.azure, err = env.PrepareAzureCluster(ctx, c.namespace, c.name, c.infraID)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("preparing %s: %w", c.name, err)
		}
		out[i] = c
	}
	return out, nil
}

func (azurePlatform) principals(env *devenv.Env, clusters []*cluster) []string {
	out := []string{env.AzureOperatorPrincipalID}
	for _, c := range clusters {
		out = append(out, c.azure.ControlPlaneOperatorPrincipalID)
	}
	return out
}

func (azurePlatform) hostedCluster(c *cluster) *hcplinkv1beta1.HostedCluster {
	fx := c.azure
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "soak.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: c.cidr}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".soak.example.com"),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: fx.SubscriptionID, ResourceGroupName: fx.ResourceGroup, Location: fx.Location,
				VnetID: fx.VNetID, SubnetID: fx.SubnetID, Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: fx.TenantID, AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig(fx.ControlPlaneOperatorClientID),
			}},
		},
	}
}

func (azurePlatform) subnets(*cluster) int { return 2 }

func (azurePlatform) nodePoolPlatform(c *cluster, i int) hcplinkv1beta1.NodePoolPlatform {
	subnet := c.azure.SubnetID
	if i%2 == 1 {
		subnet = c.azure.SecondSubnetID
	}
	return hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: subnet}}
}

func (azurePlatform) toggleAccess(hc *hcplinkv1beta1.HostedCluster) {
	a := hc.Spec.Platform.Azure
	if a.Topology == hcplinkv1beta1.AzureTopologyPrivate {
		a.Topology = hcplinkv1beta1.AzureTopologyPublicAndPrivate
	} else {
		a.Topology = hcplinkv1beta1.AzureTopologyPrivate
	}
}

func (azurePlatform) allowOther(hc *hcplinkv1beta1.HostedCluster, on bool) {
	private := hc.Spec.Platform.Azure.Private
	if private == nil {
		return
	}
	if private.PrivateLink == nil {
		private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{}
	}
	private.PrivateLink.AdditionalAllowedSubscriptions = nil
	if on {
		private.PrivateLink.AdditionalAllowedSubscriptions = []string{devenv.AzureOtherSubscription}
	}
}

// drift, as the guest subscription's owner with the API: the api record
// set deleted from the cluster's private zone, or the zone's VNet link
// removed.
func (azurePlatform) drift(ctx context.Context, env *devenv.Env, c *cluster, rng *rand.Rand) (string, error) {
	dns, err := armprivatedns.NewClientFactory(c.azure.SubscriptionID, env.AzureAdmin, patientAzure(env.AzureClientOptions))
	if err != nil {
		return "", err
	}
	zone := azurecloud.PrivateDNSZoneName(c.name)
	if rng.Intn(2) == 0 {
		_, err := dns.NewRecordSetsClient().Delete(ctx, c.azure.ResourceGroup, zone, armprivatedns.RecordTypeA, azurecloud.APIRecordName, nil)
		return "record deleted", ignoreNotFound(err)
	}
	_, err = dns.NewVirtualNetworkLinksClient().BeginDelete(ctx, c.azure.ResourceGroup, zone, azurecloud.VNetLinkName(c.infraID), nil)
	return "link removed", ignoreNotFound(err)
}

func (azurePlatform) revoke(ctx context.Context, env *devenv.Env, c *cluster) (func(context.Context) error, error) {
	return revokeAzureAssignments(ctx, env, c)
}

func ignoreNotFound(err error) error {
	if azurecloud.IsNotFound(err) {
		return nil // not made yet: nothing to drift
	}
	return err
}

// patientAzure retries the soak's own calls through the faults.
func patientAzure(opts *arm.ClientOptions) *arm.ClientOptions {
	o := *opts
	o.Retry.MaxRetries = 20
	o.Retry.RetryDelay = 200 * time.Millisecond
	o.Retry.MaxRetryDelay = 5 * time.Second
	return &o
}
