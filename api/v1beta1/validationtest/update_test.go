package validationtest

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

// updateCase creates base, applies mutate to what the API server returned
// and updates it. want empty: the update must succeed; otherwise it must be
// refused with a message containing every string in want.
type updateCase[T client.Object] struct {
	name   string
	base   func(namespace, name string) T
	mutate func(T)
	want   []string
}

func runUpdates[T client.Object](t *testing.T, prefix string, cases []updateCase[T]) int {
	t.Helper()
	ns := env.NewNamespace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.base(ns, fmt.Sprintf("%s-%d", prefix, i))
			if err := env.Client.Create(t.Context(), obj); err != nil {
				t.Fatalf("creating the base object: %v", err)
			}
			tc.mutate(obj)
			err := env.Client.Update(t.Context(), obj)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("the API server refused an allowed update: %v", err)
				}
				return
			}
			requireRefused(t, err, tc.want)
		})
	}
	return len(cases)
}

func TestHostedClusterUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.HostedCluster]{
		// Allowed.
		{name: "AWS PublicAndPrivate to Private", base: awsPublicAndPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPrivate
		}},
		{name: "AWS Private to PublicAndPrivate", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublicAndPrivate
		}},
		{name: "Azure PublicAndPrivate to Private", base: azurePublicAndPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Topology = hcv1.AzureTopologyPrivate
		}},
		{name: "Azure Private to PublicAndPrivate", base: azurePrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Topology = hcv1.AzureTopologyPublicAndPrivate
		}},
		{name: "Azure additional subscriptions change", base: azurePrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink.AdditionalAllowedSubscriptions = uuids(3)
		}},
		{name: "Azure control-plane operator identity rotated", base: azurePrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig(rotatedClientID)
		}},
		{name: "public Azure cluster gains a tenant and identity", base: azurePublicCluster, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.TenantID = tenant
			hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig(cpoClientID)
		}},
		{name: "AWS tags change", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags = []hcv1.AWSResourceTag{{Key: "team", Value: "networking"}, {Key: "env", Value: "prod"}}
		}},
		{name: "AWS tags removed", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags = nil
		}},
		{name: "AWS additional principals change", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{"arn:aws:iam::111122223333:user/ops"}
		}},
		{name: "clusterID set once", base: awsPublicCluster, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.ClusterID = "123e4567-e89b-12d3-a456-426614174000"
		}},
		{name: "paused and resumed", base: awsPublicCluster, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.PausedUntil = ptr("2030-01-01T00:00:00Z")
		}},
		{name: "AWS API server moves from Route to load balancer", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}},
		{name: "public AWS cluster gains cloudProviderConfig", base: awsPublicCluster, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.CloudProviderConfig = &hcv1.AWSCloudProviderConfig{VPC: vpc}
		}},
		{name: "AWS default subnet and zone change", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.CloudProviderConfig.Subnet.ID = subnetB
			hc.Spec.Platform.AWS.CloudProviderConfig.Zone = "us-east-1b"
		}},
		{name: "machine network gains a secondary CIDR", base: awsPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hcv1.MachineNetworkEntry{CIDR: "100.64.0.0/16"})
		}},

		// Refused.
		{name: "AWS Private to Public", base: awsPrivate, want: []string{"spec.platform.aws.endpointAccess", "changing between Public and PublicAndPrivate or Private is not supported"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublic }},
		{name: "AWS Public to Private", base: func(ns, n string) *hcv1.HostedCluster {
			hc := awsPrivate(ns, n)
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublic
			return hc
		}, want: []string{"spec.platform.aws.endpointAccess", "changing between Public and PublicAndPrivate or Private is not supported"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPrivate }},
		{name: "AWS Public to PublicAndPrivate", base: func(ns, n string) *hcv1.HostedCluster {
			hc := awsPrivate(ns, n)
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublic
			return hc
		}, want: []string{"spec.platform.aws.endpointAccess", "not supported"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublicAndPrivate
			}},
		{name: "Azure Private to Public", base: azurePrivate, want: []string{"spec.platform.azure.topology", "changing between Public and PublicAndPrivate or Private is not supported"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.Topology = hcv1.AzureTopologyPublic }},
		{name: "Azure Public to Private", base: azurePublicCluster, want: []string{"spec.platform.azure.topology", "not supported", "spec.platform.azure.private", "cannot be added or removed"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.Azure.Topology = hcv1.AzureTopologyPrivate
				hc.Spec.Platform.Azure.Private = &hcv1.AzurePrivateSpec{Type: hcv1.AzurePrivateTypePrivateLink}
			}},
		{name: "Azure private removed", base: azurePrivate, want: []string{"spec.platform.azure.private", "private cannot be added or removed after the cluster is created"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.Private = nil }},
		{name: "Azure private added", base: azurePublicCluster, want: []string{"spec.platform.azure.private", "private cannot be added or removed after the cluster is created"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.Azure.Private = &hcv1.AzurePrivateSpec{Type: hcv1.AzurePrivateTypePrivateLink}
			}},
		{name: "Azure NAT subnet changed", base: azurePrivate, want: []string{"spec.platform.azure.private.privateLink.natSubnetID", "natSubnetID is immutable"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.Azure.Private.PrivateLink.NATSubnetID = otherNATSubnetID
			}},
		{name: "Azure NAT subnet removed", base: azurePrivate, want: []string{"spec.platform.azure.private.privateLink.natSubnetID", "cannot be added, changed or removed"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.Private.PrivateLink.NATSubnetID = "" }},
		{name: "Azure NAT subnet added", base: func(ns, n string) *hcv1.HostedCluster {
			hc := azurePrivate(ns, n)
			hc.Spec.Platform.Azure.Private.PrivateLink = nil
			return hc
		}, want: []string{"spec.platform.azure.private.privateLink.natSubnetID", "cannot be added, changed or removed"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.Azure.Private.PrivateLink = &hcv1.AzurePrivateLinkSpec{NATSubnetID: natSubnetID}
			}},
		{name: "Azure tenant changed", base: azurePrivate, want: []string{"spec.platform.azure.tenantID", "tenantID is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.TenantID = "82f988bf-86f1-41af-91ab-2d7cd011db47" }},
		{name: "Azure tenant removed from a private cluster", base: azurePrivate, want: []string{"spec.platform.azure.tenantID", "tenantID is required"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.TenantID = "" }},
		{name: "Azure control-plane operator identity removed from a private cluster", base: azurePrivate, want: []string{"spec.platform.azure.azureAuthenticationConfig", "is required when topology is PublicAndPrivate or Private"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.AzureAuthenticationConfig = nil }},
		{name: "infraID changed", base: awsPublicCluster, want: []string{"spec.infraID", "infraID is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = "other-infra" }},
		{name: "baseDomain changed", base: awsPublicCluster, want: []string{"spec.dns.baseDomain", "baseDomain is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.DNS.BaseDomain = "other.example.com" }},
		{name: "platform type changed", base: awsPublicCluster, want: []string{"spec.platform.type", "platform.type is immutable"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform = azurePublicCluster("", "").Spec.Platform
			}},
		{name: "AWS region changed", base: awsPublicCluster, want: []string{"spec.platform.aws.region", "region is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.Region = "eu-west-1" }},
		{name: "AWS VPC changed", base: awsPrivate, want: []string{"spec.platform.aws.cloudProviderConfig.vpc", "cloudProviderConfig.vpc is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.CloudProviderConfig.VPC = otherVPC }},
		{name: "AWS VPC removed from a public cluster", base: func(ns, n string) *hcv1.HostedCluster {
			hc := awsPublicCluster(ns, n)
			hc.Spec.Platform.AWS.CloudProviderConfig = &hcv1.AWSCloudProviderConfig{VPC: vpc}
			return hc
		}, want: []string{"spec.platform.aws.cloudProviderConfig", "vpc is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.CloudProviderConfig = nil }},
		{name: "clusterID changed", base: func(ns, n string) *hcv1.HostedCluster {
			hc := awsPublicCluster(ns, n)
			hc.Spec.ClusterID = "123e4567-e89b-12d3-a456-426614174000"
			return hc
		}, want: []string{"spec.clusterID", "clusterID is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = "223e4567-e89b-12d3-a456-426614174000" }},
		{name: "clusterID removed", base: func(ns, n string) *hcv1.HostedCluster {
			hc := awsPublicCluster(ns, n)
			hc.Spec.ClusterID = "123e4567-e89b-12d3-a456-426614174000"
			return hc
		}, want: []string{"spec.clusterID", "clusterID is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = "" }},
		{name: "Azure subscription changed", base: azurePublicCluster, want: []string{"spec.platform.azure.subscriptionID", "subscriptionID is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.SubscriptionID = otherSubscription }},
		{name: "Azure subnet changed", base: azurePublicCluster, want: []string{"spec.platform.azure.subnetID", "subnetID is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Azure.SubnetID = otherSubnetID }},
		{name: "Azure private cluster moves Konnectivity off Route", base: azurePrivate, want: []string{"spec.services", "must be published by Route"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
			}},
	}
	runUpdates(t, "hc", cases)
}

func TestNodePoolUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.NodePool]{
		{name: "AWS subnet changes", base: awsNodePoolWithSubnet, mutate: func(np *hcv1.NodePool) {
			np.Spec.Platform.AWS.Subnet.ID = subnetB
		}},
		{name: "AWS subnet set on a node pool without one", base: func(ns, n string) *hcv1.NodePool { return awsNodePool(ns, n, "") },
			mutate: func(np *hcv1.NodePool) { np.Spec.Platform.AWS.Subnet = &hcv1.AWSSubnetReference{ID: subnetA} }},
		{name: "AWS subnet removed", base: awsNodePoolWithSubnet, mutate: func(np *hcv1.NodePool) {
			np.Spec.Platform.AWS.Subnet = nil
		}},
		{name: "cluster name changed", base: awsNodePoolWithSubnet, want: []string{"spec.clusterName", "clusterName is immutable"},
			mutate: func(np *hcv1.NodePool) { np.Spec.ClusterName = "other" }},
		{name: "platform type changed", base: awsNodePoolWithSubnet, want: []string{"spec.platform.type", "platform.type is immutable"},
			mutate: func(np *hcv1.NodePool) {
				np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AzurePlatform, Azure: &hcv1.AzureNodePoolPlatform{SubnetID: subnetID}}
			}},
	}
	runUpdates(t, "np", cases)
}

func TestHostedControlPlaneUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.HostedControlPlane]{
		{name: "node pools change", base: awsHCP, mutate: func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.NodePools = append(hcp.Spec.NodePools[1:], hcv1.HostedControlPlaneNodePool{Name: "workers-c", SubnetID: subnetB})
		}},
		{name: "endpoint access follows the cluster to PublicAndPrivate", base: awsHCP, mutate: func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublicAndPrivate
		}},
		{name: "infraID changed", base: awsHCP, want: []string{"spec.infraID", "infraID is immutable"},
			mutate: func(hcp *hcv1.HostedControlPlane) { hcp.Spec.InfraID = "other-infra" }},
		{name: "endpoint access to Public", base: awsHCP, want: []string{"spec.platform.aws.endpointAccess", "not supported"},
			mutate: func(hcp *hcv1.HostedControlPlane) {
				hcp.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublic
			}},
	}
	runUpdates(t, "hcp", cases)
}

func TestAWSEndpointServiceUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.AWSEndpointService]{
		{name: "subnets change", base: awsEndpointService, mutate: func(ep *hcv1.AWSEndpointService) {
			ep.Spec.SubnetIDs = hexSubnets(3)
		}},
		{name: "tags change", base: awsEndpointService, mutate: func(ep *hcv1.AWSEndpointService) {
			ep.Spec.ResourceTags = tags(2)
		}},
		{name: "load balancer replaced", base: awsEndpointService, mutate: func(ep *hcv1.AWSEndpointService) {
			ep.Spec.NetworkLoadBalancerName = "k8s-clusters-privater-0a1b2c3d4e"
		}},
		{name: "tag with a key reserved by hcplink", base: awsEndpointService, want: []string{"spec.resourceTags[0].key", "hcplink sets those tags itself"},
			mutate: func(ep *hcv1.AWSEndpointService) { ep.Spec.ResourceTags[0].Key = hcv1.EndpointServiceTagKey }},
	}
	runUpdates(t, "awsep", cases)
}

func TestAzurePrivateLinkServiceUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.AzurePrivateLinkService]{
		{name: "load balancer IP changes", base: azurePrivateLinkService, mutate: func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.LoadBalancerIP = "10.1.2.4"
		}},
		{name: "additional subscriptions change", base: azurePrivateLinkService, mutate: func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.AdditionalAllowedSubscriptions = uuids(2)
		}},
		{name: "additional subscriptions removed", base: azurePrivateLinkService, mutate: func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.AdditionalAllowedSubscriptions = nil
		}},
		{name: "subscription changed", base: azurePrivateLinkService, want: []string{"spec.subscriptionID", "subscriptionID is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.SubscriptionID = otherSubscription }},
		{name: "resource group changed", base: azurePrivateLinkService, want: []string{"spec.resourceGroupName", "resourceGroupName is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.ResourceGroupName = "other-rg" }},
		{name: "location changed", base: azurePrivateLinkService, want: []string{"spec.location", "location is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.Location = "westeurope" }},
		{name: "NAT subnet changed", base: azurePrivateLinkService, want: []string{"spec.natSubnetID", "natSubnetID is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.NATSubnetID = otherNATSubnetID }},
		{name: "NAT subnet removed", base: azurePrivateLinkService, want: []string{"spec.natSubnetID", "cannot be added, changed or removed"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.NATSubnetID = "" }},
		{name: "guest subnet changed", base: azurePrivateLinkService, want: []string{"spec.guestSubnetID", "guestSubnetID is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.GuestSubnetID = otherSubnetID }},
		{name: "guest VNet changed", base: azurePrivateLinkService, want: []string{"spec.guestVNetID", "guestVNetID is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) {
				pls.Spec.GuestVNetID = vnetID + "-2"
				pls.Spec.GuestSubnetID = vnetID + "-2/subnets/workers"
			}},
		{name: "base domain changed", base: azurePrivateLinkService, want: []string{"spec.baseDomain", "baseDomain is immutable"},
			mutate: func(pls *hcv1.AzurePrivateLinkService) { pls.Spec.BaseDomain = "other.example.com" }},
	}
	runUpdates(t, "azpls", cases)
}

// TestStatusUpdates writes status through the status subresource as the
// controllers do, including a refusal of a malformed status field.
func TestStatusUpdates(t *testing.T) {
	ns := env.NewNamespace(t)
	ctx := t.Context()

	hc := awsPrivate(ns, "status")
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hc.Status.ControlPlaneNamespace = hcv1.HostedControlPlaneNamespace(ns, hc.Name)
	hc.Status.Conditions = []metav1.Condition{{
		Type: hcv1.AWSEndpointAvailableCondition, Status: metav1.ConditionTrue, Reason: hcv1.AsExpectedReason,
		Message: hcv1.AllIsWellMessage, ObservedGeneration: hc.Generation, LastTransitionTime: metav1.Now(),
	}}
	if err := env.Client.Status().Update(ctx, hc); err != nil {
		t.Fatalf("status update refused: %v", err)
	}

	pls := azurePrivateLinkService(ns, "status")
	if err := env.Client.Create(ctx, pls); err != nil {
		t.Fatal(err)
	}
	pls.Status.PrivateEndpointIP = "10.0.0.300"
	requireRefused(t, env.Client.Status().Update(ctx, pls), []string{"status.privateEndpointIP", "must be an IPv4 or IPv6 address"})

	pls.Status.PrivateEndpointIP = "10.0.0.30"
	pls.Status.PrivateLinkServiceAlias = "pls-123e4567.2f8a9e5c-0f4b-4b8e-9c0d-1e2f3a4b5c6d.eastus.azure.privatelinkservice"
	if err := env.Client.Status().Update(ctx, pls); err != nil {
		t.Fatalf("status update refused: %v", err)
	}

	ep := awsEndpointService(ns, "status")
	if err := env.Client.Create(ctx, ep); err != nil {
		t.Fatal(err)
	}
	ep.Status.DNSNames = make([]string, 11)
	for i := range ep.Status.DNSNames {
		ep.Status.DNSNames[i] = fmt.Sprintf("r%d.demo.hypershift.local", i)
	}
	requireRefused(t, env.Client.Status().Update(ctx, ep), []string{"status.dnsNames", "Too many"})
}
