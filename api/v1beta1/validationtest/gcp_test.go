package validationtest

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

var (
	gcpPrivate = func(ns, n string) *hcv1.HostedCluster {
		return gcpPrivateCluster(ns, n, hcv1.GCPEndpointAccessPrivate)
	}
	gcpPublicAndPrivate = func(ns, n string) *hcv1.HostedCluster {
		return gcpPrivateCluster(ns, n, hcv1.GCPEndpointAccessPublicAndPrivate)
	}
	gcpHCP = func(ns, n string) *hcv1.HostedControlPlane {
		return hostedControlPlane(ns, n, gcpPrivate(ns, n),
			hcv1.HostedControlPlaneNodePool{Name: "workers-a", SubnetID: "workers"},
			hcv1.HostedControlPlaneNodePool{Name: "workers-b", SubnetID: "workers-b"})
	}
)

func TestGCPValidObjectsAreAccepted(t *testing.T) {
	cases := []struct {
		name string
		obj  objectFunc
	}{
		{"gcp public cluster, smallest", with(gcpPublicCluster, nil)},
		{"gcp private cluster", with(gcpPrivate, nil)},
		{"gcp public and private cluster without private settings", with(gcpPublicAndPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private = nil
		})},
		{"gcp private cluster with 49 additional projects, IDs and numbers, of the longest and shortest forms", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			projects := gcpProjects(46)
			projects = append(projects, "a"+strings.Repeat("b", 28)+"9", "abcdef", "1234567890123456789")
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = projects
			hc.Spec.Platform.GCP.Region = "northamerica-northeast1"
			hc.Spec.Platform.GCP.Network = "n"
		})},
		{"gcp public cluster naming its network and subnet", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Network = "customer-vpc"
			hc.Spec.Platform.GCP.Subnet = "workers"
		})},
		{"gcp node pool", with(gcpNodePool, nil)},
		{"gcp hosted control plane with node pools", with(gcpHCP, nil)},
		{"gcp private service connect", with(gcpPrivateServiceConnect, nil)},
		{"gcp private service connect with IPv6, no NAT subnet, 50 projects", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.LoadBalancerIP = "fd20::10"
			psc.Spec.NATSubnet = ""
			psc.Spec.ConsumerAcceptList = append(gcpProjects(49), gcpProject)
		})},
		{"gcp private service connect, smallest", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.LoadBalancerIP, psc.Spec.NATSubnet = "", ""
			psc.Spec.ConsumerAcceptList = []string{gcpProject}
		})},
	}
	ns := env.NewNamespace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(ns, fmt.Sprintf("gcp-valid-%d", i))
			if err := env.Client.Create(t.Context(), obj); err != nil {
				t.Fatalf("the API server refused a valid object: %v", err)
			}
		})
	}
}

func TestGCPDefaults(t *testing.T) {
	hc := gcpPublicCluster(env.NewNamespace(t), "gcp")
	if err := env.Client.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	if got := hc.Spec.Platform.GCP.EndpointAccess; got != hcv1.GCPEndpointAccessPublic {
		t.Errorf("endpointAccess defaulted to %q, want Public", got)
	}
}

