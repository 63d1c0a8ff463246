package gcpcorpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/testenv"
	"github.com/hcplink/hcplink/test/corpus"
)

// gcpFixture is what the GCP cases point at besides the healthy cluster,
// made in the customer's project before the corpus starts.
type gcpFixture struct {
	// otherNetwork is another VPC network of the customer's project, with
	// the subnetwork otherNetworkSubnet in the cluster's region.
	otherNetwork, otherNetworkSubnet string
	// otherRegionSubnet is a subnetwork of the customer's network in
	// otherRegion, not the cluster's region.
	otherRegionSubnet string
}

const otherRegion = "europe-west4"

// poolProvider is devenv's workload identity pool provider, which every
// cluster names; read from the healthy cluster's preparation.
var poolProvider string

// TestGCPCorpus runs the GCP bad-input corpus beside a healthy private
// cluster on a GCP devenv.
func TestGCPCorpus(t *testing.T) {
	t.Parallel()
	env := corpus.Env()
	ctx := context.Background()
	l := &corpus.Lane{Env: env, Namespace: corpus.CreateNamespace(t, env, "corpus-gcp"), CloudState: gcpInventory(env),
		PrivateLinkConditions: []string{hcv1.GCPServiceAttachmentAvailableCondition, hcv1.GCPPrivateServiceConnectAvailableCondition},
		OwnedMarkers: func(infraID, name string) []string {
			return []string{"cluster=" + infraID, gcpcloud.ClusterLabelKey(infraID), gcpcloud.ZoneDNSName(name)}
		}}
	l.ValidCluster = func(c *corpus.Run) *hcv1.HostedCluster {
		return gcpPrivateCluster(env, c.Namespace, c.Name, c.InfraID, "cpo-"+c.InfraID[:min(len(c.InfraID), 26)]+"@"+devenv.GCPCustomerProject+".iam.gserviceaccount.com")
	}
	l.ValidNodePool = func(c *corpus.Run, cluster string) *hcv1.NodePool {
		return gcpNodePool(c.Namespace, c.Name, cluster, env.GCPCustomer.Subnets[1])
	}

	var beforeTarget json.RawMessage
	newCluster := func(name string) (*hcv1.HostedCluster, string) {
		infraID := "corpus-" + name + "-" + corpus.RandomSuffix(5)
		f, err := env.PrepareGCPCluster(ctx, l.Namespace, name, infraID)
		if err != nil {
			t.Fatalf("preparing cluster %s's customer side: %v", name, err)
		}
		if beforeTarget, err = l.CloudState(); err != nil {
			t.Fatal(err)
		}
		poolProvider = f.PoolProvider
		hc := gcpPrivateCluster(env, l.Namespace, name, infraID, f.ControlPlaneOperatorServiceAccount)
		if err := env.Client.Create(ctx, hc); err != nil {
			t.Fatalf("creating cluster %s: %v", name, err)
		}
		return hc, infraID
	}
	l.Healthy, _ = newCluster("healthy")
	var targetInfraID string
	l.Target, targetInfraID = newCluster("target")
	if err := env.Client.Create(ctx, gcpNodePool(l.Namespace, "target-np1", "target", env.GCPCustomer.Subnets[0])); err != nil {
		t.Fatalf("creating the target cluster's NodePool: %v", err)
	}
	fx := prepareGCPFixture(t, env)
	l.WaitAvailable(t, l.Healthy)
	l.WaitAvailable(t, l.Target)

	l.Corpus(t, gcpCases(env, fx), gcpTargetCases(env, fx))
	t.Run("HostedCluster deleted while its NodePools remain", func(t *testing.T) {
		l.DeleteTargetLeavingNodePools(t, targetInfraID, beforeTarget)
	})
}

// gcpInventory is cloudsim's GCP inventory: the resources of every project,
// without the log of operations (which names what a delete removed, so it
// is no leftover) or the identities the cases' users made beforehand.
func gcpInventory(env *devenv.Env) func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		snap, err := env.Cloud.GCP.Snapshot()
		if err != nil {
			return nil, err
		}
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(snap, &parts); err != nil {
			return nil, err
		}
		return parts["resources"], nil
	}
}

