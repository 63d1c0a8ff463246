package azureprivatelink

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/outcome"
)

// passResult is what a pass found, phase by phase.
type passResult struct {
	endpoint endpointView
	// endpointOutcome and dnsOutcome are each phase's; dnsRan is false when
	// the endpoint phase stopped the pass first.
	endpointOutcome, dnsOutcome outcome.Outcome
	dnsRan                      bool
	overall                     outcome.Outcome
}

// conditions are the three conditions the pass asks for.
func (p passResult) conditions(s *scope) []metav1.Condition {
	return conditionsOf(p.endpointOutcome, p.dnsOutcome, p.overall, s.endpointName(), p.endpoint.IP, s.cr.Status.DNSZoneName, p.dnsRan)
}

// reconcileNormal runs the phases in order: the Private Link Service's
// alias, the endpoint, the zone and its link (made while the endpoint
// provisions: they do not need its address), the records, the ExternalName
// Services. A drift check reads the link and lists the records; the
// endpoint is read only when the management side does not report its
// connection Approved.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) passResult {
	var res passResult
	cr := s.cr
	if cr.Status.PrivateLinkServiceAlias == "" {
		o := outcome.WaitForEvent(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
			"Waiting for the operator to create the Private Link Service and publish its alias")
		res.endpointOutcome, res.overall = o, o
		return res
	}
	if r.converged(cr) {
		return r.stillConverged(ctx, s)
	}
	res.endpoint, res.endpointOutcome = r.reconcileEndpoint(ctx, s)
	provisioning := res.endpointOutcome.Reason == hcplinkv1beta1.PrivateEndpointPendingReason
	if !res.endpointOutcome.Done() && !provisioning {
		res.overall = res.endpointOutcome
		return res
	}
	zoneAndLink := r.reconcileZoneAndLink(ctx, s)
	if !zoneAndLink.Done() {
		res.dnsRan, res.dnsOutcome = true, zoneAndLink
	}
	if !res.endpointOutcome.Done() {
		res.overall = res.endpointOutcome
		if !zoneAndLink.Done() && zoneAndLink.After > 0 && zoneAndLink.After < res.overall.After {
			// The zone's or link's operation ends first: look at it then.
			res.overall.After = zoneAndLink.After
		}
		return res
	}
	if !zoneAndLink.Done() {
		res.overall = zoneAndLink
		return res
	}
	res.dnsRan = true
	res.dnsOutcome = r.reconcileRecords(ctx, s, res.endpoint.IP)
	if !res.dnsOutcome.Done() {
		res.overall = res.dnsOutcome
		return res
	}
	if err := s.externalNames(ctx, hcplinkv1beta1.AzureExternalNames(s.hcp)); err != nil {
		res.overall = outcome.FromError(fmt.Errorf("writing the ExternalName Services: %w", err))
		return res
	}
	// The next drift check reads the link again, and the endpoint unless
	// the management side reports its connection Approved.
	r.forgetProof(cr, stepLink)
	r.forgetProof(cr, stepZoneCreated)
	r.forgetProof(cr, stepEndpoint)
	r.prove(cr, stepEndpointApproved, cr.Status.PrivateLinkServiceAlias, "")
	r.prove(cr, stepConverged, convergedInput(cr), "")
	res.overall = r.readyOutcome(s, res.endpoint.IP)
	return res
}

func (r *Reconciler) readyOutcome(s *scope, ip string) outcome.Outcome {
	return outcome.Ready(hcplinkv1beta1.AzureSuccessReason, fmt.Sprintf(
		"Private Endpoint %s is approved at %s; private DNS zone %s resolves api and *.apps to it in the cluster's VNet",
		s.endpointName(), ip, s.cr.Status.DNSZoneName), r.driftInterval())
}

// stillConverged is a pass that an event brought soon after a Ready one,
// with nothing of the cloud's side changed: only the ExternalName Services
// (the HostedControlPlane's topology) are kept; the drift check that pass
// scheduled stays the earlier requeue.
func (r *Reconciler) stillConverged(ctx context.Context, s *scope) passResult {
	cr := s.cr
	res := passResult{endpoint: endpointView{ID: cr.Status.PrivateEndpointID, IP: cr.Status.PrivateEndpointIP}, dnsRan: true}
	res.endpointOutcome, res.dnsOutcome = outcome.Continue(), outcome.Continue()
	if err := s.externalNames(ctx, hcplinkv1beta1.AzureExternalNames(s.hcp)); err != nil {
		res.overall = outcome.FromError(fmt.Errorf("writing the ExternalName Services: %w", err))
		return res
	}
	res.overall = r.readyOutcome(s, cr.Status.PrivateEndpointIP)
	return res
}