func TestGCPInvalidObjectsAreRefused(t *testing.T) {
	cases := []struct {
		name string
		obj  objectFunc
		want []string // the field path first, then words of the message
	}{
		// HostedCluster, platform union.
		{"GCP platform without gcp", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP = nil }),
			[]string{"spec.platform.gcp", "platform.gcp is required when platform.type is GCP"}},
		{"GCP platform with aws", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS = &hcv1.AWSPlatformSpec{Region: "us-east-1"}
		}), []string{"spec.platform.aws", "platform.aws must not be set when platform.type is GCP"}},
		{"GCP platform with azure", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure = azurePublicCluster("", "").Spec.Platform.Azure
		}), []string{"spec.platform.azure", "platform.azure must not be set when platform.type is GCP"}},
		{"AWS platform with gcp", with(awsPublicCluster, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP = gcpPublicCluster("", "").Spec.Platform.GCP
		}), []string{"spec.platform.gcp", "platform.gcp must not be set unless platform.type is GCP"}},

		// HostedCluster, GCP fields.
		{"project in capitals", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = "Customer-Project" }),
			[]string{"spec.platform.gcp.project", "must be a GCP project ID"}},
		{"project ending with a hyphen", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = "customer-project-" }),
			[]string{"spec.platform.gcp.project", "not ending with a hyphen"}},
		{"project starting with a digit", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = "1customer" }),
			[]string{"spec.platform.gcp.project", "starting with a letter"}},
		{"project of 5 characters", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = "abcde" }),
			[]string{"spec.platform.gcp.project", "at least 6 chars"}},
		{"project of 31 characters", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = "a" + strings.Repeat("b", 30) }),
			[]string{"spec.platform.gcp.project", "Too long"}},
		{"region without its number", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Region = "us-central" }),
			[]string{"spec.platform.gcp.region", "must be a GCP region name"}},
		{"zone given as region", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Region = "us-central1-a" }),
			[]string{"spec.platform.gcp.region", "must be a GCP region name"}},
		{"unknown endpointAccess", with(gcpPublicCluster, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.EndpointAccess = "Internal" }),
			[]string{"spec.platform.gcp.endpointAccess", "Unsupported value"}},
		{"network with an underscore", with(gcpPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Network = "customer_vpc" }),
			[]string{"spec.platform.gcp.network", "must be a VPC network name"}},
		{"network given as a URL", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Network = "projects/customer-project-1/global/networks/customer-vpc"
		}), []string{"spec.platform.gcp.network", "must be a VPC network name"}},
		{"subnet starting with a hyphen", with(gcpPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Subnet = "-workers" }),
			[]string{"spec.platform.gcp.subnet", "must be a subnet name"}},
		{"private GCP cluster without a network", with(gcpPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Network = "" }),
			[]string{"spec.platform.gcp.network", "network is required when endpointAccess is PublicAndPrivate or Private"}},
		{"public and private GCP cluster without a subnet", with(gcpPublicAndPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Subnet = "" }),
			[]string{"spec.platform.gcp.subnet", "subnet is required when endpointAccess is PublicAndPrivate or Private"}},
		{"private GCP cluster without a workload identity", with(gcpPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.WorkloadIdentity = nil }),
			[]string{"spec.platform.gcp.workloadIdentity", "workloadIdentity is required when endpointAccess is PublicAndPrivate or Private"}},
		{"public GCP cluster with private settings", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublic
		}), []string{"spec.platform.gcp.private", "private must not be set when endpointAccess is Public"}},
		{"additional project that is neither an ID nor a number", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{"Partner Project"}
		}), []string{"spec.platform.gcp.private.additionalAllowedProjects[0]", "must be GCP project IDs", "or project numbers"}},
		{"additional project number with a leading zero", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{"0123456789"}
		}), []string{"spec.platform.gcp.private.additionalAllowedProjects[0]", "must be GCP project IDs"}},
		{"an additional project twice", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{otherGCPProject, otherGCPProject}
		}), []string{"spec.platform.gcp.private.additionalAllowedProjects[1]", "Duplicate value"}},
		{"the cluster's own project as an additional project", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{otherGCPProject, hc.Spec.Platform.GCP.Project}
		}), []string{"spec.platform.gcp.private.additionalAllowedProjects", "must not list the cluster's own project"}},
		{"50 additional projects", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = gcpProjects(50)
		}), []string{"spec.platform.gcp.private.additionalAllowedProjects", "Too many"}},
		{"NAT subnet with an underscore", with(gcpPrivate, func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Private.NATSubnet = "psc_nat" }),
			[]string{"spec.platform.gcp.private.natSubnet", "must be a subnet name"}},
		{"pool provider of a pool, not a provider", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = "projects/123456789012/locations/global/workloadIdentityPools/hcplink-mgmt"
		}), []string{"spec.platform.gcp.workloadIdentity.poolProvider", "full resource name"}},
		{"pool provider naming the project by ID", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = strings.Replace(poolProvider, "123456789012", gcpProject, 1)
		}), []string{"spec.platform.gcp.workloadIdentity.poolProvider", "projects/<project number>/locations/global"}},
		{"pool provider in a reserved pool", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = strings.Replace(poolProvider, "hcplink-mgmt", "gcp-mgmt", 1)
		}), []string{"spec.platform.gcp.workloadIdentity.poolProvider", "Google reserves that prefix"}},
		{"pool provider with a 3-character provider ID", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = strings.Replace(poolProvider, "mgmt-oidc", "oid", 1)
		}), []string{"spec.platform.gcp.workloadIdentity.poolProvider", "4 to 32 lowercase letters"}},
		{"control-plane operator that is a user", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = "alice@example.com"
		}), []string{"spec.platform.gcp.workloadIdentity.serviceAccountsEmails.controlPlaneOperator", "must be a service account email"}},
		{"control-plane operator without its service account", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = ""
		}), []string{"spec.platform.gcp.workloadIdentity.serviceAccountsEmails.controlPlaneOperator", "at least 1 chars"}},
		{"private GCP API server by load balancer", with(gcpPrivate, func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), []string{"spec.services", "every service of a GCP cluster whose endpointAccess is PublicAndPrivate or Private must be published by Route"}},

		// NodePool.
		{"GCP node pool in a subnet GCP would refuse", with(gcpNodePool, func(np *hcv1.NodePool) { np.Spec.Platform.GCP.Subnet = "Workers" }),
			[]string{"spec.platform.gcp.subnet", "must be a subnet name"}},
		{"GCP node pool without a subnet", with(gcpNodePool, func(np *hcv1.NodePool) { np.Spec.Platform.GCP.Subnet = "" }),
			[]string{"spec.platform.gcp.subnet", "at least 1 chars"}},
		{"GCP node pool with aws settings", with(gcpNodePool, func(np *hcv1.NodePool) {
			np.Spec.Platform.AWS = &hcv1.AWSNodePoolPlatform{}
		}), []string{"spec.platform.aws", "platform.aws must not be set when platform.type is Azure or GCP"}},
		{"Azure node pool with gcp settings", with(azureNodePool, func(np *hcv1.NodePool) {
			np.Spec.Platform.GCP = &hcv1.GCPNodePoolPlatform{Subnet: "workers"}
		}), []string{"spec.platform.gcp", "platform.gcp must not be set when platform.type is AWS or Azure"}},

		// HostedControlPlane.
		{"control plane node pool in a subnet no cloud would name", with(gcpHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.NodePools[0].SubnetID = "Workers_1"
		}), []string{"spec.nodePools[0].subnetID", "an AWS subnet ID, an Azure subnet resource ID or a GCP subnet name"}},
		{"control plane node pool with a 64-character GCP subnet", with(gcpHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.NodePools[0].SubnetID = "w" + strings.Repeat("x", 63)
		}), []string{"spec.nodePools[0].subnetID", "or a GCP subnet name"}},
		{"control plane of a private GCP cluster with the API server by load balancer", with(gcpHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), []string{"spec.services", "must be published by Route"}},
		{"control plane of a private GCP cluster without a workload identity", with(gcpHCP, func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Platform.GCP.WorkloadIdentity = nil
		}), []string{"spec.platform.gcp.workloadIdentity", "is required"}},

		// GCPPrivateServiceConnect.
		{"load balancer IP that is not an address", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.LoadBalancerIP = "10.128.0"
		}), []string{"spec.loadBalancerIP", "must be an IPv4 or IPv6 address"}},
		{"empty consumer accept list", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.ConsumerAcceptList = []string{}
		}), []string{"spec.consumerAcceptList", "at least 1 items"}},
		{"consumer accept list without the cluster's project", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.ConsumerAcceptList = []string{otherGCPProject}
		}), []string{"spec.consumerAcceptList", "consumerAcceptList must include project"}},
		{"51 accepted projects", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.ConsumerAcceptList = append(gcpProjects(50), gcpProject)
		}), []string{"spec.consumerAcceptList", "Too many"}},
		{"accepted project that is a folder", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.ConsumerAcceptList = []string{gcpProject, "folders/1234"}
		}), []string{"spec.consumerAcceptList[1]", "must be GCP project IDs"}},
		{"private service connect project in capitals", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.Project = "Customer-Project-1"
			psc.Spec.ConsumerAcceptList = []string{psc.Spec.Project}
		}), []string{"spec.project", "must be a GCP project ID"}},
		{"private service connect without a region", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.Region = ""
		}), []string{"spec.region", "at least 1 chars"}},
		{"private service connect network with a dot", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.Network = "customer.vpc"
		}), []string{"spec.network", "must be a VPC network name"}},
		{"private service connect without a subnet", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.Subnet = ""
		}), []string{"spec.subnet", "at least 1 chars"}},
		{"private service connect NAT subnet ending with a hyphen", with(gcpPrivateServiceConnect, func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.NATSubnet = "psc-nat-"
		}), []string{"spec.natSubnet", "must be a subnet name"}},
	}
	ns := env.NewNamespace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj(ns, fmt.Sprintf("gcp-invalid-%d", i))
			requireRefused(t, env.Client.Create(t.Context(), obj), tc.want)
		})
	}
}

