package validationtest

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Valid values the fixtures are built from.
const (
	subscription      = "550e8400-e29b-41d4-a716-446655440000"
	otherSubscription = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	tenant            = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	cpoClientID       = "3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"
	rotatedClientID   = "4b0b6be3-5c2f-4d9f-8e2f-1f3c7d8e9fa0"
	vnetID            = "/subscriptions/" + subscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/customer-vnet"
	subnetID          = vnetID + "/subnets/workers"
	otherSubnetID     = vnetID + "/subnets/workers-2"
	natSubnetID       = "/subscriptions/" + otherSubscription + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt-vnet/subnets/pls-nat"
	otherNATSubnetID  = "/subscriptions/" + otherSubscription + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt-vnet/subnets/pls-nat-2"
	roleARN           = "arn:aws:iam::123456789012:role/hcplink/demo-control-plane-operator"
	vpc               = "vpc-0123456789abcdef0"
	otherVPC          = "vpc-0fedcba9876543210"
	subnetA           = "subnet-0a1b2c3d4e5f60718"
	subnetB           = "subnet-1a2b3c4d"
	gcpProject        = "customer-project-1"
	otherGCPProject   = "partner-project-2"
	poolProvider      = "projects/123456789012/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc"
	cpoServiceAccount = "control-plane-operator@customer-project-1.iam.gserviceaccount.com"
)

func meta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

func ptr[T any](v T) *T { return &v }

// routeServices publishes every service by Route, the API server with a
// hostname.
func routeServices() []hcv1.ServicePublishingStrategyMapping {
	return []hcv1.ServicePublishingStrategyMapping{
		{Service: hcv1.APIServer, ServicePublishingStrategy: hcv1.ServicePublishingStrategy{
			Type: hcv1.RoutePublishing, Route: &hcv1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}},
		{Service: hcv1.OAuthServer, ServicePublishingStrategy: hcv1.ServicePublishingStrategy{
			Type: hcv1.RoutePublishing, Route: &hcv1.RoutePublishingStrategy{Hostname: "oauth.demo.example.com"}}},
		{Service: hcv1.Konnectivity, ServicePublishingStrategy: hcv1.ServicePublishingStrategy{Type: hcv1.RoutePublishing}},
		{Service: hcv1.Ignition, ServicePublishingStrategy: hcv1.ServicePublishingStrategy{Type: hcv1.RoutePublishing}},
	}
}

func networking() hcv1.ClusterNetworking {
	return hcv1.ClusterNetworking{MachineNetwork: []hcv1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}}
}

// awsPublicCluster is the smallest valid AWS HostedCluster.
func awsPublicCluster(namespace, name string) *hcv1.HostedCluster {
	return &hcv1.HostedCluster{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.HostedClusterSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcv1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: networking(),
			Services:   routeServices()[:1],
			Platform: hcv1.PlatformSpec{
				Type: hcv1.AWSPlatform,
				AWS:  &hcv1.AWSPlatformSpec{Region: "us-east-1"},
			},
		},
	}
}

// awsPrivateCluster is an AWS HostedCluster with the given non-public
// endpoint access and everything it needs.
func awsPrivateCluster(namespace, name string, access hcv1.AWSEndpointAccessType) *hcv1.HostedCluster {
	hc := awsPublicCluster(namespace, name)
	hc.Spec.Services = routeServices()
	hc.Spec.Platform.AWS = &hcv1.AWSPlatformSpec{
		Region:         "us-east-1",
		EndpointAccess: access,
		CloudProviderConfig: &hcv1.AWSCloudProviderConfig{
			VPC:    vpc,
			Subnet: &hcv1.AWSSubnetReference{ID: subnetA},
			Zone:   "us-east-1a",
		},
		RolesRef:     &hcv1.AWSRolesRef{ControlPlaneOperatorARN: roleARN},
		ResourceTags: []hcv1.AWSResourceTag{{Key: "team", Value: "platform"}, {Key: "cost-center", Value: "1234"}},
		AdditionalAllowedPrincipals: []string{
			"arn:aws:iam::210987654321:root",
			"arn:aws:iam::210987654321:role/ops/support",
		},
	}
	return hc
}

