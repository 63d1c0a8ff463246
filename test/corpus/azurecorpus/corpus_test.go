package azurecorpus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/corpus"
)

// TestAzureCorpus runs the Azure bad-input corpus beside a healthy private
// cluster on an Azure devenv.
func TestAzureCorpus(t *testing.T) {
	t.Parallel()
	env := corpus.Env()
	ctx := context.Background()
	l := &corpus.Lane{Env: env, Namespace: corpus.CreateNamespace(t, env, "corpus-azure"), CloudState: azureInventory(env),
		PrivateLinkConditions: []string{hcv1.AzurePrivateLinkServiceAvailableCondition},
		OwnedMarkers: func(infraID, name string) []string {
			return []string{azurecloud.VNetLinkName(infraID), infraID + "-private-router", name + ".hypershift.local"}
		}}
	l.ValidCluster = func(c *corpus.Run) *hcv1.HostedCluster {
		return azurePrivateCluster(env, c.Namespace, c.Name, c.InfraID, "3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f")
	}
	l.ValidNodePool = func(c *corpus.Run, cluster string) *hcv1.NodePool {
		return azureNodePool(c.Namespace, c.Name, cluster, env.AzureGuest.SubnetIDs[1])
	}

	var beforeTarget json.RawMessage
	newCluster := func(name string) (*hcv1.HostedCluster, string) {
		infraID := "corpus-" + name + "-" + corpus.RandomSuffix(5)
		f, err := env.PrepareAzureCluster(ctx, l.Namespace, name, infraID)
		if err != nil {
			t.Fatalf("preparing cluster %s's guest side: %v", name, err)
		}
		if beforeTarget, err = l.CloudState(); err != nil {
			t.Fatal(err)
		}
		hc := azurePrivateCluster(env, l.Namespace, name, infraID, f.ControlPlaneOperatorClientID)
		if err := env.Client.Create(ctx, hc); err != nil {
			t.Fatalf("creating cluster %s: %v", name, err)
		}
		return hc, infraID
	}
	l.Healthy, _ = newCluster("healthy")
	var targetInfraID string
	l.Target, targetInfraID = newCluster("target")
	if err := env.Client.Create(ctx, azureNodePool(l.Namespace, "target-np1", "target", env.AzureGuest.SubnetIDs[0])); err != nil {
		t.Fatalf("creating the target cluster's NodePool: %v", err)
	}
	l.WaitAvailable(t, l.Healthy)
	l.WaitAvailable(t, l.Target)

	l.Corpus(t, azureCases(env), azureTargetCases(env))
	t.Run("HostedCluster deleted while its NodePools remain", func(t *testing.T) {
		l.DeleteTargetLeavingNodePools(t, targetInfraID, beforeTarget)
	})
}

// azureInventory is cloudsim's Azure inventory: the resources and the
// role assignments, without the log of finished operations (which names
// what a DELETE removed, so it is no leftover) or the tenants.
func azureInventory(env *devenv.Env) func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		snap, err := env.Cloud.Azure.Snapshot()
		if err != nil {
			return nil, err
		}
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(snap, &parts); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]json.RawMessage{"resources": parts["resources"], "authorization": parts["authorization"]})
	}
}

// azurePrivateCluster is a Private Azure cluster in devenv's guest network
// that the API server and the operator accept.
func azurePrivateCluster(env *devenv.Env, namespace, name, infraID, clientID string) *hcv1.HostedCluster {
	g := env.AzureGuest
	return &hcv1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.HostedClusterSpec{
			InfraID:    infraID,
			DNS:        hcv1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcv1.ClusterNetworking{MachineNetwork: []hcv1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services:   corpus.RouteServices(name),
			Platform: hcv1.PlatformSpec{Type: hcv1.AzurePlatform, Azure: &hcv1.AzurePlatformSpec{
				SubscriptionID: g.SubscriptionID, ResourceGroupName: g.ResourceGroup, Location: devenv.AzureLocation,
				VnetID: g.VNetID, SubnetID: g.SubnetIDs[0],
				Topology:                  hcv1.AzureTopologyPrivate,
				Private:                   &hcv1.AzurePrivateSpec{Type: hcv1.AzurePrivateTypePrivateLink, PrivateLink: &hcv1.AzurePrivateLinkSpec{}},
				TenantID:                  env.AzureTenantID,
				AzureAuthenticationConfig: hcv1.WorkloadIdentitiesConfig(clientID),
			}},
		},
	}
}

func azureNodePool(namespace, name, cluster, subnetID string) *hcv1.NodePool {
	return &hcv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.NodePoolSpec{ClusterName: cluster, Platform: hcv1.NodePoolPlatform{Type: hcv1.AzurePlatform,
			Azure: &hcv1.AzureNodePoolPlatform{SubnetID: subnetID}}},
	}
}

