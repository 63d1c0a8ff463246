package gcpprivateserviceconnect

import (
	"context"
	"path"
	"strings"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// reconcileEndpoint makes the PSC endpoint exist, target the attachment
// the operator published and be accepted, and returns its address. The
// forwarding rule is not read while the operator reports the connection
// this process last read accepted still ACCEPTED (endpointReported);
// otherwise it is read first (except the first time this process makes
// it): while it exists its IPAddress is the address's, so the address is
// read only when the rule must be made.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope) (string, outcome.Outcome) {
	cr := s.cr
	name := gcpcloud.EndpointName(s.owner)
	cr.Status.EndpointName = name
	if o, waiting := r.awaitKept(ctx, s, opRuleDelete, ProvisioningReason, "Waiting for endpoint "+name+" to be deleted before it is made again"); waiting {
		return "", o
	}
	if o, waiting := r.awaitKept(ctx, s, opRuleInsert, ProvisioningReason, "Creating Private Service Connect endpoint "+name); waiting {
		return "", o
	}
	if r.endpointReported(cr) {
		return cr.Status.EndpointIP, outcome.Continue()
	}
	r.accepted.Delete(cr.UID) // proved again only by a read that finds it accepted
	var rule *compute.ForwardingRule
	if _, tried := r.ruleTried.LoadOrStore(cr.UID, struct{}{}); !tried && cr.Status.EndpointIP == "" {
		// Never made (no address in status) and not yet tried by this
		// process: made without a read first; a rule of ours already
		// there (a restart mid-creation) is adopted by the insert.
		var o outcome.Outcome
		if rule, o = r.createRule(ctx, s); !o.Done() {
			return "", o
		}
	} else {
		var err error
		if rule, err = s.cloud.Endpoints.Get(ctx, name); err != nil {
			return "", outcome.FromError(err)
		}
		if rule == nil {
			cr.Status.EndpointIP = ""
			var o outcome.Outcome
			if rule, o = r.createRule(ctx, s); !o.Done() {
				return "", o
			}
		}
	}
	if !s.owner.OwnsLabels(rule.Labels) {
		return "", notOurs("Forwarding rule", name)
	}
	if !sameResource(rule.Target, cr.Status.ServiceAttachmentURI) {
		// The attachment was replaced (a new URI): a forwarding rule's
		// target cannot be changed, so the endpoint is made again.
		return "", r.replaceRule(ctx, s, hcplinkv1beta1.ServiceAttachmentReplacedReason,
			"The service attachment was replaced; endpoint "+name+" is being made again to target the new one")
	}
	if o := ConnectionOutcome(name, rule.PscConnectionStatus); !o.Done() {
		if rule.PscConnectionStatus == gcpcloud.PSCClosed {
			// The producer closed the connection (its attachment went
			// away): only a new endpoint connects again.
			return "", r.replaceRule(ctx, s, o.Reason, o.Message)
		}
		return "", o
	}
	cr.Status.EndpointIP = rule.IPAddress
	r.proveAccepted(cr, rule)
	return rule.IPAddress, outcome.Continue()
}

// createRule reserves the address (or finds ours) and creates the
// forwarding rule targeting the attachment; it returns the rule once
// Compute Engine made it.
func (r *Reconciler) createRule(ctx context.Context, s *scope) (*compute.ForwardingRule, outcome.Outcome) {
	addrLink, o := r.reconcileAddress(ctx, s)
	if !o.Done() {
		return nil, o
	}
	name := gcpcloud.EndpointName(s.owner)
	op, err := s.cloud.Endpoints.Insert(ctx, gcpcloud.EndpointSpec{Owner: s.owner, Network: s.network(), Address: addrLink,
		Target: s.cr.Status.ServiceAttachmentURI})
	if ce, ok := cloud.AsError(err); ok && ce.Class == cloud.ClassNotFound {
		// The attachment is gone; the operator makes it again, usually
		// under the same URI (no event), so it is looked at again, less
		// and less often.
		return nil, outcome.Poll(hcplinkv1beta1.ServiceAttachmentNotFoundReason, "Service attachment "+
			path.Base(s.cr.Status.ServiceAttachmentURI)+" does not exist, so endpoint "+name+
			" cannot be made; waiting for the operator to make it again (see GCPServiceAttachmentAvailable)", attachmentFirstPoll, attachmentMostPoll)
	}
	if isNotOurs(err) {
		return nil, notOurs("Forwarding rule", name)
	}
	if err != nil {
		return nil, outcome.FromError(err)
	}
	if op.IsZero() {
		r.Events.Adopted(s.cr, "Private Service Connect endpoint", name)
	} else {
		r.Events.Created(s.cr, "Private Service Connect endpoint", name)
	}
	done, err := r.await(ctx, s, opRuleInsert, op)
	if err != nil {
		return nil, outcome.FromError(err)
	}
	if !done {
		return nil, outcome.Poll(ProvisioningReason, "Creating Private Service Connect endpoint "+name, r.poll(), mostPoll)
	}
	rule, err := s.cloud.Endpoints.Get(ctx, name)
	if err != nil {
		return nil, outcome.FromError(err)
	}
	if rule == nil {
		return nil, outcome.Poll(ProvisioningReason, "Creating Private Service Connect endpoint "+name, r.poll(), mostPoll)
	}
	return rule, outcome.Continue()
}

