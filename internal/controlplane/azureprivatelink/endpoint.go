package azureprivatelink

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Names of the long-running operations whose resume tokens are kept.
const (
	opEndpointCreate = "endpoint-create"
	opEndpointDelete = "endpoint-delete"
	opZoneCreate     = "zone-create"
	opZoneDelete     = "zone-delete"
	opLinkCreate     = "link-create"
	opLinkDelete     = "link-delete"
)

// viewOf reads what the controller needs of a Private Endpoint.
func viewOf(ep *armnetwork.PrivateEndpoint) endpointView {
	v := endpointView{ID: deref(ep.ID)}
	if ep.Properties != nil && ep.Properties.ProvisioningState != nil {
		v.ProvisioningState = string(*ep.Properties.ProvisioningState)
	}
	v.ConnectionStatus, v.ServiceRef = azurecloud.EndpointConnectionStatus(ep)
	return v
}

// Replaced reports whether the endpoint must be replaced: it connects to
// another service than the Private Link Service (which was recreated: new
// alias), or Azure failed it. ARM may report the connection's service by
// the alias it was created with or by the service's resource ID
// (serviceID, status.privateLinkServiceID); either is the same service. A
// resource ID that cannot be compared (serviceID unknown) replaces nothing:
// a recreated service shows as a Disconnected connection instead.
func Replaced(v endpointView, alias, serviceID string) bool {
	if strings.EqualFold(v.ProvisioningState, "Failed") {
		return true
	}
	if strings.EqualFold(v.ServiceRef, alias) || (serviceID != "" && strings.EqualFold(v.ServiceRef, serviceID)) {
		return false
	}
	return serviceID != "" || !strings.HasPrefix(strings.ToLower(v.ServiceRef), "/subscriptions/")
}

// desiredEndpoint is the Private Endpoint in the guest subnet with a manual
// connection to the Private Link Service's alias (the operator's
// auto-approval list approves it), tagged as the cluster's.
func desiredEndpoint(s *scope) armnetwork.PrivateEndpoint {
	return azurecloud.PrivateEndpointBody(azurecloud.PrivateEndpointSpec{Location: s.cr.Spec.Location, SubnetID: s.cr.Spec.GuestSubnetID,
		Service: s.cr.Status.PrivateLinkServiceAlias, Tags: azurecloud.OwnershipTags(s.infraID, s.cr.Name)})
}

