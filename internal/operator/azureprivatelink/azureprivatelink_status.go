package azureprivatelink

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Delays of states whose length is known.
const (
	// operationPollMin/Max: an Azure network operation (a subnet, a Private
	// Link Service, a deletion) finishes within seconds to a minute; look
	// every 5–8 s (jittered), without growth: the steps of one creation
	// share a reason and must not slow each other down.
	operationPollMin = 5 * time.Second
	operationPollMax = 8 * time.Second
	// connectionsFirst/Most: connections being removed go within seconds;
	// should they not, look less often.
	connectionsFirst = 5 * time.Second
	connectionsMost  = 30 * time.Second
	// controlPlaneCleanupPoll: the CPO's finalizer removal wakes us through
	// the watch; this is the safety net.
	controlPlaneCleanupPoll = 30 * time.Second
)

// subscriptions is the set the Private Link Service shows itself to and
// approves automatically: the cluster's subscription and the
// cluster's additionalAllowedSubscriptions, lowercased, sorted, unique
// (Azure compares subscription IDs without case).
func subscriptions(guest string, additional []string) []string {
	return azurecloud.NormalizeSubscriptions(append([]string{guest}, additional...))
}

// desiredService is what the Private Link Service must be.
type desiredService struct {
	Name, Location string
	// FrontendID is the internal load balancer frontend it serves.
	FrontendID string
	// NATSubnetID is the subnet of its one NAT IP configuration.
	NATSubnetID string
	// Subscriptions are its visibility and auto-approval (the same set).
	Subscriptions []string
	// Tags mark it as the cluster's, and this management cluster's.
	Tags map[string]*string
}

// body is the Private Link Service to PUT (the provider's one body
// builder: one frontend, one NAT IP configuration, visibility =
// auto-approval).
func (d desiredService) body() armnetwork.PrivateLinkService {
	return azurecloud.PrivateLinkServiceBody(azurecloud.PrivateLinkServiceSpec{Location: d.Location, FrontendID: d.FrontendID,
		NATSubnetID: d.NATSubnetID, Subscriptions: d.Subscriptions, Tags: maps.Clone(d.Tags)})
}

// drift lists how the service differs from what it must be, in words for
// the log and the condition; empty when it matches. A Failed provisioning
// state is drift too: a PUT of the desired service repairs it.
func drift(pls *armnetwork.PrivateLinkService, d desiredService) []string {
	p := pls.Properties
	if p == nil {
		return []string{"no properties"}
	}
	var out []string
	if got := frontendIDs(p.LoadBalancerFrontendIPConfigurations); len(got) != 1 || !strings.EqualFold(got[0], d.FrontendID) {
		out = append(out, "load balancer frontend")
	}
	if got := natSubnetIDs(p.IPConfigurations); len(got) != 1 || !strings.EqualFold(got[0], d.NATSubnetID) {
		out = append(out, "NAT subnet")
	}
	if p.ProvisioningState != nil && *p.ProvisioningState == armnetwork.ProvisioningStateFailed {
		out = append(out, "provisioning state Failed")
	}
	var vis, auto []*string
	if p.Visibility != nil {
		vis = p.Visibility.Subscriptions
	}
	if p.AutoApproval != nil {
		auto = p.AutoApproval.Subscriptions
	}
	if !slices.Equal(normalized(vis), d.Subscriptions) {
		out = append(out, "visibility subscriptions")
	}
	if !slices.Equal(normalized(auto), d.Subscriptions) {
		out = append(out, "auto-approval subscriptions")
	}
	for k, v := range d.Tags {
		if got, ok := pls.Tags[k]; !ok || deref(got) != deref(v) {
			out = append(out, "tags")
			break
		}
	}
	return out
}

func frontendIDs(fes []*armnetwork.FrontendIPConfiguration) []string {
	var out []string
	for _, fe := range fes {
		if fe != nil {
			out = append(out, deref(fe.ID))
		}
	}
	return out
}

func natSubnetIDs(cs []*armnetwork.PrivateLinkServiceIPConfiguration) []string {
	var out []string
	for _, c := range cs {
		if c != nil && c.Properties != nil && c.Properties.Subnet != nil {
			out = append(out, deref(c.Properties.Subnet.ID))
		}
	}
	return out
}

// normalized is a list of subscription IDs lowercased, sorted, unique.
func normalized(ss []*string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, deref(s))
	}
	return azurecloud.NormalizeSubscriptions(out)
}

// provisioning is a resource's provisioning state ("" without one).
func provisioning(s *armnetwork.ProvisioningState) armnetwork.ProvisioningState {
	if s == nil {
		return ""
	}
	return *s
}

// serviceStateOutcome says what a service's provisioning state means:
// Updating → poll; Deleting → gone (it is created again once it went);
// Succeeded, Failed (repaired by a PUT, see drift) and states Azure may
// add → go on.
func serviceStateOutcome(pls *armnetwork.PrivateLinkService) (o outcome.Outcome, gone bool) {
	name := deref(pls.Name)
	var state armnetwork.ProvisioningState
	if pls.Properties != nil {
		state = provisioning(pls.Properties.ProvisioningState)
	}
	switch state {
	case armnetwork.ProvisioningStateUpdating:
		return plsUpdating(name, 0), false
	case armnetwork.ProvisioningStateDeleting:
		return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
			"Private Link Service "+name+" is being deleted outside hcplink; it is created again once it is gone.", operationPoll()), true
	}
	return outcome.Continue(), false
}

// plsUpdating: the service is being created or changed; retryAfter is
// what Azure's answer asked for (zero: none).
func plsUpdating(name string, retryAfter time.Duration) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
		"Private Link Service "+name+" is being created or updated.", nextLook(retryAfter))
}

