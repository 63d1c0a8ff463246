package routers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/controlplane/platform/gcp"
)

// platforms gives the router Services their clouds' annotations, as the
// operator's registry does.
var platforms = platform.New(awsplatform.Platform(), azureplatform.Platform(), gcpplatform.Platform())

const (
	testCluster       = "clusters/demo"
	azureSubscription = "550e8400-e29b-41d4-a716-446655440000"
	azureVNet         = "/subscriptions/" + azureSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/vnet"
)

// awsHCP is a valid AWS HostedControlPlane with the given endpoint access
// and API server publishing strategy.
func awsHCP(namespace string, access hcplinkv1beta1.AWSEndpointAccessType, apiServer hcplinkv1beta1.PublishingStrategyType) *hcplinkv1beta1.HostedControlPlane {
	hcp := baseHCP(namespace)
	hcp.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{apiServerMapping(apiServer)}
	hcp.Spec.Platform = hcplinkv1beta1.PlatformSpec{
		Type: hcplinkv1beta1.AWSPlatform,
		AWS: &hcplinkv1beta1.AWSPlatformSpec{
			Region:         "us-east-1",
			EndpointAccess: access,
		},
	}
	if access != hcplinkv1beta1.AWSEndpointAccessPublic {
		hcp.Spec.Platform.AWS.CloudProviderConfig = &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"}
		hcp.Spec.Platform.AWS.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/demo-cpo"}
	}
	return hcp
}

// azureHCP is a valid Azure HostedControlPlane with the given topology and
// the private configuration when the topology asks for one.
func azureHCP(namespace string, topology hcplinkv1beta1.AzureTopology) *hcplinkv1beta1.HostedControlPlane {
	hcp := baseHCP(namespace)
	hcp.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{apiServerMapping(hcplinkv1beta1.RoutePublishing)}
	hcp.Spec.Platform = hcplinkv1beta1.PlatformSpec{
		Type: hcplinkv1beta1.AzurePlatform,
		Azure: &hcplinkv1beta1.AzurePlatformSpec{
			SubscriptionID:    azureSubscription,
			ResourceGroupName: "customer-rg",
			Location:          "eastus",
			VnetID:            azureVNet,
			SubnetID:          azureVNet + "/subnets/workers",
			Topology:          topology,
		},
	}
	if topology != hcplinkv1beta1.AzureTopologyPublic {
		hcp.Spec.Platform.Azure.Private = &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}
		hcp.Spec.Platform.Azure.TenantID = "72f988bf-86f1-41af-91ab-2d7cd011db47"
		hcp.Spec.Platform.Azure.AzureAuthenticationConfig = hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f")
	}
	return hcp
}

// gcpHCP is a GCP HostedControlPlane with the given endpoint access.
func gcpHCP(namespace string, access hcplinkv1beta1.GCPEndpointAccessType) *hcplinkv1beta1.HostedControlPlane {
	hcp := baseHCP(namespace)
	hcp.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{apiServerMapping(hcplinkv1beta1.RoutePublishing)}
	hcp.Spec.Platform = hcplinkv1beta1.PlatformSpec{
		Type: hcplinkv1beta1.GCPPlatform,
		GCP:  &hcplinkv1beta1.GCPPlatformSpec{Project: "customer-project", Region: "us-central1", EndpointAccess: access},
	}
	if access != hcplinkv1beta1.GCPEndpointAccessPublic {
		hcp.Spec.Platform.GCP.Network, hcp.Spec.Platform.GCP.Subnet = "customer", "workers"
		hcp.Spec.Platform.GCP.WorkloadIdentity = &hcplinkv1beta1.GCPWorkloadIdentityConfig{
			PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc",
			ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@customer-project.iam.gserviceaccount.com"},
		}
	}
	return hcp
}

func baseHCP(namespace string) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "demo",
			Namespace:   namespace,
			UID:         types.UID("4c1f9a4e-1111-2222-3333-444455556666"),
			Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: testCluster},
		},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
		},
	}
}

func apiServerMapping(t hcplinkv1beta1.PublishingStrategyType) hcplinkv1beta1.ServicePublishingStrategyMapping {
	m := hcplinkv1beta1.ServicePublishingStrategyMapping{
		Service:                   hcplinkv1beta1.APIServer,
		ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: t},
	}
	if t == hcplinkv1beta1.RoutePublishing {
		m.ServicePublishingStrategy.Route = &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}
	}
	return m
}