// prepareGCPFixture makes, as cloudsim's administrator in the customer's
// project, what the cases name: another network with a subnetwork in the
// cluster's region, and a subnetwork of the customer's network in another
// region.
func prepareGCPFixture(t *testing.T, env *devenv.Env) gcpFixture {
	t.Helper()
	ctx := context.Background()
	admin, err := compute.NewService(ctx, option.WithEndpoint(env.GCPComputeEndpoint), option.WithTokenSource(env.GCPAdminTokens()))
	if err != nil {
		t.Fatal(err)
	}
	fx := gcpFixture{otherNetwork: "corpus-other-vpc", otherNetworkSubnet: "other-workers", otherRegionSubnet: "workers-eu"}
	project := env.GCPCustomer.Project
	net := &compute.Network{Name: fx.otherNetwork, ForceSendFields: []string{"AutoCreateSubnetworks"}}
	if _, err := admin.Networks.Insert(project, net).Context(ctx).Do(); err != nil {
		t.Fatalf("creating another network: %v", err)
	}
	await(t, "the other network", func() error { _, err := admin.Networks.Get(project, fx.otherNetwork).Context(ctx).Do(); return err })
	subnets := []struct{ region, name, network, cidr string }{
		{devenv.GCPRegion, fx.otherNetworkSubnet, fx.otherNetwork, "10.210.0.0/24"},
		{otherRegion, fx.otherRegionSubnet, env.GCPCustomer.Network, "10.11.0.0/24"},
	}
	for _, s := range subnets {
		sub := &compute.Subnetwork{Name: s.name, Network: "global/networks/" + s.network, IpCidrRange: s.cidr}
		if _, err := admin.Subnetworks.Insert(project, s.region, sub).Context(ctx).Do(); err != nil {
			t.Fatalf("creating subnetwork %s: %v", s.name, err)
		}
	}
	for _, s := range subnets {
		await(t, "subnetwork "+s.name, func() error { _, err := admin.Subnetworks.Get(project, s.region, s.name).Context(ctx).Do(); return err })
	}
	return fx
}

// await polls read until what it reads exists; an answer other than
// notFound fails at once.
func await(t *testing.T, what string, read func() error) {
	t.Helper()
	var failed error
	testenv.Eventually(t, "waiting for "+what, func(context.Context) error {
		err := read()
		var ge *googleapi.Error
		if err != nil && (!errors.As(err, &ge) || ge.Code != http.StatusNotFound) {
			failed = err
			return nil // stop polling: it will not come
		}
		return err
	})
	if failed != nil {
		t.Fatalf("waiting for %s: %v", what, failed)
	}
}

// gcpPrivateCluster is a Private GCP cluster in devenv's customer network
// that the API server and the operator accept.
func gcpPrivateCluster(env *devenv.Env, namespace, name, infraID, serviceAccount string) *hcv1.HostedCluster {
	c := env.GCPCustomer
	return &hcv1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.HostedClusterSpec{
			InfraID:    infraID,
			DNS:        hcv1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcv1.ClusterNetworking{MachineNetwork: []hcv1.MachineNetworkEntry{{CIDR: "10.10.0.0/16"}}},
			Services:   corpus.RouteServices(name),
			Platform: hcv1.PlatformSpec{Type: hcv1.GCPPlatform, GCP: &hcv1.GCPPlatformSpec{
				Project: c.Project, Region: devenv.GCPRegion, Network: c.Network, Subnet: c.Subnets[0],
				EndpointAccess: hcv1.GCPEndpointAccessPrivate,
				WorkloadIdentity: &hcv1.GCPWorkloadIdentityConfig{
					PoolProvider:          poolProvider,
					ServiceAccountsEmails: hcv1.GCPServiceAccountsEmails{ControlPlaneOperator: hcv1.GCPServiceAccountEmail(serviceAccount)},
				},
			}},
		},
	}
}

func gcpNodePool(namespace, name, cluster, subnet string) *hcv1.NodePool {
	return &hcv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.NodePoolSpec{ClusterName: cluster, Platform: hcv1.NodePoolPlatform{Type: hcv1.GCPPlatform,
			GCP: &hcv1.GCPNodePoolPlatform{Subnet: subnet}}},
	}
}