// operationPoll is when to look at a running Azure operation again when
// Azure did not say.
func operationPoll() time.Duration { return outcome.Between(operationPollMin, operationPollMax) }

// nextLook is when to look at a running operation again: when Azure's
// Retry-After says (ARM sends one with an answer about a running
// operation: learn.microsoft.com/azure/azure-resource-manager/management/async-operations),
// else operationPoll.
func nextLook(retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	return operationPoll()
}

// natSubnetCreating: the NAT subnet is being created; retryAfter is what
// Azure's answer asked for (zero: none).
func natSubnetCreating(name string, retryAfter time.Duration) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason, "NAT subnet "+name+" is being created.", nextLook(retryAfter))
}

// waitingForIP: the control-plane operator has not reported the router's
// internal load balancer address yet; its spec write wakes us.
func waitingForIP() outcome.Outcome {
	return outcome.WaitForEvent(hcplinkv1beta1.WaitingForLoadBalancerIPReason,
		"Waiting for the control-plane operator to report the private router's internal load balancer address (spec.loadBalancerIP).")
}

// frontendNotFound: no internal load balancer frontend of the management
// cluster has the address; the cloud provider may still be creating it,
// so look again soon, then rarely.
func frontendNotFound(ip, resourceGroup string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.InternalLoadBalancerNotFoundReason, fmt.Sprintf(
		"No internal load balancer of resource group %s has a frontend with address %s in the management cluster's VNet; the private router's Service must have an internal load balancer, and --azure-pls-resource-group must name the management cluster's resource group.", resourceGroup, ip))
}

// frontendAmbiguous: frontends in several VNets hold the address (two
// clusters with the same address ranges in one resource group); taking
// either could publish another cluster's load balancer.
func frontendAmbiguous(ip string, fes []Frontend) outcome.Outcome {
	vnets := make([]string, 0, len(fes))
	for _, fe := range fes {
		vnets = append(vnets, lastSegment(fe.VNetID()))
	}
	slices.Sort(vnets)
	return outcome.WaitOnPerson(hcplinkv1beta1.InternalLoadBalancerAmbiguousReason, fmt.Sprintf(
		"Internal load balancer frontends in %d places (VNets %s) have address %s; set the operator's --azure-vnet-id to the management cluster's VNet.",
		len(fes), strings.Join(slices.Compact(vnets), ", "), ip))
}

// natSubnetNotFound: the subnet spec.natSubnetID names does not exist.
func natSubnetNotFound(name string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetNotFoundReason,
		"NAT subnet "+name+" (spec.natSubnetID) does not exist; create it with Private Link Service network policies disabled, in the load balancer's region.")
}

// loadBalancerFullOutcome: the router's load balancer carries Azure's
// limit of Private Link Services; the cluster needs its router on another
// load balancer, which the cloud provider makes when configured with
// several.
func loadBalancerFullOutcome(lb string, n int) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.LoadBalancerPrivateLinkServiceLimitReason, fmt.Sprintf(
		"Internal load balancer %s already has %d Private Link Services, Azure's limit per load balancer; give the management cluster more internal load balancers (cloud-provider-azure multipleStandardLoadBalancerConfigurations) and place this cluster's private router on one with room (Service annotation service.beta.kubernetes.io/azure-load-balancer-configurations), or delete a cluster on it.", lb, n))
}

// natSubnetNameTaken: a subnet with the name hcplink gives the cluster's
// NAT subnet exists, and nothing says hcplink made it.
func natSubnetNameTaken(name string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetNameTakenReason,
		"Subnet "+name+" exists in the load balancer's VNet but hcplink did not create it; hcplink neither uses nor deletes it. Rename or delete it, or give the cluster a NAT subnet of your own (natSubnetID).")
}

// natSubnetPoliciesOn: the given NAT subnet refuses Private Link Services.
func natSubnetPoliciesOn(name string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.InvalidParameterReason,
		"NAT subnet "+name+" (spec.natSubnetID) has Private Link Service network policies enabled; disable them (privateLinkServiceNetworkPolicies: Disabled).")
}

// notOurs: a service with our deterministic name that hcplink did not
// create for this cluster and management cluster is never adopted,
// changed or deleted.
func notOurs(name, why string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.OwnedByAnotherManagementClusterReason,
		"Private Link Service "+name+" exists but "+why+"; hcplink leaves it alone. Delete or rename it, or remove the cluster from the other management cluster.")
}

// connectionsPending: the service still has private endpoint connections
// (rejected, being deleted); deletion is retried shortly.
func connectionsPending(name string, n int) outcome.Outcome {
	return outcome.Poll(hcplinkv1beta1.DependencyReason, fmt.Sprintf(
		"Deleting: Private Link Service %s still has %d private endpoint connections; they were rejected and are being removed.", name, n), connectionsFirst, connectionsMost)
}

// waitingForControlPlane: deletion waits for the control-plane operator's
// cleanup of the customer side.
func waitingForControlPlane() outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForControlPlaneCleanupReason,
		"Deleting: waiting for the control-plane operator to remove the Private Endpoint and the private DNS zone (finalizer "+
			hcplinkv1beta1.ControlPlaneFinalizer+") before the Private Link Service is deleted.", controlPlaneCleanupPoll)
}

// deleting: a deletion step is under way.
func deleting(what string) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.DeletingReason, "Deleting: "+what+".", operationPoll())
}

// createdMessage is the AzurePLSCreated message of a ready service.
func createdMessage(name string, subs []string) string {
	return fmt.Sprintf("Private Link Service %s is ready; %d subscriptions may connect.", name, len(subs))
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