// reconcileAddress makes the endpoint's internal address exist in the
// customer's subnet (reserved with this cluster's labels, or ours found
// again after a restart) and returns its link. It runs only when the
// forwarding rule must be made, when the address is almost always
// missing: the first time in this process it is not read first (the
// insert reserves it, or answers that the name is taken, and then the
// provider reads it and adopts it only when it carries our labels), and
// the finished operation's targetLink is its link, so it is not read
// after either. Later passes (the rule still cannot be made) read it.
func (r *Reconciler) reconcileAddress(ctx context.Context, s *scope) (string, outcome.Outcome) {
	name := gcpcloud.EndpointAddressName(s.owner)
	op, reserving := r.kept(s.cr, opAddressReserve)
	if _, known := r.reserved.Load(s.cr.UID); known && !reserving {
		addr, err := s.cloud.Addresses.Get(ctx, name)
		if err != nil {
			return "", outcome.FromError(err)
		}
		if addr != nil {
			if !s.owner.OwnsLabels(addr.Labels) {
				return "", notOurs("Address", name)
			}
			return addr.SelfLink, outcome.Continue()
		}
		r.reserved.Delete(s.cr.UID) // gone behind our back: reserved again
	}
	if !reserving {
		var err error
		op, err = s.cloud.Addresses.Reserve(ctx, s.owner, s.subnetwork())
		if isNotOurs(err) {
			return "", notOurs("Address", name)
		}
		if err != nil {
			return "", outcome.FromError(err)
		}
		if op.IsZero() {
			r.reserved.Store(s.cr.UID, struct{}{})
			return op.Target, outcome.Continue() // ours, made by an earlier pass
		}
	}
	got, done, err := r.awaitOp(ctx, s, opAddressReserve, op)
	if err != nil {
		return "", outcome.FromError(err)
	}
	if !done || got.Target == "" {
		return "", outcome.Poll(ProvisioningReason, "Reserving the endpoint's address "+name, r.poll(), mostPoll)
	}
	r.reserved.Store(s.cr.UID, struct{}{})
	return got.Target, outcome.Continue()
}

// replaceRule deletes our forwarding rule so that the next pass makes it
// again; the outcome keeps reason and message while it goes.
func (r *Reconciler) replaceRule(ctx context.Context, s *scope, reason, message string) outcome.Outcome {
	op, err := s.cloud.Endpoints.Delete(ctx, gcpcloud.EndpointName(s.owner), s.owner)
	if err != nil {
		return outcome.FromError(err)
	}
	s.cr.Status.EndpointIP = ""
	if _, err := r.await(ctx, s, opRuleDelete, op); err != nil {
		return outcome.FromError(err)
	}
	// Looked at again soon: the next pass waits on the deletion, then
	// makes the endpoint again.
	return outcome.Poll(reason, message, r.poll(), mostPoll)
}

// ConnectionOutcome is what an endpoint's pscConnectionStatus means for
// the pass: Continue when the attachment accepted it.
func ConnectionOutcome(name, status string) outcome.Outcome {
	switch strings.ToUpper(status) {
	case gcpcloud.PSCAccepted:
		return outcome.Continue()
	case gcpcloud.PSCRejected:
		return outcome.WaitOnPerson(hcplinkv1beta1.PSCConnectionRejectedReason,
			"The service attachment rejected endpoint "+name+": the cluster's project must be on its consumer accept list, which the operator keeps; see the GCPServiceAttachmentAvailable condition")
	case gcpcloud.PSCClosed:
		return outcome.Poll(hcplinkv1beta1.PSCConnectionClosedReason,
			"The service attachment closed the connection of endpoint "+name+" (the attachment is gone); the endpoint is being made again", operationPoll, mostPoll)
	case gcpcloud.PSCNeedsAttention:
		return outcome.WaitOnPerson(hcplinkv1beta1.PSCConnectionPendingReason,
			"The connection of endpoint "+name+" needs attention on the producer's side: the service attachment may be out of NAT addresses; see the GCPServiceAttachmentAvailable condition")
	}
	// PENDING, or not reported yet: the operator accepts the projects of
	// the accept list, and the change of its report is seen at the next look.
	return outcome.Poll(hcplinkv1beta1.PSCConnectionPendingReason,
		"Waiting for the service attachment to accept the connection of endpoint "+name, operationPoll, mostPoll)
}

func notOurs(what, name string) outcome.Outcome {
	return outcome.WaitOnPerson(NotOursReason,
		what+" "+name+" exists in the cluster's project but was not made by hcplink for this cluster; hcplink leaves it: remove or rename it")
}

// sameResource reports whether two links or relative names name one
// resource.
func sameResource(a, b string) bool {
	return a != "" && gcpcloud.RelativeName(a) == gcpcloud.RelativeName(b)
}