func TestGCPHostedClusterUpdates(t *testing.T) {
	publicGCP := func(ns, n string) *hcv1.HostedCluster {
		hc := gcpPrivate(ns, n)
		hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublic
		hc.Spec.Platform.GCP.Private = nil
		return hc
	}
	withoutNATSubnet := func(ns, n string) *hcv1.HostedCluster {
		hc := gcpPrivate(ns, n)
		hc.Spec.Platform.GCP.Private.NATSubnet = ""
		return hc
	}
	cases := []updateCase[*hcv1.HostedCluster]{
		// Allowed.
		{name: "GCP PublicAndPrivate to Private", base: gcpPublicAndPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPrivate
		}},
		{name: "GCP Private to PublicAndPrivate", base: gcpPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublicAndPrivate
		}},
		{name: "GCP additional projects change", base: gcpPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = gcpProjects(3)
		}},
		{name: "GCP additional projects removed", base: gcpPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = nil
		}},
		{name: "GCP private settings without a NAT subnet added later", base: func(ns, n string) *hcv1.HostedCluster {
			hc := gcpPublicAndPrivate(ns, n)
			hc.Spec.Platform.GCP.Private = nil
			return hc
		}, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Private = &hcv1.GCPPrivateSpec{AdditionalAllowedProjects: []string{otherGCPProject}}
		}},
		{name: "GCP control-plane operator service account rotated", base: gcpPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = "cpo-rotated@customer-project-1.iam.gserviceaccount.com"
		}},
		{name: "GCP pool provider moved", base: gcpPrivate, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = strings.Replace(poolProvider, "mgmt-oidc", "mgmt-oidc-2", 1)
		}},
		{name: "public GCP cluster gains a network and subnet", base: gcpPublicCluster, mutate: func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.Network = "customer-vpc"
			hc.Spec.Platform.GCP.Subnet = "workers"
		}},

		// Refused.
		{name: "GCP Private to Public", base: gcpPrivate, want: []string{"spec.platform.gcp.endpointAccess", "changing between Public and PublicAndPrivate or Private is not supported"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublic
				hc.Spec.Platform.GCP.Private = nil
			}},
		{name: "GCP Public to Private", base: publicGCP, want: []string{"spec.platform.gcp.endpointAccess", "changing between Public and PublicAndPrivate or Private is not supported"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPrivate }},
		{name: "GCP Public to PublicAndPrivate", base: publicGCP, want: []string{"spec.platform.gcp.endpointAccess", "not supported"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublicAndPrivate
			}},
		{name: "GCP own project added to the additional projects", base: gcpPrivate,
			want: []string{"spec.platform.gcp.private.additionalAllowedProjects", "must not list the cluster's own project"},
			mutate: func(hc *hcv1.HostedCluster) {
				hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = append(hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects, hc.Spec.Platform.GCP.Project)
			}},
		{name: "GCP NAT subnet changed", base: gcpPrivate, want: []string{"spec.platform.gcp.private.natSubnet", "natSubnet is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Private.NATSubnet = "psc-nat-2" }},
		{name: "GCP NAT subnet removed", base: gcpPrivate, want: []string{"spec.platform.gcp.private.natSubnet", "cannot be added, changed or removed"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Private.NATSubnet = "" }},
		{name: "GCP NAT subnet removed with the private settings", base: gcpPrivate, want: []string{"spec.platform.gcp.private.natSubnet", "cannot be added, changed or removed"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Private = nil }},
		{name: "GCP NAT subnet added", base: withoutNATSubnet, want: []string{"spec.platform.gcp.private.natSubnet", "cannot be added, changed or removed"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Private.NATSubnet = "psc-nat-1" }},
		{name: "GCP network changed", base: gcpPrivate, want: []string{"spec.platform.gcp.network", "network is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Network = "other-vpc" }},
		{name: "GCP network removed from a public cluster", base: publicGCP, want: []string{"spec.platform.gcp.network", "network is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Network = "" }},
		{name: "GCP subnet changed", base: gcpPrivate, want: []string{"spec.platform.gcp.subnet", "subnet is immutable once set"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Subnet = "workers-2" }},
		{name: "GCP project changed", base: gcpPublicCluster, want: []string{"spec.platform.gcp.project", "project is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Project = otherGCPProject }},
		{name: "GCP region changed", base: gcpPublicCluster, want: []string{"spec.platform.gcp.region", "region is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.Region = "europe-west4" }},
		{name: "GCP workload identity removed from a private cluster", base: gcpPrivate, want: []string{"spec.platform.gcp.workloadIdentity", "is required when endpointAccess is PublicAndPrivate or Private"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP.WorkloadIdentity = nil }},
		{name: "platform type changed from GCP", base: gcpPublicCluster, want: []string{"spec.platform.type", "platform.type is immutable"},
			mutate: func(hc *hcv1.HostedCluster) { hc.Spec.Platform = awsPublicCluster("", "").Spec.Platform }},
	}
	runUpdates(t, "gcphc", cases)
}

func TestGCPNodePoolAndControlPlaneUpdates(t *testing.T) {
	runUpdates(t, "gcpnp", []updateCase[*hcv1.NodePool]{
		{name: "GCP subnet changes", base: gcpNodePool, mutate: func(np *hcv1.NodePool) { np.Spec.Platform.GCP.Subnet = "workers-2" }},
		{name: "GCP platform type changed", base: gcpNodePool, want: []string{"spec.platform.type", "platform.type is immutable"},
			mutate: func(np *hcv1.NodePool) {
				np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSNodePoolPlatform{}}
			}},
	})
	runUpdates(t, "gcphcp", []updateCase[*hcv1.HostedControlPlane]{
		{name: "endpoint access follows the cluster to PublicAndPrivate", base: gcpHCP, mutate: func(hcp *hcv1.HostedControlPlane) {
			hcp.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublicAndPrivate
		}},
		{name: "endpoint access to Public", base: gcpHCP, want: []string{"spec.platform.gcp.endpointAccess", "not supported"},
			mutate: func(hcp *hcv1.HostedControlPlane) {
				hcp.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublic
				hcp.Spec.Platform.GCP.Private = nil
			}},
	})
}

func TestGCPPrivateServiceConnectUpdates(t *testing.T) {
	cases := []updateCase[*hcv1.GCPPrivateServiceConnect]{
		{name: "load balancer IP changes", base: gcpPrivateServiceConnect, mutate: func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.LoadBalancerIP = "10.128.0.21"
		}},
		{name: "accept list changes", base: gcpPrivateServiceConnect, mutate: func(psc *hcv1.GCPPrivateServiceConnect) {
			psc.Spec.ConsumerAcceptList = append(gcpProjects(3), gcpProject)
		}},
		{name: "accept list loses the cluster's project", base: gcpPrivateServiceConnect, want: []string{"spec.consumerAcceptList", "must include project"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.ConsumerAcceptList = []string{otherGCPProject} }},
		{name: "NAT subnet changed", base: gcpPrivateServiceConnect, want: []string{"spec.natSubnet", "natSubnet is immutable"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.NATSubnet = "psc-nat-2" }},
		{name: "NAT subnet removed", base: gcpPrivateServiceConnect, want: []string{"spec.natSubnet", "cannot be added, changed or removed"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.NATSubnet = "" }},
		{name: "NAT subnet added", base: func(ns, n string) *hcv1.GCPPrivateServiceConnect {
			psc := gcpPrivateServiceConnect(ns, n)
			psc.Spec.NATSubnet = ""
			return psc
		}, want: []string{"spec.natSubnet", "cannot be added, changed or removed"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.NATSubnet = "psc-nat-1" }},
		{name: "project changed", base: gcpPrivateServiceConnect, want: []string{"spec.project", "project is immutable"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) {
				psc.Spec.Project = otherGCPProject
				psc.Spec.ConsumerAcceptList = []string{otherGCPProject}
			}},
		{name: "region changed", base: gcpPrivateServiceConnect, want: []string{"spec.region", "region is immutable"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.Region = "europe-west4" }},
		{name: "network changed", base: gcpPrivateServiceConnect, want: []string{"spec.network", "network is immutable"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.Network = "other-vpc" }},
		{name: "subnet changed", base: gcpPrivateServiceConnect, want: []string{"spec.subnet", "subnet is immutable"},
			mutate: func(psc *hcv1.GCPPrivateServiceConnect) { psc.Spec.Subnet = "workers-2" }},
	}
	runUpdates(t, "gcppsc", cases)
}

// TestGCPPrivateServiceConnectStatus writes status through the status
// subresource as the controllers will, including a refusal.
func TestGCPPrivateServiceConnectStatus(t *testing.T) {
	ctx := t.Context()
	psc := gcpPrivateServiceConnect(env.NewNamespace(t), "status")
	if err := env.Client.Create(ctx, psc); err != nil {
		t.Fatal(err)
	}
	psc.Status.EndpointIP = "10.0.0.300"
	requireRefused(t, env.Client.Status().Update(ctx, psc), []string{"status.endpointIP", "must be an IPv4 or IPv6 address"})

	psc.Status = hcv1.GCPPrivateServiceConnectStatus{
		ForwardingRuleName:    "a1b2c3d4e5f60718293a4b5c6d7e8f90",
		NATSubnets:            []string{"psc-nat-1"},
		ServiceAttachmentName: "hcplink-gcpdemo-8hd3k",
		ServiceAttachmentURI:  "projects/mgmt-project/regions/us-central1/serviceAttachments/hcplink-gcpdemo-8hd3k",
		EndpointName:          "hcplink-gcpdemo-8hd3k-psc",
		EndpointIP:            "10.0.0.30",
		DNSZoneName:           "gcpdemo-hypershift-local",
		DNSRecords:            []string{"api.gcpdemo.hypershift.local.", "*.apps.gcpdemo.hypershift.local."},
		Conditions: []metav1.Condition{{
			Type: hcv1.GCPServiceAttachmentAvailableCondition, Status: metav1.ConditionTrue, Reason: hcv1.GCPSuccessReason,
			Message: hcv1.AllIsWellMessage, LastTransitionTime: metav1.Now(),
		}},
	}
	if err := env.Client.Status().Update(ctx, psc); err != nil {
		t.Fatalf("status update refused: %v", err)
	}
}