// azurePublicCluster is the smallest valid Azure HostedCluster.
func azurePublicCluster(namespace, name string) *hcv1.HostedCluster {
	return &hcv1.HostedCluster{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.HostedClusterSpec{
			InfraID:    "azdemo-4fj2q",
			DNS:        hcv1.DNSSpec{BaseDomain: "azdemo.example.com"},
			Networking: networking(),
			Services:   routeServices(),
			Platform: hcv1.PlatformSpec{
				Type: hcv1.AzurePlatform,
				Azure: &hcv1.AzurePlatformSpec{
					SubscriptionID:    subscription,
					ResourceGroupName: "customer-rg",
					Location:          "eastus",
					VnetID:            vnetID,
					SubnetID:          subnetID,
				},
			},
		},
	}
}

// azurePrivateCluster is an Azure HostedCluster with the given non-public
// topology, a NAT subnet and one additional subscription.
func azurePrivateCluster(namespace, name string, topology hcv1.AzureTopology) *hcv1.HostedCluster {
	hc := azurePublicCluster(namespace, name)
	hc.Spec.Platform.Azure.Topology = topology
	hc.Spec.Platform.Azure.TenantID = tenant
	hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig(cpoClientID)
	hc.Spec.Platform.Azure.Private = &hcv1.AzurePrivateSpec{
		Type: hcv1.AzurePrivateTypePrivateLink,
		PrivateLink: &hcv1.AzurePrivateLinkSpec{
			NATSubnetID:                    natSubnetID,
			AdditionalAllowedSubscriptions: []string{otherSubscription},
		},
	}
	return hc
}

// gcpPublicCluster is the smallest valid GCP HostedCluster.
func gcpPublicCluster(namespace, name string) *hcv1.HostedCluster {
	return &hcv1.HostedCluster{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.HostedClusterSpec{
			InfraID:    "gcpdemo-8hd3k",
			DNS:        hcv1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: networking(),
			Services:   routeServices(),
			Platform: hcv1.PlatformSpec{
				Type: hcv1.GCPPlatform,
				GCP:  &hcv1.GCPPlatformSpec{Project: gcpProject, Region: "us-central1"},
			},
		},
	}
}

// gcpPrivateCluster is a GCP HostedCluster with the given non-public
// endpoint access, a NAT subnet, one additional project and the
// control-plane operator's workload identity.
func gcpPrivateCluster(namespace, name string, access hcv1.GCPEndpointAccessType) *hcv1.HostedCluster {
	hc := gcpPublicCluster(namespace, name)
	hc.Spec.Platform.GCP = &hcv1.GCPPlatformSpec{
		Project:        gcpProject,
		Region:         "us-central1",
		Network:        "customer-vpc",
		Subnet:         "workers",
		EndpointAccess: access,
		Private: &hcv1.GCPPrivateSpec{
			AdditionalAllowedProjects: []string{otherGCPProject, "987654321098"},
			NATSubnet:                 "psc-nat-1",
		},
		WorkloadIdentity: &hcv1.GCPWorkloadIdentityConfig{
			PoolProvider:          poolProvider,
			ServiceAccountsEmails: hcv1.GCPServiceAccountsEmails{ControlPlaneOperator: cpoServiceAccount},
		},
	}
	return hc
}

func gcpNodePool(namespace, name string) *hcv1.NodePool {
	return &hcv1.NodePool{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.NodePoolSpec{
			ClusterName: "gcpdemo",
			Platform:    hcv1.NodePoolPlatform{Type: hcv1.GCPPlatform, GCP: &hcv1.GCPNodePoolPlatform{Subnet: "workers"}},
		},
	}
}