func azureCluster(change func(a *hcv1.AzurePlatformSpec)) corpus.Act {
	return corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { change(hc.Spec.Platform.Azure) })
}

// preparedAzureCluster is azureCluster for a case whose cluster the
// operator accepts and whose control-plane operator must sign in: its
// identity is made first, as `hcplink create iam azure` would.
func preparedAzureCluster(change func(a *hcv1.AzurePlatformSpec)) corpus.Act {
	clientIDs := map[string]string{}
	return corpus.Act{
		Prepare: func(ctx context.Context, c *corpus.Run) error {
			f, err := c.Env.PrepareAzureCluster(ctx, c.Namespace, c.Name, c.InfraID)
			clientIDs[c.Name] = f.ControlPlaneOperatorClientID
			return err
		},
		Run: corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig(clientIDs[c.Name])
			change(hc.Spec.Platform.Azure)
		}).Run,
	}
}

func healthyAzure(change func(a *hcv1.AzurePlatformSpec)) corpus.Act {
	return corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { change(hc.Spec.Platform.Azure) })
}

func privateLink(a *hcv1.AzurePlatformSpec) *hcv1.AzurePrivateLinkSpec {
	if a.Private.PrivateLink == nil {
		a.Private.PrivateLink = &hcv1.AzurePrivateLinkSpec{}
	}
	return a.Private.PrivateLink
}

func subscriptionUUIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i+1, i+1)
	}
	return out
}

