package validationtest

import (
	"fmt"
	"strings"
	"testing"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

var (
	awsPrivate = func(ns, n string) *hcv1.HostedCluster {
		return awsPrivateCluster(ns, n, hcv1.AWSEndpointAccessPrivate)
	}
	awsPublicAndPrivate = func(ns, n string) *hcv1.HostedCluster {
		return awsPrivateCluster(ns, n, hcv1.AWSEndpointAccessPublicAndPrivate)
	}
	azurePrivate = func(ns, n string) *hcv1.HostedCluster {
		return azurePrivateCluster(ns, n, hcv1.AzureTopologyPrivate)
	}
	azurePublicAndPrivate = func(ns, n string) *hcv1.HostedCluster {
		return azurePrivateCluster(ns, n, hcv1.AzureTopologyPublicAndPrivate)
	}
	awsNodePoolWithSubnet = func(ns, n string) *hcv1.NodePool { return awsNodePool(ns, n, subnetA) }
	awsHCP                = func(ns, n string) *hcv1.HostedControlPlane {
		return hostedControlPlane(ns, n, awsPrivate(ns, n),
			hcv1.HostedControlPlaneNodePool{Name: "workers-a", SubnetID: subnetA},
			hcv1.HostedControlPlaneNodePool{Name: "workers-b"})
	}
)

func TestValidObjectsAreAccepted(t *testing.T) {
	cases := []struct {
		name string
		obj  objectFunc
	}{
		{"aws public cluster, smallest", with(awsPublicCluster, nil)},
		{"aws private cluster", with(awsPrivate, nil)},
		{"aws public and private cluster, API server by load balancer", with(awsPublicAndPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{
				Type: hcv1.LoadBalancerPublishing, LoadBalancer: &hcv1.LoadBalancerPublishingStrategy{Hostname: "api.demo.example.com"}}
		})},
		{"aws private cluster with 25 tags, 50 principals, GovCloud role and an IPv6 machine network", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.Region = "us-gov-west-1"
			hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws-us-gov:iam::123456789012:role/cpo"
			hc.Spec.Platform.AWS.ResourceTags = tags(25)
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil
			for i := range 50 {
				hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = append(hc.Spec.Platform.AWS.AdditionalAllowedPrincipals,
					fmt.Sprintf("arn:aws-us-gov:iam::%012d:user/u%d", i, i))
			}
			hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork,
				hcv1.MachineNetworkEntry{CIDR: "10.1.0.0/16"}, hcv1.MachineNetworkEntry{CIDR: "fd00:10::/64"})
		})},
		{"aws private cluster in a China region with a China role", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.Region = "cn-north-1"
			hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws-cn:iam::123456789012:role/cpo"
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil
		})},
		{"aws cluster paused indefinitely, with a cluster ID", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.PausedUntil = ptr("true")
			hc.Spec.ClusterID = "123e4567-e89b-12d3-a456-426614174000"
		})},
		{"aws cluster paused until a time with an offset", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.PausedUntil = ptr("2026-12-31T23:59:59.5+01:00")
		})},
		{"azure public cluster, smallest", with(azurePublicCluster, nil)},
		{"azure private cluster", with(azurePrivate, nil)},
		{"azure public and private cluster without private link settings", with(azurePublicAndPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink = nil
		})},
		{"azure cluster with lowercase resource ID segments", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.VnetID = strings.ReplaceAll(vnetID, "resourceGroups", "resourcegroups")
			hc.Spec.Platform.Azure.SubnetID = strings.ReplaceAll(subnetID, "resourceGroups", "resourcegroups")
		})},
		{"azure cluster whose IDs spell the subscription in other case", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.SubscriptionID = strings.ToUpper(subscription)
			hc.Spec.Platform.Azure.VnetID = strings.ReplaceAll(vnetID, "subscriptions", "SUBSCRIPTIONS")
			hc.Spec.Platform.Azure.SubnetID = strings.ReplaceAll(subnetID, "subscriptions", "SUBSCRIPTIONS")
		})},
		{"aws node pool with a subnet", with(awsNodePoolWithSubnet, nil)},
		{"aws node pool without a subnet", with(func(ns, n string) *hcv1.NodePool { return awsNodePool(ns, n, "") }, nil)},
		{"azure node pool", with(azureNodePool, nil)},
		{"aws hosted control plane with node pools", with(awsHCP, nil)},
		{"azure hosted control plane with node pools", with(func(ns, n string) *hcv1.HostedControlPlane {
			return hostedControlPlane(ns, n, azurePrivate(ns, n), hcv1.HostedControlPlaneNodePool{Name: "workers", SubnetID: subnetID})
		}, nil)},
		{"aws endpoint service", with(awsEndpointService, nil)},
		{"aws endpoint service with 10 subnets", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.SubnetIDs = hexSubnets(10)
		})},
		{"aws endpoint service, smallest", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.SubnetIDs, ep.Spec.ResourceTags = nil, nil
		})},
		{"azure private link service", with(azurePrivateLinkService, nil)},
		{"azure private link service with IPv6, no NAT subnet, 50 subscriptions", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.LoadBalancerIP = "fd00::10"
			pls.Spec.NATSubnetID = ""
			pls.Spec.AdditionalAllowedSubscriptions = uuids(50)
		})},
	}
	ns := env.NewNamespace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(ns, fmt.Sprintf("valid-%d", i))
			if err := env.Client.Create(t.Context(), obj); err != nil {
				t.Fatalf("the API server refused a valid object: %v", err)
			}
		})
	}
	if len(cases) < 10 {
		t.Errorf("only %d valid cases", len(cases))
	}
}