func gcpCluster(change func(g *hcv1.GCPPlatformSpec)) corpus.Act {
	return corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { change(hc.Spec.Platform.GCP) })
}

// preparedGCPCluster is gcpCluster for a case whose cluster the operator
// accepts and whose control-plane operator must sign in: its service
// account is made first, as the customer would.
func preparedGCPCluster(change func(g *hcv1.GCPPlatformSpec)) corpus.Act {
	var mu sync.Mutex
	accounts := map[string]string{}
	return corpus.Act{
		Prepare: func(ctx context.Context, c *corpus.Run) error {
			f, err := c.Env.PrepareGCPCluster(ctx, c.Namespace, c.Name, c.InfraID)
			mu.Lock()
			defer mu.Unlock()
			accounts[c.Name] = f.ControlPlaneOperatorServiceAccount
			return err
		},
		Run: corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) {
			mu.Lock()
			defer mu.Unlock()
			hc.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = hcv1.GCPServiceAccountEmail(accounts[c.Name])
			change(hc.Spec.Platform.GCP)
		}).Run,
	}
}

func healthyGCP(change func(g *hcv1.GCPPlatformSpec)) corpus.Act {
	return corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { change(hc.Spec.Platform.GCP) })
}

func private(g *hcv1.GCPPlatformSpec) *hcv1.GCPPrivateSpec {
	if g.Private == nil {
		g.Private = &hcv1.GCPPrivateSpec{}
	}
	return g.Private
}

func workloadIdentity(g *hcv1.GCPPlatformSpec) *hcv1.GCPWorkloadIdentityConfig {
	return g.WorkloadIdentity
}

// projectIDs are n distinct well-formed project IDs.
func projectIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("partner-project-%03d", i+1)
	}
	return out
}