// azureCases is the Azure corpus.
func azureCases(env *devenv.Env) []corpus.Case {
	g := env.AzureGuest
	const otherSubscription = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	inOtherSubscription := func(id string) string { return strings.Replace(id, g.SubscriptionID, otherSubscription, 1) }
	vnetPrefix := g.VNetID[:strings.LastIndex(g.VNetID, "/")+1] // …/virtualNetworks/
	const sub = "spec.platform.azure"
	return cases([]corpusCase{
		// Identifiers.
		{"subscriptionID that is not a UUID", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.SubscriptionID = "my-subscription-my-subscription-1234" }),
			corpus.Refused(sub+".subscriptionID", "must be a UUID")},
		{"tenantID that is not a UUID", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.TenantID = "contoso.onmicrosoft.com-0123456789ab" }),
			corpus.Refused(sub+".tenantID", "must be a UUID")},
		{"clientID that is not a UUID", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			a.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig("hcplink-control-plane-operator-1234")
		}), corpus.Refused(sub+".azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID", "must be a UUID")},
		{"private without a tenant", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.TenantID = "" }),
			corpus.Refused(sub+".tenantID", "tenantID is required")},
		{"private without the control-plane operator's identity", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.AzureAuthenticationConfig = nil }),
			corpus.Refused(sub+".azureAuthenticationConfig", "hcplink create iam azure")},
		{"unknown authentication type", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			a.AzureAuthenticationConfig.AzureAuthenticationConfigType = "ManagedIdentities"
		}), corpus.Refused(sub+".azureAuthenticationConfig.azureAuthenticationConfigType", "Unsupported value")},

		// Resource group and location.
		{"resource group with a space", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.ResourceGroupName = "my group" }),
			corpus.Refused(sub+".resourceGroup", "may contain only letters, digits")},
		{"resource group ending in a period", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.ResourceGroupName = "devenv-guest." }),
			corpus.Refused(sub+".resourceGroup", "must not end with a period")},
		{"resource group of 91 characters", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.ResourceGroupName = strings.Repeat("g", 91) }),
			corpus.Refused(sub+".resourceGroup", "Too long")},
		{"location with spaces", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.Location = "East US" }),
			corpus.Refused(sub+".location", "Azure region name")},
		{"resource group that does not exist", preparedAzureCluster(func(a *hcv1.AzurePlatformSpec) { a.ResourceGroupName = "no-such-group" }),
			corpus.Condition(hcv1.AzureConfigurationValidCondition, hcv1.AzureResourceGroupNotFoundReason, "no-such-group")},
		{"unknown location", preparedAzureCluster(func(a *hcv1.AzurePlatformSpec) { a.Location = "nowhere1" }),
			corpus.Condition(hcv1.AzureConfigurationValidCondition, hcv1.AzureLocationMismatchReason, "nowhere1")},

		// VNet and subnet.
		{"vnetID of a subnet", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.VnetID = g.SubnetIDs[0] }),
			corpus.Refused(sub+".vnetID", "must be a virtual network resource ID")},
		{"vnetID in another subscription", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.VnetID = inOtherSubscription(a.VnetID) }),
			corpus.Refused(sub+".vnetID", "must be in the cluster's subscription")},
		{"subnetID outside the VNet", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.SubnetID = vnetPrefix + "other/subnets/workers" }),
			corpus.Refused(sub+".subnetID", "must be a subnet of the VNet named by vnetID")},
		{"subnetID in another subscription", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			a.VnetID, a.SubnetID = inOtherSubscription(a.VnetID), inOtherSubscription(a.SubnetID)
		}), corpus.Refused(sub+".subnetID", "must be in the cluster's subscription")},
		{"VNet name Azure refuses", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			a.VnetID = vnetPrefix + "my vnet!"
			a.SubnetID = a.VnetID + "/subnets/workers"
		}), corpus.Refused(sub+".vnetID", "virtual network names")},
		{"subnet name Azure refuses", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.SubnetID = a.VnetID + "/subnets/workers?" }),
			corpus.Refused(sub+".subnetID", "subnet names")},
		{"VNet that does not exist", preparedAzureCluster(func(a *hcv1.AzurePlatformSpec) {
			a.VnetID = vnetPrefix + "no-such-vnet"
			a.SubnetID = a.VnetID + "/subnets/workers"
		}), corpus.Condition(hcv1.AzureConfigurationValidCondition, hcv1.AzureVNetNotFoundReason, "no-such-vnet")},
		{"subnet that does not exist", preparedAzureCluster(func(a *hcv1.AzurePlatformSpec) { a.SubnetID = a.VnetID + "/subnets/no-such-subnet" }),
			corpus.Condition(hcv1.AzureConfigurationValidCondition, hcv1.AzureSubnetNotFoundReason, "no-such-subnet")},

		// Topology and the private configuration.
		{"unknown topology", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.Topology = "Internal" }),
			corpus.Refused(sub+".topology", "Unsupported value")},
		{"private topology without private", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.Private = nil }),
			corpus.Refused(sub+".private", "private is required")},
		{"public topology with private", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.Topology = hcv1.AzureTopologyPublic }),
			corpus.Refused(sub+".private", "private must not be set when topology is Public")},
		{"unknown private type", azureCluster(func(a *hcv1.AzurePlatformSpec) { a.Private.Type = "Swift" }),
			corpus.Refused(sub+".private.type", "Unsupported value")},
		{"NAT subnet that is a VNet", azureCluster(func(a *hcv1.AzurePlatformSpec) { privateLink(a).NATSubnetID = a.VnetID }),
			corpus.Refused(sub+".private.privateLink.natSubnetID", "must be a subnet resource ID")},
		{"APIServer by load balancer", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), corpus.Refused("spec.services", "must be published by Route")},

		// Additional allowed subscriptions.
		{"additional subscription that is not a UUID", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			privateLink(a).AdditionalAllowedSubscriptions = []string{strings.Repeat("x", 36)}
		}), corpus.Refused(sub+".private.privateLink.additionalAllowedSubscriptions[0]", "subscription UUIDs")},
		{"51 additional subscriptions", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			privateLink(a).AdditionalAllowedSubscriptions = subscriptionUUIDs(51)
		}), corpus.Refused(sub+".private.privateLink.additionalAllowedSubscriptions", "Too many")},
		{"an additional subscription twice", azureCluster(func(a *hcv1.AzurePlatformSpec) {
			privateLink(a).AdditionalAllowedSubscriptions = []string{otherSubscription, otherSubscription}
		}), corpus.Refused(sub+".private.privateLink.additionalAllowedSubscriptions[1]", "Duplicate value")},

		// Common fields, on Azure.
		{"infraID with a dot", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { hc.Spec.InfraID = "corpus.azure" }),
			corpus.Refused("spec.infraID", "lowercase letters, digits and hyphens")},
		{"the same machine network twice", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hc.Spec.Networking.MachineNetwork[0])
		}), corpus.Refused("spec.networking.machineNetwork", "lists a CIDR twice")},
		{"Azure platform with aws set", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS = &hcv1.AWSPlatformSpec{Region: "us-east-1"}
		}), corpus.Refused("spec.platform.aws", "must not be set when platform.type is Azure")},
		{"name and namespace too long for a namespace", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) { hc.Name = c.Name + strings.Repeat("x", 60) }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.NamespaceNameTooLongReason, "shorten the HostedCluster's name")},
		{"AWS private cluster on the Azure operator", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Services = corpus.RouteServices(hc.Name)
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSPlatformSpec{Region: "us-east-1",
				EndpointAccess:      hcv1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcv1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"},
				RolesRef:            &hcv1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/" + c.InfraID}}}
		}), corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.UnsupportedPrivatePlatformReason, "--private-platform=AWS")},

		// Changes to the healthy cluster that are not allowed.
		{"subscriptionID changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.SubscriptionID = otherSubscription }),
			corpus.Refused(sub+".subscriptionID", "subscriptionID is immutable")},
		{"resource group changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.ResourceGroupName = "other-group" }),
			corpus.Refused(sub+".resourceGroup", "resourceGroup is immutable")},
		{"location changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.Location = "westeurope" }),
			corpus.Refused(sub+".location", "location is immutable")},
		{"VNet changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) {
			a.VnetID = vnetPrefix + "other"
			a.SubnetID = a.VnetID + "/subnets/workers"
		}), corpus.Refused(sub+".vnetID", "vnetID is immutable")},
		{"subnet changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.SubnetID = g.SubnetIDs[1] }),
			corpus.Refused(sub+".subnetID", "subnetID is immutable")},
		{"tenant changed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.TenantID = "72f988bf-86f1-41af-91ab-2d7cd011db47" }),
			corpus.Refused(sub+".tenantID", "tenantID is immutable")},
		{"Private to Public", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.Topology = hcv1.AzureTopologyPublic; a.Private = nil }),
			corpus.Refused(sub+".topology", "can change only between PublicAndPrivate and Private")},
		{"private removed", healthyAzure(func(a *hcv1.AzurePlatformSpec) { a.Private = nil }),
			corpus.Refused(sub+".private", "cannot be added or removed")},
		{"NAT subnet added", healthyAzure(func(a *hcv1.AzurePlatformSpec) {
			privateLink(a).NATSubnetID = env.AzureManagement.VNetID + "/subnets/pls-nat"
		}), corpus.Refused(sub+".private.privateLink.natSubnetID", "natSubnetID is immutable")},
		{"51 additional subscriptions added", healthyAzure(func(a *hcv1.AzurePlatformSpec) {
			privateLink(a).AdditionalAllowedSubscriptions = subscriptionUUIDs(51)
		}), corpus.Refused(sub+".private.privateLink.additionalAllowedSubscriptions", "Too many")},
		{"platform changed to AWS", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSPlatformSpec{Region: "us-east-1"}}
		}), corpus.Refused("spec.platform.type", "platform.type is immutable")},

		// NodePools.
		{"NodePool subnetID that is not a subnet", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) { np.Spec.Platform.Azure.SubnetID = g.VNetID }),
			corpus.Refused("spec.platform.azure.subnetID", "must be a subnet resource ID")},
		{"NodePool with aws on Azure", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform.AWS = &hcv1.AWSNodePoolPlatform{}
		}), corpus.Refused("spec.platform.aws", "must not be set when platform.type is Azure")},
		{"NodePool of a cluster that does not exist", corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil),
			corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.HostedClusterNotFoundReason, "no-such-cluster")},
		{"AWS NodePool of an Azure cluster", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSNodePoolPlatform{Subnet: &hcv1.AWSSubnetReference{ID: "subnet-0123456789abcdef0"}}}
		}), corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.PlatformMismatchReason, "must be on its cluster's platform")},
		{"NodePool subnet in another subscription", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform.Azure.SubnetID = inOtherSubscription(g.SubnetIDs[1])
		}), corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.SubnetNotInClusterSubscriptionReason, "use a subnet of the cluster's subscription")},
		{"NodePool cluster changed", corpus.ThenUpdate(corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil), func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.ClusterName = "other"
		}), corpus.Refused("spec.clusterName", "clusterName is immutable")},
	})
}