// reconcileEndpoint makes the Private Endpoint exist, connected to the
// current alias, and returns it with its address once it is approved.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope) (endpointView, outcome.Outcome) {
	cr, name, rg := s.cr, s.endpointName(), s.cr.Spec.ResourceGroupName
	if r.endpointKnown(cr) {
		return endpointView{ID: cr.Status.PrivateEndpointID, IP: cr.Status.PrivateEndpointIP}, outcome.Continue()
	}
	if tok := r.token(cr, opEndpointDelete); tok != "" {
		// A replacement's delete in flight finishes first.
		next, err := s.endpoints.Delete(ctx, rg, name, tok)
		if err != nil {
			return endpointView{}, outcome.FromError(fmt.Errorf("replacing the Private Endpoint: %w", err))
		}
		r.keepToken(cr, opEndpointDelete, next)
		if next != "" {
			return endpointView{}, r.replacingOutcome(name)
		}
	}
	// An endpoint the status does not name was never seen (or was
	// replaced): it is created without a read first, and a creation in
	// flight is followed by its operation alone.
	var ep *armnetwork.PrivateEndpoint
	var err error
	if cr.Status.PrivateEndpointID != "" && r.token(cr, opEndpointCreate) == "" {
		if ep, err = s.endpoints.Get(ctx, rg, name); err != nil {
			return endpointView{}, outcome.FromError(err)
		}
	}
	if ep == nil {
		// A new endpoint (same name, same ID) gets a new address.
		cr.Status.PrivateEndpointIP = ""
		callCtx, retryAfter := capturing(ctx)
		if ep, err = r.createEndpoint(callCtx, s, name); err != nil || ep == nil {
			if err != nil {
				return endpointView{}, CreateEndpointOutcome(name, err)
			}
			return endpointView{}, r.operationPoll(hcplinkv1beta1.PrivateEndpointPendingReason, "Creating Private Endpoint "+name, retryAfter())
		}
	}
	v := viewOf(ep)
	if !strings.EqualFold(v.ProvisioningState, "Deleting") && Replaced(v, cr.Status.PrivateLinkServiceAlias, cr.Status.PrivateLinkServiceID) {
		return endpointView{}, r.startReplacement(ctx, s, name, replacedMessages)
	}
	if connectionRefused(v) && r.replacementDue(cr) {
		return endpointView{}, r.startReplacement(ctx, s, name, refusedMessages(v.ConnectionStatus))
	}
	known := cr.Status.PrivateEndpointID == v.ID && cr.Status.PrivateEndpointIP != ""
	cr.Status.PrivateEndpointID = v.ID
	switch {
	case known:
		// An endpoint keeps its address for life: a drift check need not
		// read its network interface again.
		v.IP = cr.Status.PrivateEndpointIP
	case strings.EqualFold(v.ProvisioningState, "Succeeded") && strings.EqualFold(v.ConnectionStatus, connectionApproved):
		if v.IP, err = s.endpoints.IP(ctx, ep); err != nil {
			return endpointView{}, outcome.FromError(err)
		}
	}
	if o := EndpointOutcome(name, v); !o.Done() {
		return v, o
	}
	cr.Status.PrivateEndpointIP = v.IP
	r.prove(cr, stepEndpoint, cr.Status.PrivateLinkServiceAlias, "")
	r.prove(cr, stepEndpointRead, cr.Status.PrivateLinkServiceAlias, "")
	r.rejections.Delete(cr.UID)
	return v, outcome.Continue()
}

// endpointKnown reports whether the endpoint need not be read this pass:
// no operation of it is in flight, and it was proved approved at its
// address for the current alias, either within this convergence or before
// (less than trustReportFor ago) while the management side, which lists
// the service's connections every drift interval, reports its connection
// Approved.
func (r *Reconciler) endpointKnown(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
	st, alias := cr.Status, cr.Status.PrivateLinkServiceAlias
	if st.PrivateEndpointIP == "" || st.PrivateEndpointID == "" || r.token(cr, opEndpointCreate) != "" || r.token(cr, opEndpointDelete) != "" {
		return false
	}
	if _, ok := r.proven(cr, stepEndpoint, alias); ok {
		return true
	}
	provedFor, ok := r.provenOnce(cr, stepEndpointApproved)
	return ok && provedFor == alias && strings.EqualFold(st.PrivateEndpointConnectionState, connectionApproved) && r.readRecently(cr, alias)
}

// CodeInvalidPrivateLinkServiceID is what ARM answers for a while after a
// Private Link Service is created, before its alias is known everywhere
// (terraform-provider-azurerm retries it: hashicorp/terraform-provider-azurerm#16315, #32095;
// Azure/azure-rest-api-specs#20289).
const CodeInvalidPrivateLinkServiceID = "InvalidPrivateLinkServiceId"

// CreateEndpointOutcome is the outcome of a failed create of the endpoint
// named name: a service not yet known is retried briefly, as Azure's
// propagation takes seconds; anything else by its class.
func CreateEndpointOutcome(name string, err error) outcome.Outcome {
	if azurecloud.ErrorCode(err) == CodeInvalidPrivateLinkServiceID {
		return outcome.Poll(hcplinkv1beta1.PrivateEndpointPendingReason,
			"Azure does not know the Private Link Service yet (it was just created); creating Private Endpoint "+name+" again shortly", pendingFirstPoll, unknownServiceMostPoll)
	}
	return outcome.FromError(err)
}

