package gcpprivateserviceconnect

import (
	"context"
	"fmt"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileNormal runs the phases in order: the attachment's URI, the
// endpoint (address, forwarding rule, its connection), the zone and its
// records, the ExternalName Services. At steady state a pass reads two
// things, the zone and the zone's record sets; the forwarding rule too
// when the operator does not report its connection ACCEPTED
// (reported.go).
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) passResult {
	var res passResult
	cr := s.cr
	if cr.Status.ServiceAttachmentURI == "" {
		o := outcome.WaitForEvent(hcplinkv1beta1.WaitingForServiceAttachmentReason,
			"Waiting for the operator to create the service attachment and publish its URI")
		res.endpointOutcome, res.overall = o, o
		return res
	}
	if r.stillReady(cr) {
		return r.stillConverged(ctx, s)
	}
	r.converged.Delete(cr.UID) // proved again only by a Ready pass
	res.ip, res.endpointOutcome = r.reconcileEndpoint(ctx, s)
	if !res.endpointOutcome.Done() {
		res.overall = res.endpointOutcome
		return res
	}
	res.dnsRan = true
	res.dnsOutcome = r.reconcileDNS(ctx, s, res.ip)
	if !res.dnsOutcome.Done() {
		res.overall = res.dnsOutcome
		return res
	}
	if err := reconcilekit.ExternalNames(ctx, r.Client, cr, "GCPPrivateServiceConnect", hcplinkv1beta1.GCPExternalNames(s.hcp), externalNameTarget(s.hcp.Name)); err != nil {
		res.overall = outcome.FromError(fmt.Errorf("writing the ExternalName Services: %w", err))
		return res
	}
	r.proveReady(cr)
	res.overall = r.readyOutcome(cr, res.ip)
	return res
}

func (r *Reconciler) readyOutcome(cr *hcplinkv1beta1.GCPPrivateServiceConnect, ip string) outcome.Outcome {
	return outcome.Ready(hcplinkv1beta1.GCPSuccessReason, fmt.Sprintf(
		"Private Service Connect endpoint %s is accepted at %s; private DNS zone %s resolves api and *.apps to it in the cluster's network",
		cr.Status.EndpointName, ip, cr.Status.DNSZoneName), r.driftInterval())
}

// stillConverged is a pass that an event brought soon after a Ready one
// (the ExternalName Services that pass created, the HostedControlPlane's
// endpoint access) with nothing of the cloud's side changed: only the
// ExternalName Services are kept; the drift check that pass scheduled
// stays the earlier requeue.
func (r *Reconciler) stillConverged(ctx context.Context, s *scope) passResult {
	cr := s.cr
	r.noteReport(cr)
	res := passResult{ip: cr.Status.EndpointIP, dnsRan: true}
	if err := reconcilekit.ExternalNames(ctx, r.Client, cr, "GCPPrivateServiceConnect", hcplinkv1beta1.GCPExternalNames(s.hcp), externalNameTarget(s.hcp.Name)); err != nil {
		res.overall = outcome.FromError(fmt.Errorf("writing the ExternalName Services: %w", err))
		return res
	}
	res.overall = r.readyOutcome(cr, res.ip)
	return res
}
