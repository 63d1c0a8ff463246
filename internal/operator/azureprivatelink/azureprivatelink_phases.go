package azureprivatelink

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// ensureFrontend finds the internal load balancer frontend whose address
// is spec.loadBalancerIP among this management cluster's load balancers
// (one listing of its resource group shared by every object:
// frontendCache), once: later passes reuse it while
// the address stays the same, since a frontend a Private Link Service
// uses cannot be removed and a failed write forgets it. The load
// balancer goes to status.
func (r *Reconciler) ensureFrontend(ctx context.Context, s *scope) outcome.Outcome {
	ip := s.cr.Spec.LoadBalancerIP
	if ip == "" {
		return waitingForIP()
	}
	if fe, ok := r.frontends.Load(s.cr.UID); ok && fe.(Frontend).PrivateIP == ip {
		f := fe.(Frontend)
		s.frontend = &f
		s.status.InternalLoadBalancerID = f.LoadBalancerID
		return outcome.Continue()
	}
	fes, err := r.loadBalancers.lookup(ctx, ip, r.Now, r.DriftInterval*4/5, r.Cloud.InternalFrontends)
	if err != nil {
		return outcome.FromError(err)
	}
	switch len(fes) {
	case 0:
		return frontendNotFound(ip, r.Cloud.LoadBalancers.ResourceGroup)
	case 1:
	default:
		return frontendAmbiguous(ip, fes)
	}
	r.frontends.Store(s.cr.UID, fes[0])
	s.frontend = &fes[0]
	s.status.InternalLoadBalancerID = fes[0].LoadBalancerID
	return outcome.Continue()
}

// ensureNATSubnet checks the NAT subnet spec.natSubnetID names, or gives
// the object one of the NAT subnets this management cluster's services
// share in the load balancer's VNet (natsubnet_shared.go), and records it
// in status. An object recorded on a NAT subnet of its own (what hcplink
// made before subnets were shared) keeps it.
func (r *Reconciler) ensureNATSubnet(ctx context.Context, s *scope) outcome.Outcome {
	if id := s.cr.Spec.NATSubnetID; id != "" {
		if r.listedServiceUses(ctx, s, id) {
			s.status.NATSubnetID = id
			return outcome.Continue()
		}
		subnet, err := r.Cloud.Subnet(ctx, id)
		if err != nil {
			return outcome.FromError(err)
		}
		if subnet == nil {
			return natSubnetNotFound(lastSegment(id))
		}
		if subnet.Properties == nil || deref(subnet.Properties.PrivateLinkServiceNetworkPolicies) != armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled {
			return natSubnetPoliciesOn(lastSegment(id))
		}
		s.status.NATSubnetID = id
		return outcome.Continue()
	}
	if id := s.status.NATSubnetID; id != "" && r.sharedIndex(id) == 0 {
		return r.ensureOwnNATSubnet(ctx, s, id)
	}
	return r.ensureSharedNATSubnet(ctx, s)
}

// ensureOwnNATSubnet keeps the NAT subnet of its own that an object
// created before subnets were shared records: its service's NAT address
// stays where it is, and the subnet goes with the object.
func (r *Reconciler) ensureOwnNATSubnet(ctx context.Context, s *scope, id string) outcome.Outcome {
	name := lastSegment(id)
	known, _ := r.natSubnets.Load(s.cr.UID)
	state, _ := known.(natSubnetState)
	if state.ready == id || r.listedServiceUses(ctx, s, id) {
		return outcome.Continue()
	}
	if !r.vnetTurns.take(vnetOf(id), s.cr.UID, client.ObjectKeyFromObject(s.cr), r.Now()) {
		return natSubnetQueued(name)
	}
	callCtx, retryAfter := azurecloud.CaptureRetryAfter(ctx)
	subnet, token, err := r.Cloud.EnsureNATSubnet(callCtx, s.frontend.SubnetID, name, azurecloud.NATSubnetPrefixLength, state.token, nil)
	if err != nil {
		r.natSubnets.Delete(s.cr.UID)
		r.releaseVNetTurn(s.cr.UID)
		return outcome.FromError(err)
	}
	if token != "" {
		r.natSubnets.Store(s.cr.UID, natSubnetState{token: token})
	} else {
		r.releaseVNetTurn(s.cr.UID)
		if subnet.Properties != nil && provisioning(subnet.Properties.ProvisioningState) == armnetwork.ProvisioningStateSucceeded {
			r.natSubnets.Store(s.cr.UID, natSubnetState{ready: id})
		}
	}
	if subnet.Properties != nil && provisioning(subnet.Properties.ProvisioningState) == armnetwork.ProvisioningStateUpdating {
		return natSubnetCreating(name, retryAfter())
	}
	return outcome.Continue()
}