// azureTargetCases give the target cluster NodePools whose subnets it
// cannot use, one at a time.
func azureTargetCases(env *devenv.Env) []corpus.Case {
	g := env.AzureGuest
	vnetPrefix := g.VNetID[:strings.LastIndex(g.VNetID, "/")+1]
	return cases([]corpusCase{
		// The Private Endpoint stays in its subnet when NodePools change, so
		// a NodePool subnet that does not exist changes nothing.
		{"NodePool in a subnet of the VNet that does not exist", corpus.OnTarget(g.VNetID + "/subnets/aaa-no-such-subnet"),
			corpus.AcceptedAs(hcv1.AzurePrivateLinkServiceAvailableCondition)},
		{"NodePool in a subnet of another VNet", corpus.OnTarget(vnetPrefix + "other-vnet/subnets/workers"),
			corpus.AcceptedAs(hcv1.AzurePrivateLinkServiceAvailableCondition)},
	})
}

// corpusCase is a corpus.Case, written in the table without field names.
type corpusCase struct {
	name string
	do   corpus.Act
	want corpus.Want
}

func cases(table []corpusCase) []corpus.Case {
	out := make([]corpus.Case, len(table))
	for i, c := range table {
		out[i] = corpus.Case{Name: c.name, Do: c.do, Want: c.want}
	}
	return out
}