func TestDefaults(t *testing.T) {
	ns := env.NewNamespace(t)
	aws := awsPublicCluster(ns, "aws")
	azure := azurePublicCluster(ns, "azure")
	for _, hc := range []*hcv1.HostedCluster{aws, azure} {
		if err := env.Client.Create(t.Context(), hc); err != nil {
			t.Fatal(err)
		}
	}
	if got := aws.Spec.Platform.AWS.EndpointAccess; got != hcv1.AWSEndpointAccessPublic {
		t.Errorf("endpointAccess defaulted to %q, want Public", got)
	}
	if got := azure.Spec.Platform.Azure.Topology; got != hcv1.AzureTopologyPublic {
		t.Errorf("topology defaulted to %q, want Public", got)
	}
}

func TestInvalidObjectsAreRefused(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		obj  objectFunc
		want []string // the field path first, then words of the message
	}{
		// HostedCluster, common fields.
		{"empty infraID", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = "" }),
			[]string{"spec.infraID", "at least 1 chars"}},
		{"uppercase infraID", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = "Demo_1" }),
			[]string{"spec.infraID", "lowercase letters, digits and hyphens"}},
		{"infraID of 64 characters", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = long(64) }),
			[]string{"spec.infraID", "Too long"}},
		{"clusterID not a UUID", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = strings.Repeat("z", 36) }),
			[]string{"spec.clusterID", "must be a UUID"}},
		{"pausedUntil neither true nor a timestamp", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.PausedUntil = ptr("tomorrow") }),
			[]string{"spec.pausedUntil", "RFC3339"}},
		{"baseDomain with an underscore", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.DNS.BaseDomain = "my_domain.com" }),
			[]string{"spec.dns.baseDomain", "lowercase DNS name"}},
		{"no machine network", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = []hcv1.MachineNetworkEntry{}
		}), []string{"spec.networking.machineNetwork", "at least 1 items"}},
		{"machine network that is not a CIDR", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork[0].CIDR = "10.0.0.0/33"
		}), []string{"spec.networking.machineNetwork[0].cidr", "CIDR notation"}},
		{"machine network with host bits", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork[0].CIDR = "10.0.0.1/16"
		}), []string{"spec.networking.machineNetwork[0].cidr", "no host bits"}},
		// Found by the bad-input corpus (test/corpus).
		{"a machine network twice", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hc.Spec.Networking.MachineNetwork[0])
		}), []string{"spec.networking.machineNetwork", "lists a CIDR twice"}},
		{"services without APIServer", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services = routeServices()[1:]
		}), []string{"spec.services", "must include an entry for APIServer"}},
		{"Konnectivity by load balancer", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[2].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), []string{"spec.services[2].servicePublishingStrategy.type", "must be Route for Konnectivity, OAuthServer and Ignition"}},
		{"OAuthServer by node port", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services = append(hc.Spec.Services, hcv1.ServicePublishingStrategyMapping{
				Service: hcv1.OAuthServer, ServicePublishingStrategy: hcv1.ServicePublishingStrategy{Type: hcv1.NodePortPublishing}})
		}), []string{"spec.services[1].servicePublishingStrategy.type", "must be Route"}},
		{"APIServer by Route without a hostname", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy.Route = nil
		}), []string{"spec.services[0].servicePublishingStrategy.route", "route.hostname is required"}},
		{"route settings on a load balancer strategy", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy.Type = hcv1.LoadBalancerPublishing
		}), []string{"spec.services[0].servicePublishingStrategy.route", "only be set when type is Route"}},
		{"a service listed twice", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services = append(hc.Spec.Services, hc.Spec.Services[0])
		}), []string{"spec.services[1]", "Duplicate value"}},
		{"unknown service", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services = append(hc.Spec.Services, hcv1.ServicePublishingStrategyMapping{
				Service: "Console", ServicePublishingStrategy: hcv1.ServicePublishingStrategy{Type: hcv1.RoutePublishing}})
		}), []string{"spec.services[1].service", "Unsupported value"}},
		{"route hostname that is not a DNS name", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy.Route.Hostname = "https://api.example.com"
		}), []string{"spec.services[0].servicePublishingStrategy.route.hostname", "lowercase DNS name"}},

		// HostedCluster, platform union.
		{"unknown platform", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Type = "IBMCloud" }),
			[]string{"spec.platform.type", "Unsupported value"}},
		{"AWS platform without aws", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS = nil }),
			[]string{"spec.platform.aws", "platform.aws is required when platform.type is AWS"}},
		{"AWS platform with azure", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure = azurePublicCluster("", "").Spec.Platform.Azure
		}), []string{"spec.platform.azure", "platform.azure must not be set when platform.type is AWS"}},
		{"Azure platform with aws", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS = &hcv1.AWSPlatformSpec{Region: "us-east-1"}
		}), []string{"spec.platform.aws", "platform.aws must not be set when platform.type is Azure"}},

		// HostedCluster, AWS.
		{"AWS region in capitals", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.Region = "US-EAST-1" }),
			[]string{"spec.platform.aws.region", "AWS region name"}},
		{"unknown endpointAccess", with(awsPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.EndpointAccess = "Internal" }),
			[]string{"spec.platform.aws.endpointAccess", "Unsupported value"}},
		{"private AWS cluster without rolesRef", with(awsPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.RolesRef = nil }),
			[]string{"spec.platform.aws.rolesRef", "rolesRef.controlPlaneOperatorARN is required when endpointAccess is PublicAndPrivate or Private"}},
		{"public-and-private AWS cluster without cloudProviderConfig", with(awsPublicAndPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.CloudProviderConfig = nil
		}), []string{"spec.platform.aws.cloudProviderConfig", "cloudProviderConfig.vpc is required"}},
		{"malformed VPC ID", with(awsPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.CloudProviderConfig.VPC = "vpc-123" }),
			[]string{"spec.platform.aws.cloudProviderConfig.vpc", "must be a VPC ID"}},
		{"malformed subnet ID", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.CloudProviderConfig.Subnet.ID = "subnet-0123456789abcdefg"
		}), []string{"spec.platform.aws.cloudProviderConfig.subnet.id", "must be a subnet ID"}},
		{"control-plane operator ARN of a user", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::123456789012:user/alice"
		}), []string{"spec.platform.aws.rolesRef.controlPlaneOperatorARN", "must be an IAM role ARN"}},
		{"control-plane operator ARN in the China partition for us-east-1", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws-cn:iam::123456789012:role/cpo"
		}), []string{"spec.platform.aws.rolesRef.controlPlaneOperatorARN", "must be in the region's partition"}},
		{"control-plane operator ARN in the commercial partition for a GovCloud region", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.Region = "us-gov-west-1"
		}), []string{"spec.platform.aws.rolesRef.controlPlaneOperatorARN", "must be in the region's partition"}},
		{"control-plane operator ARN with a short account", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::1234:role/cpo"
		}), []string{"spec.platform.aws.rolesRef.controlPlaneOperatorARN", "must be an IAM role ARN"}},
		{"tag key starting with aws:", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[0].Key = "AWS:createdBy"
		}), []string{"spec.platform.aws.resourceTags[0].key", "must not start with aws:"}},
		{"tag key with a space", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[0].Key = "my team"
		}), []string{"spec.platform.aws.resourceTags[0].key", "may contain only letters, digits"}},
		{"tag key reserved by hcplink", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[0].Key = "kubernetes.io/cluster/other"
		}), []string{"spec.platform.aws.resourceTags[0].key", "hcplink sets those tags itself"}},
		{"tag value of 257 characters", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[0].Value = long(257)
		}), []string{"spec.platform.aws.resourceTags[0].value", "Too long"}},
		{"empty tag value", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[1].Value = ""
		}), []string{"spec.platform.aws.resourceTags[1].value", "at least 1 chars"}},
		{"tag key of 129 characters", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[0].Key = long(129)
		}), []string{"spec.platform.aws.resourceTags[0].key", "Too long"}},
		{"a tag key twice", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.ResourceTags[1].Key = hc.Spec.Platform.AWS.ResourceTags[0].Key
		}), []string{"spec.platform.aws.resourceTags[1]", "Duplicate value"}},
		{"26 tags", with(awsPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.AWS.ResourceTags = tags(26) }),
			[]string{"spec.platform.aws.resourceTags", "Too many"}},
		{"any principal", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{"*"}
		}), []string{"spec.platform.aws.additionalAllowedPrincipals[0]", "would let any AWS account connect"}},
		{"principal that is an account number", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{"123456789012"}
		}), []string{"spec.platform.aws.additionalAllowedPrincipals[0]", "must be IAM principal ARNs"}},
		{"a principal twice", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{roleARN, roleARN}
		}), []string{"spec.platform.aws.additionalAllowedPrincipals[1]", "Duplicate value"}},
		{"principal of another partition than the region's", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{"arn:aws-cn:iam::123456789012:root"}
		}), []string{"spec.platform.aws.additionalAllowedPrincipals", "must be in the region's partition"}},
		{"51 principals", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil
			for i := range 51 {
				hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = append(hc.Spec.Platform.AWS.AdditionalAllowedPrincipals,
					fmt.Sprintf("arn:aws:iam::%012d:root", i))
			}
		}), []string{"spec.platform.aws.additionalAllowedPrincipals", "Too many"}},
		{"private AWS API server by node port", with(awsPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.NodePortPublishing}
		}), []string{"spec.services", "must be published by Route or LoadBalancer; NodePort has no private path"}},

		// HostedCluster, Azure.
		{"Azure subscription that is not a UUID", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.SubscriptionID = "my-subscription-my-subscription-1234"
		}), []string{"spec.platform.azure.subscriptionID", "must be a UUID"}},
		{"Azure resource group ending in a period", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.ResourceGroupName = "customer-rg."
		}), []string{"spec.platform.azure.resourceGroup", "must not end with a period"}},
		{"Azure location with spaces", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Location = "East US"
		}), []string{"spec.platform.azure.location", "Azure region name"}},
		{"VNet ID of a subnet", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.VnetID = subnetID
		}), []string{"spec.platform.azure.vnetID", "must be a virtual network resource ID"}},
		{"subnet outside the VNet", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.SubnetID = natSubnetID
		}), []string{"spec.platform.azure.subnetID", "must be a subnet of the VNet named by vnetID"}},
		// Issue 18 item 16: the workers' network is in the cluster's
		// subscription, where the Private Endpoint is made.
		{"VNet and subnet in another subscription", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.VnetID = strings.Replace(vnetID, subscription, otherSubscription, 1)
			hc.Spec.Platform.Azure.SubnetID = strings.Replace(subnetID, subscription, otherSubscription, 1)
		}), []string{"spec.platform.azure.vnetID", "vnetID must be in the cluster's subscription", "spec.platform.azure.subnetID", "subnetID must be in the cluster's subscription"}},
		{"subscriptionID other than the VNet's", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.SubscriptionID = otherSubscription
		}), []string{"spec.platform.azure.vnetID", "its /subscriptions/<id>/ segment must equal subscriptionID"}},
		{"VNet name Azure refuses", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.VnetID = strings.Replace(vnetID, "customer-vnet", "customer-vnet.", 1)
			hc.Spec.Platform.Azure.SubnetID = hc.Spec.Platform.Azure.VnetID + "/subnets/workers"
		}), []string{"spec.platform.azure.vnetID", "names a VNet Azure would refuse"}},
		{"subnet name Azure refuses", with(azurePublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.SubnetID = vnetID + "/subnets/workers?x"
		}), []string{"spec.platform.azure.subnetID", "names a subnet Azure would refuse"}},
		{"NAT subnet name Azure refuses", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink.NATSubnetID = natSubnetID + "#"
		}), []string{"spec.platform.azure.private.privateLink.natSubnetID", "names a subnet Azure would refuse"}},
		{"private Azure cluster without private", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private = nil
		}), []string{"spec.platform.azure.private", "private is required when topology is PublicAndPrivate or Private"}},
		{"public Azure cluster with private", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Topology = hcv1.AzureTopologyPublic
		}), []string{"spec.platform.azure.private", "private must not be set when topology is Public"}},
		{"private Azure cluster without a tenant", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.TenantID = ""
		}), []string{"spec.platform.azure.tenantID", "tenantID is required when topology is PublicAndPrivate or Private"}},
		{"private Azure cluster without the control-plane operator's identity", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig = nil
		}), []string{"spec.platform.azure.azureAuthenticationConfig", "azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID is required", "hcplink create iam azure"}},
		{"Azure authentication without workload identities", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig.WorkloadIdentities = nil
		}), []string{"spec.platform.azure.azureAuthenticationConfig.workloadIdentities", "workloadIdentities is required when azureAuthenticationConfigType is WorkloadIdentities"}},
		{"Azure tenant that is not a UUID", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.TenantID = "contoso.onmicrosoft.com-0123456789ab"
		}), []string{"spec.platform.azure.tenantID", "tenantID must be a UUID"}},
		{"control-plane operator client ID that is not a UUID", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcv1.WorkloadIdentitiesConfig("hcplink-control-plane-operator-1234")
		}), []string{"spec.platform.azure.azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID", "clientID must be a UUID"}},
		{"unknown Azure authentication type", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.AzureAuthenticationConfig.AzureAuthenticationConfigType = "ManagedIdentities"
		}), []string{"spec.platform.azure.azureAuthenticationConfig.azureAuthenticationConfigType", "Unsupported value"}},
		{"unknown private type", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.Type = "Swift"
		}), []string{"spec.platform.azure.private.type", "Unsupported value"}},
		{"NAT subnet that is a VNet", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink.NATSubnetID = vnetID
		}), []string{"spec.platform.azure.private.privateLink.natSubnetID", "must be a subnet resource ID"}},
		{"additional subscription that is not a UUID", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink.AdditionalAllowedSubscriptions = []string{strings.Repeat("x", 36)}
		}), []string{"spec.platform.azure.private.privateLink.additionalAllowedSubscriptions[0]", "subscription UUIDs"}},
		{"51 additional subscriptions", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink.AdditionalAllowedSubscriptions = uuids(51)
		}), []string{"spec.platform.azure.private.privateLink.additionalAllowedSubscriptions", "Too many"}},
		{"private Azure API server by load balancer", with(azurePrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), []string{"spec.services", "every service of an Azure cluster whose topology is PublicAndPrivate or Private must be published by Route"}},

		// NodePool.
		{"node pool without a cluster", with(awsNodePoolWithSubnet, func(np *hcv1.NodePool) { np.Spec.ClusterName = "" }),
			[]string{"spec.clusterName", "at least 1 chars"}},
		{"node pool with an uppercase cluster name", with(awsNodePoolWithSubnet, func(np *hcv1.NodePool) { np.Spec.ClusterName = "Demo" }),
			[]string{"spec.clusterName", "must be the name of a HostedCluster"}},
		{"AWS node pool with azure settings", with(awsNodePoolWithSubnet, func(np *hcv1.NodePool) {
			np.Spec.Platform.Azure = &hcv1.AzureNodePoolPlatform{SubnetID: subnetID}
		}), []string{"spec.platform.azure", "platform.azure must not be set when platform.type is AWS"}},
		{"AWS node pool with a malformed subnet", with(awsNodePoolWithSubnet, func(np *hcv1.NodePool) {
			np.Spec.Platform.AWS.Subnet.ID = "subnet-ABCDEF12"
		}), []string{"spec.platform.aws.subnet.id", "must be a subnet ID"}},
		{"Azure node pool in a subnet Azure would refuse", with(azureNodePool, func(np *hcv1.NodePool) {
			np.Spec.Platform.Azure.SubnetID = vnetID + "/subnets/-workers"
		}), []string{"spec.platform.azure.subnetID", "names a subnet Azure would refuse"}},
		{"Azure node pool with a malformed subnet", with(azureNodePool, func(np *hcv1.NodePool) {
			np.Spec.Platform.Azure.SubnetID = "workers"
		}), []string{"spec.platform.azure.subnetID", "must be a subnet resource ID"}},

		// HostedControlPlane.
		{"control plane node pool with a malformed subnet", with(awsHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.NodePools[0].SubnetID = "sn_1"
		}), []string{"spec.nodePools[0].subnetID", "AWS subnet ID, an Azure subnet resource ID or a GCP subnet name"}},
		{"control plane node pool listed twice", with(awsHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.NodePools[1].Name = hcp.Spec.NodePools[0].Name
		}), []string{"spec.nodePools[1]", "Duplicate value"}},
		{"control plane with Ignition by load balancer", with(awsHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Services[3].ServicePublishingStrategy.Type = hcv1.LoadBalancerPublishing
		}), []string{"spec.services[3].servicePublishingStrategy.type", "must be Route"}},
		{"control plane of a private AWS cluster without rolesRef", with(awsHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Platform.AWS.RolesRef = nil
		}), []string{"spec.platform.aws.rolesRef", "is required"}},

		// AWSEndpointService.
		{"endpoint service without a load balancer", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.NetworkLoadBalancerName = ""
		}), []string{"spec.networkLoadBalancerName", "at least 1 chars"}},
		{"load balancer name of 256 characters", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.NetworkLoadBalancerName = long(256)
		}), []string{"spec.networkLoadBalancerName", "Too long"}},
		{"load balancer name that is a host name", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.NetworkLoadBalancerName = "k8s-nlb.elb.us-east-1.amazonaws.com"
		}), []string{"spec.networkLoadBalancerName", "only letters, digits and hyphens"}},
		{"11 subnets", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) { ep.Spec.SubnetIDs = hexSubnets(11) }),
			[]string{"spec.subnetIDs", "Too many"}},
		{"malformed subnet", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) { ep.Spec.SubnetIDs = []string{"subnet-1"} }),
			[]string{"spec.subnetIDs[0]", "must be subnet IDs"}},
		{"a subnet twice", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) { ep.Spec.SubnetIDs = []string{subnetA, subnetA} }),
			[]string{"spec.subnetIDs[1]", "Duplicate value"}},
		{"endpoint service tag reserved by AWS", with(awsEndpointService, func(ep *hcv1.AWSEndpointService) {
			ep.Spec.ResourceTags[0].Key = "aws:cloudformation:stack-name"
		}), []string{"spec.resourceTags[0].key", "must not start with aws:"}},

		// AzurePrivateLinkService.
		{"load balancer IP that is not an address", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.LoadBalancerIP = "10.1.2"
		}), []string{"spec.loadBalancerIP", "must be an IPv4 or IPv6 address"}},
		{"private link service subscription that is not a UUID", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.SubscriptionID = "sub"
		}), []string{"spec.subscriptionID", "at least 36 chars"}},
		{"guest subnet outside the guest VNet", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.GuestSubnetID = natSubnetID
		}), []string{"spec.guestSubnetID", "must be a subnet of the VNet named by guestVNetID"}},
		{"guest network in another subscription than the endpoint's", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.SubscriptionID = otherSubscription
		}), []string{"spec.guestVNetID", "guestVNetID must be in subscriptionID", "spec.guestSubnetID", "guestSubnetID must be in subscriptionID"}},
		{"malformed guest VNet", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.GuestVNetID = "/subscriptions/" + subscription + "/virtualNetworks/customer-vnet"
		}), []string{"spec.guestVNetID", "must be a virtual network resource ID"}},
		{"private link service base domain in capitals", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.BaseDomain = "AzDemo.Example.com"
		}), []string{"spec.baseDomain", "lowercase DNS name"}},
		{"private link service without a location", with(azurePrivateLinkService, func(pls *hcv1.AzurePrivateLinkService) {
			pls.Spec.Location = ""
		}), []string{"spec.location", "at least 1 chars"}},
	}
	ns := env.NewNamespace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(ns, fmt.Sprintf("invalid-%d", i))
			requireRefused(t, env.Client.Create(t.Context(), obj), tc.want)
		})
	}
	if len(cases) < 30 {
		t.Errorf("only %d invalid cases", len(cases))
	}
}