// natSubnetState is what a Reconciler remembers of an object's own NAT
// subnet between passes: the token of its creation while it runs, then
// the ID once seen provisioned.
type natSubnetState struct{ token, ready string }

// listedServiceUses: the listing shows the cluster's own service
// provisioned on the NAT subnet subnetID, so the subnet exists as the
// service needs it (Azure refuses to delete a subnet a service uses, or to
// turn its policies back on): no read of it is needed.
func (r *Reconciler) listedServiceUses(ctx context.Context, s *scope, subnetID string) bool {
	pls := r.Services.Listed(ctx, azurecloud.ResourceGroupOf(s.frontend.LoadBalancerID), serviceName(s))
	if pls == nil || subnetID == "" || provisioning(pls.Properties.ProvisioningState) != armnetwork.ProvisioningStateSucceeded || r.notOursBecause(pls, s) != "" {
		return false
	}
	got := natSubnetIDs(pls.Properties.IPConfigurations)
	return len(got) == 1 && strings.EqualFold(got[0], subnetID)
}

// hasConnectionFrom: the listing's copy of a service will do only when it
// already shows the connection of the control-plane operator's endpoint
// (a listing older than the endpoint does not).
func hasConnectionFrom(endpointID string) func(*armnetwork.PrivateLinkService) bool {
	return func(pls *armnetwork.PrivateLinkService) bool {
		if endpointID == "" {
			return true
		}
		return slices.ContainsFunc(pls.Properties.PrivateEndpointConnections, func(c *armnetwork.PrivateEndpointConnection) bool {
			return strings.EqualFold(azurecloud.ConnectionEndpointID(c), endpointID)
		})
	}
}

// ensureService makes the Private Link Service what it must be: created
// when absent (again, with a new alias, when it was deleted behind
// hcplink's back), adopted when it exists with our tags (created before a
// lost status write), put back when it drifted. Its ID and alias go to
// status.
func (r *Reconciler) ensureService(ctx context.Context, s *scope) outcome.Outcome {
	log := ctrl.LoggerFrom(ctx)
	want := r.desired(s)
	rg := azurecloud.ResourceGroupOf(s.frontend.LoadBalancerID)
	pls, err := r.Services.Get(ctx, rg, want.Name, hasConnectionFrom(s.cr.Status.PrivateEndpointID))
	if err != nil {
		return outcome.FromError(err)
	}
	if pls == nil {
		s.status.PrivateEndpointConnectionState = ""
		if s.status.PrivateLinkServiceID != "" {
			log.Info("the Private Link Service recorded in status no longer exists; creating another", "privateLinkService", want.Name)
			s.status.PrivateLinkServiceID, s.status.PrivateLinkServiceAlias = "", ""
		}
		o := r.putService(ctx, s, rg, want)
		if s.status.PrivateLinkServiceID != "" {
			r.Events.Created(s.cr, "Private Link Service", want.Name)
		}
		return o
	}
	if why := r.notOursBecause(pls, s); why != "" {
		return notOurs(want.Name, why)
	}
	if s.status.PrivateLinkServiceID == "" {
		log.Info("adopting the Private Link Service tagged for this object", "privateLinkService", want.Name)
		r.Events.Adopted(s.cr, "Private Link Service", want.Name)
	}
	s.status.PrivateLinkServiceID = deref(pls.ID)
	o, gone := serviceStateOutcome(pls)
	if gone {
		s.status.PrivateLinkServiceAlias = ""
	}
	if !o.Done() {
		return o
	}
	if d := drift(pls, want); len(d) > 0 {
		log.Info("the Private Link Service drifted; putting it back", "privateLinkService", want.Name, "differs", d)
		return r.putService(ctx, s, rg, want)
	}
	if o := r.reviewConnections(ctx, s, rg, pls, want); !o.Done() {
		return o
	}
	return r.serviceReady(s, pls, want)
}

