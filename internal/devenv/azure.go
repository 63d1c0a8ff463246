package devenv

import (
	"context"
	"fmt"
)

// Platform is the cloud a devenv's private clusters run on.
type Platform string

const (
	// PlatformAWS (the default) runs the AWS half of cloudsim over HTTP,
	// the management and customer VPCs and the operator with
	// --private-platform=AWS.
	PlatformAWS Platform = "AWS"
	// PlatformAzure runs cloudsim over HTTPS with the management and guest
	// subscriptions and the operator with --private-platform=Azure.
	PlatformAzure Platform = "Azure"
)

// The Azure side of the local cloud: one tenant (cloudsim's default), the
// management subscription where the internal load balancers and Private
// Link Services live, and the guest subscription where the workers' VNet,
// the Private Endpoints and the private zones live.
const (
	AzureManagementSubscription = "11111111-1111-4111-8111-111111111111"
	AzureGuestSubscription      = "22222222-2222-4222-8222-222222222222"
	// AzureOtherSubscription is a third subscription, registered but empty,
	// for additionalAllowedSubscriptions.
	AzureOtherSubscription = "33333333-3333-4333-8333-333333333333"
	AzureLocation          = "eastus"
)

// AzureManagementNetwork is the management cluster's resource group and
// VNet, where the internal load balancers of the private routers live.
type AzureManagementNetwork struct {
	SubscriptionID string
	ResourceGroup  string
	VNetID         string
	// LoadBalancerSubnetID is the subnet the internal load-balancer
	// frontends take their private addresses from.
	LoadBalancerSubnetID string
}

// AzureGuestNetwork is the guest subscription's resource group and VNet,
// where the workers run.
type AzureGuestNetwork struct {
	SubscriptionID string
	ResourceGroup  string
	VNetID         string
	// SubnetIDs are the workers' subnets (at least two, so that a NodePool
	// can use another subnet than the cluster's).
	SubnetIDs []string
}

// AzureClusterFixture is what a private Azure HostedCluster's spec needs
// (platform.azure), prepared by PrepareAzureCluster.
type AzureClusterFixture struct {
	SubscriptionID string
	ResourceGroup  string
	Location       string
	VNetID         string
	// SubnetID is the cluster's subnet; SecondSubnetID another subnet of
	// the same VNet, for a NodePool.
	SubnetID       string
	SecondSubnetID string
	// TenantID and ControlPlaneOperatorClientID are the workload identity
	// the cluster's control-plane operator signs in as; the HostedCluster
	// names them (spec.platform.azure.tenantID and
	// azureAuthenticationConfig.workloadIdentities.controlPlaneOperator).
	TenantID                     string
	ControlPlaneOperatorClientID string
	// ControlPlaneOperatorPrincipalID is that identity's service principal,
	// as role assignments and cloudsim's Evaluations name it.
	ControlPlaneOperatorPrincipalID string
}

// PrepareAzureCluster makes, in the guest subscription, what a private
// Azure cluster needs before it is created: its control-plane operator's
// identity, made by the code behind hcplink create iam azure (a
// user-assigned managed identity whose federated credential trusts devenv's
// issuer for the CPO's ServiceAccount in the cluster's control-plane
// namespace, holding exactly the control-plane operator's custom role on
// the guest resource group). The cluster's HostedCluster names it
// (TenantID, ControlPlaneOperatorClientID), as a user's would; the kubelet
// stand-in runs the control-plane operator from the Deployment the
// operator renders from those fields. It is idempotent.
func (e *Env) PrepareAzureCluster(ctx context.Context, namespace, name, infraID string) (AzureClusterFixture, error) {
	if e.azure == nil {
		return AzureClusterFixture{}, fmt.Errorf("devenv runs %s, not Azure: start it with Platform: PlatformAzure", PlatformAWS)
	}
	return e.azure.prepareCluster(ctx, namespace, name, infraID)
}