// createEndpoint starts (or resumes) the endpoint's creation; nil while it
// runs.
func (r *Reconciler) createEndpoint(ctx context.Context, s *scope, name string) (*armnetwork.PrivateEndpoint, error) {
	resuming := r.token(s.cr, opEndpointCreate) != ""
	ep, next, err := s.endpoints.CreateOrUpdate(ctx, s.cr.Spec.ResourceGroupName, name, desiredEndpoint(s), r.token(s.cr, opEndpointCreate))
	if err != nil {
		r.keepToken(s.cr, opEndpointCreate, "")
		return nil, err
	}
	if !resuming {
		r.Events.Created(s.cr, "Private Endpoint", name)
	}
	r.keepToken(s.cr, opEndpointCreate, next)
	return ep, nil
}

// replacementMessages say why an endpoint is replaced: while its delete
// runs, and once it is gone.
type replacementMessages struct{ deleting, deleted string }

var replacedMessages = replacementMessages{
	deleting: "The Private Link Service was recreated; Private Endpoint %s is being replaced",
	deleted:  "The Private Link Service was recreated; Private Endpoint %s was deleted and is being created again",
}

func refusedMessages(status string) replacementMessages {
	why := "The Private Link Service " + strings.ToLower(status) + " the connection of Private Endpoint %s"
	return replacementMessages{
		deleting: why + "; it is being replaced by a new endpoint, which the service approves if it allows the cluster's subscription",
		deleted:  why + "; it was deleted and a new endpoint is being created, which the service approves if it allows the cluster's subscription",
	}
}

// startReplacement deletes an endpoint that can no longer work (its
// service is gone or failed, or refused it): its address and records go
// stale, and a new endpoint is created once it is gone.
func (r *Reconciler) startReplacement(ctx context.Context, s *scope, name string, m replacementMessages) outcome.Outcome {
	next, err := s.endpoints.Delete(ctx, s.cr.Spec.ResourceGroupName, name, "")
	if err != nil {
		return outcome.FromError(fmt.Errorf("replacing the Private Endpoint: %w", err))
	}
	r.keepToken(s.cr, opEndpointDelete, next)
	s.cr.Status.PrivateEndpointID, s.cr.Status.PrivateEndpointIP = "", ""
	if next == "" {
		return outcome.Wait(hcplinkv1beta1.PrivateLinkServiceReplacedReason, fmt.Sprintf(m.deleted, name), r.poll())
	}
	return outcome.Poll(hcplinkv1beta1.PrivateLinkServiceReplacedReason, fmt.Sprintf(m.deleting, name), r.poll(), pendingMostPoll)
}

func (r *Reconciler) replacingOutcome(name string) outcome.Outcome {
	return outcome.Poll(hcplinkv1beta1.PrivateLinkServiceReplacedReason,
		"Private Endpoint "+name+" is being replaced", r.poll(), pendingMostPoll)
}

// connectionRefused reports whether the service rejected the endpoint's
// connection or dropped it (Disconnected).
func connectionRefused(v endpointView) bool {
	return strings.EqualFold(v.ConnectionStatus, connectionRejected) || strings.EqualFold(v.ConnectionStatus, connectionDisconnected)
}

// A rejected or disconnected connection is final on Azure: the service's
// owner cannot approve it again, so only a new endpoint can work. A
// customer who fixes the service's allowed subscriptions expects the path
// to come back without deleting anything, so the endpoint is replaced, but
// paced: first after rejectedFirstReplace, then twice as long each time it
// is refused again, up to rejectedMostReplace (never a hot loop; a new
// endpoint from a subscription still not allowed waits Pending, not
// Rejected).
const (
	rejectedFirstReplace = 2 * time.Minute
	rejectedMostReplace  = 30 * time.Minute
)

type rejection struct {
	replaced int
	due      time.Time
}

// replacementDue reports whether the refused endpoint of cr is to be
// replaced now; the first refusal seen only starts the clock.
func (r *Reconciler) replacementDue(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
	now := r.now()
	v, seen := r.rejections.Load(cr.UID)
	if !seen {
		r.rejections.Store(cr.UID, rejection{due: now.Add(rejectedFirstReplace)})
		return false
	}
	rj := v.(rejection)
	if now.Before(rj.due) {
		return false
	}
	rj.replaced++
	rj.due = now.Add(min(rejectedFirstReplace<<rj.replaced, rejectedMostReplace))
	r.rejections.Store(cr.UID, rj)
	return true
}