// putService creates or updates the service; ready when Azure finished
// within the call, else the next pass reads its state.
func (r *Reconciler) putService(ctx context.Context, s *scope, rg string, want desiredService) outcome.Outcome {
	callCtx, retryAfter := azurecloud.CaptureRetryAfter(ctx)
	pls, err := r.Cloud.PutPrivateLinkService(callCtx, rg, want.Name, want.body())
	r.Services.Invalidate(rg, want.Name)
	if err != nil {
		// The frontend or the NAT subnet may be what Azure refused: look
		// at them again next time.
		r.frontends.Delete(s.cr.UID)
		r.loadBalancers.expire()
		r.natSubnets.Delete(s.cr.UID)
		r.forgetNATSubnet(s.status.NATSubnetID)
		if s.status.PrivateLinkServiceID == "" {
			if o, full := r.loadBalancerFull(ctx, s, rg, want.Name); full {
				return o
			}
		}
		return outcome.FromError(err)
	}
	if id := deref(pls.ID); id != "" {
		s.status.PrivateLinkServiceID = id
	}
	if pls.Properties == nil || provisioning(pls.Properties.ProvisioningState) != armnetwork.ProvisioningStateSucceeded {
		return plsUpdating(want.Name, retryAfter())
	}
	ctrl.LoggerFrom(ctx).Info("wrote the Private Link Service", "privateLinkService", want.Name)
	return r.serviceReady(s, pls, want)
}

// loadBalancerFull: a refused creation is explained when the load balancer
// already carries Azure's limit of Private Link Services (counted on a
// fresh listing, whatever code Azure gave the refusal).
func (r *Reconciler) loadBalancerFull(ctx context.Context, s *scope, rg, name string) (outcome.Outcome, bool) {
	all, err := r.Services.Relisted(ctx, rg)
	if err != nil {
		return outcome.Outcome{}, false
	}
	prefix := strings.ToLower(s.frontend.LoadBalancerID) + "/frontendipconfigurations/"
	n := 0
	for _, pls := range all {
		if strings.EqualFold(deref(pls.Name), name) || pls.Properties == nil {
			continue
		}
		if slices.ContainsFunc(frontendIDs(pls.Properties.LoadBalancerFrontendIPConfigurations), func(id string) bool { return strings.HasPrefix(strings.ToLower(id), prefix) }) {
			n++
		}
	}
	if n < azurecloud.MaxPrivateLinkServicesPerLoadBalancer {
		return outcome.Outcome{}, false
	}
	return loadBalancerFullOutcome(lastSegment(s.frontend.LoadBalancerID), n), true
}

// serviceReady records the alias of a service that matches.
func (r *Reconciler) serviceReady(s *scope, pls *armnetwork.PrivateLinkService, want desiredService) outcome.Outcome {
	if pls.Properties != nil {
		s.status.PrivateLinkServiceAlias = deref(pls.Properties.Alias)
	}
	return outcome.Ready(hcplinkv1beta1.AzureSuccessReason, createdMessage(want.Name, want.Subscriptions), r.DriftInterval)
}

// desired is the service the object asks for. The subscriptions come from
// the HostedCluster itself (the control-plane operator's copy in the spec
// follows later), so that a change reaches the service in the pass the
// HostedCluster's update starts. The location is the
// load balancer's: Azure refuses a service in another region than its
// load balancer, and endpoints in any region may connect to it.
func (r *Reconciler) desired(s *scope) desiredService {
	return desiredService{
		Name:          serviceName(s),
		Location:      s.frontend.Location,
		FrontendID:    s.frontend.ID,
		NATSubnetID:   s.status.NATSubnetID,
		Subscriptions: subscriptions(guestSubscription(s), additionalSubscriptions(s)),
		Tags:          azurecloud.ManagementTags(s.hc.Spec.InfraID, s.cr.Name, r.ManagementClusterID),
	}
}

// guestSubscription is the subscription the control-plane operator makes
// the Private Endpoint in: the cluster's spec.subscriptionID (CEL ties the
// guest VNet and subnet to it).
func guestSubscription(s *scope) string {
	if s.hc != nil && s.hc.Spec.Platform.Azure != nil && s.hc.Spec.Platform.Azure.SubscriptionID != "" {
		return s.hc.Spec.Platform.Azure.SubscriptionID
	}
	return s.cr.Spec.SubscriptionID
}