// gcpCases is the GCP corpus.
func gcpCases(env *devenv.Env, fx gcpFixture) []corpus.Case {
	const sub = "spec.platform.gcp"
	const wi = sub + ".workloadIdentity"
	pool := poolProvider
	return cases([]corpusCase{
		// The project.
		{"project in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "Devenv-Customer" }),
			corpus.Refused(sub+".project", "must be a GCP project ID")},
		{"project starting with a digit", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "1devenv-customer" }),
			corpus.Refused(sub+".project", "must be a GCP project ID")},
		{"project ending with a hyphen", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "devenv-customer-" }),
			corpus.Refused(sub+".project", "must be a GCP project ID")},
		{"project with an underscore", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "devenv_customer" }),
			corpus.Refused(sub+".project", "must be a GCP project ID")},
		{"project of 5 characters", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "abcde" }),
			corpus.Refused(sub+".project", "at least 6")},
		{"project of 31 characters", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "p" + strings.Repeat("a", 30) }),
			corpus.Refused(sub+".project", "Too long")},
		{"project number instead of its ID", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = env.GCPCustomer.ProjectNumber }),
			corpus.Refused(sub+".project", "must be a GCP project ID")},

		// The region.
		{"region in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Region = "US-CENTRAL1" }),
			corpus.Refused(sub+".region", "must be a GCP region name")},
		{"zone instead of a region", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Region = "us-central1-a" }),
			corpus.Refused(sub+".region", "must be a GCP region name")},
		{"unknown region", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Region = "mars-central1" }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.PlatformRegionMismatchReason, "must be in the operator's region")},
		{"region other than the operator's", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Region = otherRegion }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.PlatformRegionMismatchReason, otherRegion)},

		// The network and subnet.
		{"network as another project's path", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			g.Network = "projects/other-project/global/networks/" + g.Network
		}), corpus.Refused(sub+".network", "must be a VPC network name")},
		{"network as a URL", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			g.Network = "https://www.googleapis.com/compute/v1/projects/" + g.Project + "/global/networks/" + g.Network
		}), corpus.Refused(sub+".network", "Too long")},
		{"network in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Network = "Devenv-Customer" }),
			corpus.Refused(sub+".network", "must be a VPC network name")},
		{"network of 64 characters", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Network = strings.Repeat("n", 64) }),
			corpus.Refused(sub+".network", "Too long")},
		{"subnet as another project's path", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			g.Subnet = "projects/other-project/regions/" + g.Region + "/subnetworks/" + g.Subnet
		}), corpus.Refused(sub+".subnet", "must be a subnet name")},
		{"subnet ending with a hyphen", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Subnet = "workers-" }),
			corpus.Refused(sub+".subnet", "must be a subnet name")},
		{"subnet that does not exist", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) { g.Subnet = "no-such-subnet" }),
			corpus.Condition(hcv1.GCPConfigurationValidCondition, hcv1.GCPSubnetNotFoundReason, "no-such-subnet")},
		{"subnet of another region", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) { g.Subnet = fx.otherRegionSubnet }),
			corpus.Condition(hcv1.GCPConfigurationValidCondition, hcv1.GCPSubnetNotFoundReason, "does not exist in region "+devenv.GCPRegion)},
		{"subnet of another network", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) { g.Subnet = fx.otherNetworkSubnet }),
			corpus.Condition(hcv1.GCPConfigurationValidCondition, hcv1.GCPSubnetNotInNetworkReason, "is in network "+fx.otherNetwork)},
		{"network that does not exist", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) { g.Network = "no-such-network" }),
			corpus.Condition(hcv1.GCPConfigurationValidCondition, hcv1.GCPSubnetNotInNetworkReason, "not in network no-such-network")},
		{"project that does not exist", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) { g.Project = "no-such-project-1" }),
			corpus.Condition(hcv1.GCPConfigurationValidCondition, hcv1.GCPSubnetNotFoundReason, "no-such-project-1")},
		{"private without a network", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Network = "" }),
			corpus.Refused(sub+".network", "network is required")},
		{"private without a subnet", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.Subnet = "" }),
			corpus.Refused(sub+".subnet", "subnet is required")},

		// Endpoint access and the private configuration.
		{"unknown endpointAccess", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.EndpointAccess = "Internal" }),
			corpus.Refused(sub+".endpointAccess", "Unsupported value")},
		{"public with private", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			g.EndpointAccess = hcv1.GCPEndpointAccessPublic
			private(g).AdditionalAllowedProjects = []string{devenv.GCPPartnerProject}
		}), corpus.Refused(sub+".private", "private must not be set when endpointAccess is Public")},
		{"NAT subnet as a path", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			private(g).NATSubnet = "projects/" + devenv.GCPManagementProject + "/subnetworks/psc-nat-1"
		}), corpus.Refused(sub+".private.natSubnet", "must be a subnet name")},
		{"NAT subnet in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) { private(g).NATSubnet = "PSC-NAT-1" }),
			corpus.Refused(sub+".private.natSubnet", "must be a subnet name")},
		{"APIServer by load balancer", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), corpus.Refused("spec.services", "must be published by Route")},

		// Additional allowed projects.
		{"additional project in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			private(g).AdditionalAllowedProjects = []string{"Partner-Project"}
		}), corpus.Refused(sub+".private.additionalAllowedProjects[0]", "must be GCP project IDs")},
		{"additional project number starting with 0", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			private(g).AdditionalAllowedProjects = []string{"0300000000033"}
		}), corpus.Refused(sub+".private.additionalAllowedProjects[0]", "must be GCP project IDs")},
		{"50 additional projects", gcpCluster(func(g *hcv1.GCPPlatformSpec) { private(g).AdditionalAllowedProjects = projectIDs(50) }),
			corpus.Refused(sub+".private.additionalAllowedProjects", "Too many")},
		{"an additional project twice", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			private(g).AdditionalAllowedProjects = []string{devenv.GCPPartnerProject, devenv.GCPPartnerProject}
		}), corpus.Refused(sub+".private.additionalAllowedProjects[1]", "Duplicate value")},
		{"the cluster's own project as an additional project", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			private(g).AdditionalAllowedProjects = []string{devenv.GCPPartnerProject, g.Project}
		}), corpus.Refused(sub+".private.additionalAllowedProjects", "must not list the cluster's own project")},

		// The workload identity.
		{"private without workloadIdentity", gcpCluster(func(g *hcv1.GCPPlatformSpec) { g.WorkloadIdentity = nil }),
			corpus.Refused(sub+".workloadIdentity", "workloadIdentity is required")},
		{"pool provider's short name", gcpCluster(func(g *hcv1.GCPPlatformSpec) { workloadIdentity(g).PoolProvider = "hcplink-provider" }),
			corpus.Refused(wi+".poolProvider", "full resource name")},
		{"pool provider under a project ID", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).PoolProvider = strings.Replace(pool, env.GCPCustomer.ProjectNumber, env.GCPCustomer.Project, 1)
		}), corpus.Refused(wi+".poolProvider", "full resource name")},
		{"pool provider in a region", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).PoolProvider = strings.Replace(pool, "/locations/global/", "/locations/us-central1/", 1)
		}), corpus.Refused(wi+".poolProvider", "full resource name")},
		{"pool provider with Google's prefix", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).PoolProvider = pool[:strings.LastIndex(pool, "/")+1] + "gcp-provider"
		}), corpus.Refused(wi+".poolProvider", "Google reserves that prefix")},
		// Well formed but not there: the sign-in is refused, and nothing is
		// made while the settings cannot be checked.
		{"service account that does not exist", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).ServiceAccountsEmails.ControlPlaneOperator = "no-such-account@" + hcv1.GCPServiceAccountEmail(g.Project) + ".iam.gserviceaccount.com"
		}), corpus.Condition(hcv1.ValidCloudCredentialsCondition, hcv1.InvalidCredentialsReason, "spec.platform.gcp.workloadIdentity.poolProvider")},
		{"pool provider that does not exist", preparedGCPCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).PoolProvider = pool[:strings.LastIndex(pool, "/")+1] + "no-such-provider"
		}), corpus.Condition(hcv1.ValidCloudCredentialsCondition, hcv1.InvalidCredentialsReason, "spec.platform.gcp.workloadIdentity.poolProvider")},
		{"service account that is not an email", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).ServiceAccountsEmails.ControlPlaneOperator = "control-plane-operator"
		}), corpus.Refused(wi+".serviceAccountsEmails.controlPlaneOperator", "must be a service account email")},
		{"Google-managed service account", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).ServiceAccountsEmails.ControlPlaneOperator = "200000000022-compute@developer.gserviceaccount.com"
		}), corpus.Refused(wi+".serviceAccountsEmails.controlPlaneOperator", "must be a service account email")},
		{"service account in upper case", gcpCluster(func(g *hcv1.GCPPlatformSpec) {
			workloadIdentity(g).ServiceAccountsEmails.ControlPlaneOperator = "Control-Plane-Operator@devenv-customer.iam.gserviceaccount.com"
		}), corpus.Refused(wi+".serviceAccountsEmails.controlPlaneOperator", "must be a service account email")},

		// Common fields, on GCP.
		{"GCP platform with azure set", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure = &hcv1.AzurePlatformSpec{Location: "eastus"}
		}), corpus.Refused("spec.platform.azure", "must not be set when platform.type is GCP")},
		{"GCP platform without gcp", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { hc.Spec.Platform.GCP = nil }),
			corpus.Refused("spec.platform.gcp", "platform.gcp is required")},
		{"infraID in upper case", corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { hc.Spec.InfraID = "Corpus-GCP" }),
			corpus.Refused("spec.infraID", "lowercase letters, digits and hyphens")},
		{"name and namespace too long for a namespace", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) { hc.Name = c.Name + strings.Repeat("x", 60) }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.NamespaceNameTooLongReason, "shorten the HostedCluster's name")},
		{"AWS private cluster on the GCP operator", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSPlatformSpec{Region: "us-east-1",
				EndpointAccess:      hcv1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcv1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"},
				RolesRef:            &hcv1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/" + c.InfraID}}}
		}), corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.UnsupportedPrivatePlatformReason, "--private-platform=AWS")},

		// Changes to the healthy cluster that are not allowed.
		{"project changed", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.Project = devenv.GCPPartnerProject }),
			corpus.Refused(sub+".project", "project is immutable")},
		{"region changed", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.Region = otherRegion }),
			corpus.Refused(sub+".region", "region is immutable")},
		{"network changed", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.Network = fx.otherNetwork }),
			corpus.Refused(sub+".network", "network is immutable")},
		{"subnet changed", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.Subnet = env.GCPCustomer.Subnets[1] }),
			corpus.Refused(sub+".subnet", "subnet is immutable")},
		{"Private to Public", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.EndpointAccess = hcv1.GCPEndpointAccessPublic }),
			corpus.Refused(sub+".endpointAccess", "can change only between PublicAndPrivate and Private")},
		{"workloadIdentity removed", healthyGCP(func(g *hcv1.GCPPlatformSpec) { g.WorkloadIdentity = nil }),
			corpus.Refused(sub+".workloadIdentity", "workloadIdentity is required")},
		{"NAT subnet added", healthyGCP(func(g *hcv1.GCPPlatformSpec) { private(g).NATSubnet = env.GCPManagement.NATSubnets[0] }),
			corpus.Refused(sub+".private.natSubnet", "natSubnet is immutable")},
		{"50 additional projects added", healthyGCP(func(g *hcv1.GCPPlatformSpec) { private(g).AdditionalAllowedProjects = projectIDs(50) }),
			corpus.Refused(sub+".private.additionalAllowedProjects", "Too many")},
		{"the cluster's own project added as an additional project", healthyGCP(func(g *hcv1.GCPPlatformSpec) {
			private(g).AdditionalAllowedProjects = []string{g.Project}
		}), corpus.Refused(sub+".private.additionalAllowedProjects", "must not list the cluster's own project")},
		{"platform changed to Azure", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AzurePlatform, Azure: &hcv1.AzurePlatformSpec{Location: "eastus"}}
		}), corpus.Refused("spec.platform.type", "platform.type is immutable")},
		// Paused, so that the operator makes nothing for the Public cluster.
		{"Public cluster made Private", corpus.ThenUpdate(corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPublic
			paused := "true"
			hc.Spec.PausedUntil = &paused
		}), func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.GCP.EndpointAccess = hcv1.GCPEndpointAccessPrivate
		}), corpus.Refused(sub+".endpointAccess", "can change only between PublicAndPrivate and Private")},

		// NodePools.
		{"NodePool subnet as a path", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform.GCP.Subnet = "regions/" + devenv.GCPRegion + "/subnetworks/workers"
		}), corpus.Refused("spec.platform.gcp.subnet", "must be a subnet name")},
		{"NodePool with azure on GCP", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform.Azure = &hcv1.AzureNodePoolPlatform{}
		}), corpus.Refused("spec.platform.azure", "must not be set when platform.type is AWS or GCP")},
		{"NodePool of a cluster that does not exist", corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil),
			corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.HostedClusterNotFoundReason, "no-such-cluster")},
		{"AWS NodePool of a GCP cluster", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSNodePoolPlatform{Subnet: &hcv1.AWSSubnetReference{ID: "subnet-0123456789abcdef0"}}}
		}), corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.PlatformMismatchReason, "must be on its cluster's platform")},
		{"NodePool cluster changed", corpus.ThenUpdate(corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil), func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.ClusterName = "other"
		}), corpus.Refused("spec.clusterName", "clusterName is immutable")},
		{"NodePool platform changed", corpus.ThenUpdate(corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil), func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSNodePoolPlatform{Subnet: &hcv1.AWSSubnetReference{ID: "subnet-0123456789abcdef0"}}}
		}), corpus.Refused("spec.platform.type", "platform.type is immutable")},
	})
}

// gcpTargetCases give the target cluster NodePools in subnets it does not
// use, one at a time: the Private Service Connect endpoint serves every
// subnet of the network from the cluster's own subnet, so a NodePool's
// subnet changes nothing in the cloud.
func gcpTargetCases(env *devenv.Env, fx gcpFixture) []corpus.Case {
	const available = hcv1.GCPPrivateServiceConnectAvailableCondition
	return cases([]corpusCase{
		{"NodePool in the subnet of another NodePool", corpus.OnTarget(env.GCPCustomer.Subnets[0]), corpus.AcceptedAs(available)},
		{"NodePool in a subnet that does not exist", corpus.OnTarget("aaa-no-such-subnet"), corpus.AcceptedAs(available)},
		{"NodePool in a subnet of another network", corpus.OnTarget(fx.otherNetworkSubnet), corpus.AcceptedAs(available)},
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