func gcpPrivateServiceConnect(namespace, name string) *hcv1.GCPPrivateServiceConnect {
	return &hcv1.GCPPrivateServiceConnect{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.GCPPrivateServiceConnectSpec{
			LoadBalancerIP:     "10.128.0.20",
			ConsumerAcceptList: []string{gcpProject, otherGCPProject},
			NATSubnet:          "psc-nat-1",
			Project:            gcpProject,
			Region:             "us-central1",
			Network:            "customer-vpc",
			Subnet:             "workers",
		},
	}
}

// gcpProjects returns n distinct valid project IDs.
func gcpProjects(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("project-%04d", i)
	}
	return out
}

func awsNodePool(namespace, name, subnet string) *hcv1.NodePool {
	np := &hcv1.NodePool{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.NodePoolSpec{
			ClusterName: "demo",
			Platform:    hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSNodePoolPlatform{}},
		},
	}
	if subnet != "" {
		np.Spec.Platform.AWS.Subnet = &hcv1.AWSSubnetReference{ID: subnet}
	}
	return np
}

func azureNodePool(namespace, name string) *hcv1.NodePool {
	return &hcv1.NodePool{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.NodePoolSpec{
			ClusterName: "azdemo",
			Platform:    hcv1.NodePoolPlatform{Type: hcv1.AzurePlatform, Azure: &hcv1.AzureNodePoolPlatform{SubnetID: subnetID}},
		},
	}
}

// hostedControlPlane mirrors a HostedCluster as the operator writes it.
func hostedControlPlane(namespace, name string, hc *hcv1.HostedCluster, nodePools ...hcv1.HostedControlPlaneNodePool) *hcv1.HostedControlPlane {
	return &hcv1.HostedControlPlane{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.HostedControlPlaneSpec{
			InfraID:     hc.Spec.InfraID,
			ClusterID:   hc.Spec.ClusterID,
			PausedUntil: hc.Spec.PausedUntil,
			DNS:         hc.Spec.DNS,
			Networking:  hc.Spec.Networking,
			Services:    hc.Spec.Services,
			Platform:    hc.Spec.Platform,
			NodePools:   nodePools,
		},
	}
}

func awsEndpointService(namespace, name string) *hcv1.AWSEndpointService {
	return &hcv1.AWSEndpointService{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.AWSEndpointServiceSpec{
			NetworkLoadBalancerName: "k8s-clusters-privater-db6fee3a62",
			SubnetIDs:               []string{subnetA, subnetB},
			ResourceTags:            []hcv1.AWSResourceTag{{Key: "team", Value: "platform"}},
		},
	}
}

func azurePrivateLinkService(namespace, name string) *hcv1.AzurePrivateLinkService {
	return &hcv1.AzurePrivateLinkService{
		ObjectMeta: meta(namespace, name),
		Spec: hcv1.AzurePrivateLinkServiceSpec{
			LoadBalancerIP:                 "10.1.2.3",
			SubscriptionID:                 subscription,
			ResourceGroupName:              "customer-rg",
			Location:                       "eastus",
			NATSubnetID:                    natSubnetID,
			GuestSubnetID:                  subnetID,
			GuestVNetID:                    vnetID,
			BaseDomain:                     "azdemo.example.com",
			AdditionalAllowedSubscriptions: []string{otherSubscription},
		},
	}
}

// tags returns n distinct valid tags.
func tags(n int) []hcv1.AWSResourceTag {
	out := make([]hcv1.AWSResourceTag, n)
	for i := range out {
		out[i] = hcv1.AWSResourceTag{Key: "key-" + strings.Repeat("k", i+1), Value: "value"}
	}
	return out
}

// hexSubnets returns n distinct valid subnet IDs.
func hexSubnets(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "subnet-" + strings.Repeat(string("0123456789abcdef"[i%16]), 17)
	}
	return out
}

// uuids returns n distinct valid UUIDs.
func uuids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = subscription[:34] + string("0123456789abcdef"[i/16]) + string("0123456789abcdef"[i%16])
	}
	return out
}