// reviewConnections settles the service's connections and records the
// state of the cluster's own: a Pending connection from an allowed
// subscription is approved (Azure approves automatically only when the
// endpoint is made, so one made before its subscription was allowed
// would wait for ever), a Pending one from any other subscription is
// rejected and reported. Approved and Rejected ones are left as they are.
func (r *Reconciler) reviewConnections(ctx context.Context, s *scope, rg string, pls *armnetwork.PrivateLinkService, want desiredService) outcome.Outcome {
	s.status.PrivateEndpointConnectionState = ""
	if pls.Properties == nil {
		return outcome.Continue()
	}
	for _, c := range pls.Properties.PrivateEndpointConnections {
		endpoint := azurecloud.ConnectionEndpointID(c)
		state := azurecloud.ConnectionStatus(c.Properties)
		if state == azurecloud.ConnectionPending {
			if slices.Contains(want.Subscriptions, strings.ToLower(azurecloud.SubscriptionOf(endpoint))) {
				r.Services.Invalidate(rg, want.Name)
				if err := r.Cloud.ApproveConnection(ctx, rg, want.Name, c); err != nil {
					return outcome.FromError(err)
				}
				ctrl.LoggerFrom(ctx).Info("approved a pending connection from an allowed subscription", "privateLinkService", want.Name, "connection", deref(c.Name))
				state = azurecloud.ConnectionApproved
			} else {
				r.Services.Invalidate(rg, want.Name)
				if err := r.Cloud.RejectConnection(ctx, rg, want.Name, c, "the endpoint's subscription is not allowed"); err != nil {
					return outcome.FromError(err)
				}
				ctrl.LoggerFrom(ctx).Info("rejected a pending connection from a subscription that is not allowed", "privateLinkService", want.Name, "connection", deref(c.Name))
				r.Events.Warning(s.cr, hcplinkv1beta1.ConnectionNotAllowedReason, "RejectPrivateEndpointConnection", fmt.Sprintf(
					"Private Link Service %s: rejected private endpoint %s, whose subscription is not allowed; add it to additionalAllowedSubscriptions and connect again to let it in.", want.Name, lastSegment(endpoint)))
				state = azurecloud.ConnectionRejected
			}
		}
		if endpoint != "" && strings.EqualFold(endpoint, s.cr.Status.PrivateEndpointID) {
			s.status.PrivateEndpointConnectionState = state
		}
	}
	return outcome.Continue()
}

func additionalSubscriptions(s *scope) []string {
	if s.hc != nil {
		if a := s.hc.Spec.Platform.Azure; a != nil && a.Private != nil {
			if a.Private.PrivateLink == nil {
				return nil
			}
			return a.Private.PrivateLink.AdditionalAllowedSubscriptions
		}
	}
	return s.cr.Spec.AdditionalAllowedSubscriptions
}

// serviceName is the service's name: the one recorded in status, else
// pls-<clusterID>.
func serviceName(s *scope) string {
	if id := s.status.PrivateLinkServiceID; id != "" {
		return lastSegment(id)
	}
	if s.hc == nil {
		return ""
	}
	return ServiceNameOf(s.hc)
}

// ServiceNameOf is the name of the cluster's Private Link Service,
// pls-<clusterID>.
func ServiceNameOf(hc *hcplinkv1beta1.HostedCluster) string {
	return azurecloud.PrivateLinkServiceName(clusterID(hc))
}

// clusterID names the cluster's Azure resources: spec.clusterID, else the
// infrastructure ID.
func clusterID(hc *hcplinkv1beta1.HostedCluster) string {
	if hc.Spec.ClusterID != "" {
		return strings.ToLower(hc.Spec.ClusterID)
	}
	return hc.Spec.InfraID
}

// notOursBecause says why a service with our name is not this object's
// ("" when it is): tagged for another object or cluster, or for another
// management cluster. A service without the management cluster's tag is
// adopted (the tag is put on it).
func (r *Reconciler) notOursBecause(pls *armnetwork.PrivateLinkService, s *scope) string {
	infraID := ""
	if s.hc != nil {
		infraID = s.hc.Spec.InfraID
	}
	if !tagIs(pls.Tags, azurecloud.PrivateLinkServiceTagKey, s.cr.Name) ||
		(infraID != "" && !tagIs(pls.Tags, azurecloud.ClusterTagKey(infraID), azurecloud.ClusterTagValueOwned)) {
		return "it is not tagged for this cluster"
	}
	if m := tagValue(pls.Tags, azurecloud.ManagementClusterTagKey); m != "" && r.ManagementClusterID != "" && m != r.ManagementClusterID {
		return "it is tagged for another management cluster"
	}
	return ""
}

func tagIs(tags map[string]*string, key, value string) bool { return tagValue(tags, key) == value }

// tagValue reads a tag; Azure tag names are case-insensitive.
func tagValue(tags map[string]*string, key string) string {
	for k, v := range tags {
		if strings.EqualFold(k, key) {
			return deref(v)
		}
	}
	return ""
}
