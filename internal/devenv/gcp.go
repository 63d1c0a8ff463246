package devenv

import (
	"context"
	"fmt"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// PlatformGCP runs the GCP half of cloudsim with a management project and
// customer projects, and the operator with --private-platform=GCP.
const PlatformGCP Platform = "GCP"

// The GCP side of the local cloud: the management project, where the
// routers' internal forwarding rules, the PSC NAT subnetworks and the
// service attachments live; the customer's project, where the workers'
// VPC, the Private Service Connect endpoints and the private zones live;
// and a partner project, registered but empty, for
// additionalAllowedProjects.
const (
	GCPManagementProject       = "devenv-management"
	GCPManagementProjectNumber = "100000000011"
	GCPCustomerProject         = "devenv-customer"
	GCPCustomerProjectNumber   = "200000000022"
	GCPPartnerProject          = "devenv-partner"
	GCPPartnerProjectNumber    = "300000000033"
	GCPRegion                  = "us-central1"
)

// GCPManagementNetwork is the management cluster's VPC network in the
// management project.
type GCPManagementNetwork struct {
	Project, ProjectNumber string
	// Network is the network's name; NetworkPath its full name
	// (projects/P/global/networks/N), as --gcp-network takes either.
	Network, NetworkPath string
	// NodesSubnet is the subnetwork the routers' internal forwarding rules
	// take their addresses from (GKE's default: the nodes').
	NodesSubnet string
	// NATSubnets are the network's subnetworks of purpose
	// PRIVATE_SERVICE_CONNECT: the fleet's pool, one per service attachment.
	NATSubnets []string
}

// GCPCustomerNetwork is the customer's VPC network, where the workers run.
type GCPCustomerNetwork struct {
	Project, ProjectNumber string
	// Network is the network's name.
	Network string
	// Subnets are the workers' subnetworks (names, at least two, so that a
	// NodePool can use another subnetwork than the cluster's).
	Subnets []string
}

// GCPClusterFixture is what a private GCP HostedCluster's spec needs
// (platform.gcp), prepared by PrepareGCPCluster.
type GCPClusterFixture struct {
	Project, Region string
	// Network is the customer's VPC network; Subnet the cluster's
	// subnetwork and SecondSubnet another one of the same network, for a
	// NodePool.
	Network, Subnet, SecondSubnet string
	// PoolProvider is the workload identity pool provider trusting the
	// management cluster's issuer (its full resource name,
	// projects/NUMBER/locations/global/workloadIdentityPools/POOL/providers/PROVIDER),
	// and ControlPlaneOperatorServiceAccount the Google service account the
	// cluster's control-plane operator impersonates: the HostedCluster names
	// both (spec.platform.gcp.workloadIdentity).
	PoolProvider                       string
	ControlPlaneOperatorServiceAccount string
}

// Platform is the HostedCluster's spec.platform for the fixture: the
// cluster's project, region, network and subnetwork, the workload identity
// its control-plane operator signs in with, and access.
func (f GCPClusterFixture) Platform(access hcplinkv1beta1.GCPEndpointAccessType) hcplinkv1beta1.PlatformSpec {
	return hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
		Project: f.Project, Region: f.Region, Network: f.Network, Subnet: f.Subnet,
		EndpointAccess: access,
		WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
			PoolProvider: f.PoolProvider,
			ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{
				ControlPlaneOperator: hcplinkv1beta1.GCPServiceAccountEmail(f.ControlPlaneOperatorServiceAccount),
			},
		},
	}}
}

// PrepareGCPCluster makes, in the customer's project, what a private GCP
// cluster needs before it is created: its control-plane operator's Google
// service account, holding exactly the control-plane operator's custom
// role on the project, which the cluster's control-plane ServiceAccount
// may impersonate through the workload identity pool provider that trusts
// the management cluster's issuer. The cluster's HostedCluster names them,
// as a user's would; the kubelet stand-in runs the control-plane operator
// from the Deployment the operator renders from those fields. It is
// idempotent.
func (e *Env) PrepareGCPCluster(ctx context.Context, namespace, name, infraID string) (GCPClusterFixture, error) {
	return e.PrepareGCPClusterIn(ctx, e.GCPCustomer, namespace, name, infraID)
}

// PrepareGCPClusterIn is PrepareGCPCluster in another customer's project,
// one AddGCPCustomer made.
func (e *Env) PrepareGCPClusterIn(ctx context.Context, customer GCPCustomerNetwork, namespace, name, infraID string) (GCPClusterFixture, error) {
	if e.gcp == nil {
		return GCPClusterFixture{}, fmt.Errorf("devenv runs %s, not GCP: start it with Platform: PlatformGCP", e.Platform)
	}
	return e.gcp.prepareCluster(ctx, customer, namespace, name, infraID)
}

// AddGCPCustomer registers another customer's project (project ID and
// number) with what devenv's customer project has: the network with the
// workers' subnetworks and the workload identity pool provider trusting
// the management cluster's issuer. A test whose clusters must not share
// the customer project with the others' (its own rate quotas, its own
// counters) makes one.
func (e *Env) AddGCPCustomer(ctx context.Context, project, number string) (GCPCustomerNetwork, error) {
	if e.gcp == nil {
		return GCPCustomerNetwork{}, fmt.Errorf("devenv runs %s, not GCP: start it with Platform: PlatformGCP", e.Platform)
	}
	return e.gcp.addCustomer(ctx, project, number)
}
