package gcpprivateserviceconnect

import (
	"strconv"
	"time"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/intervals"
)

// The operator reads the fleet's service attachments once per drift
// interval and reports, in status.endpointConnection, the connection of
// this cluster's endpoint as its attachment shows it. While that report
// names the very connection this process last read accepted (same
// forwarding rule, same connection ID: an endpoint deleted and made again
// has a new one) and says ACCEPTED, a drift pass need not read the
// endpoint. Any other report — none, another status, another connection —
// and the first pass of this process read it; a change of the report
// wakes the controller (SetupWithManager), so an endpoint deleted or
// rejected behind our back is repaired once the operator's listing shows
// it. The report stands in for a read for defaultReportTrust at most: were the
// operator stopped, its last report would say ACCEPTED for ever, so the
// endpoint is read again that long after the last read.

// defaultReportTrust is how long after the last read of the endpoint the
// operator's report is taken instead (intervals.EndpointReportTrust).
const defaultReportTrust = intervals.EndpointReportTrust

// acceptedEndpoint is what a read of the endpoint proved: the connection
// accepted, for this attachment, address and spec.
type acceptedEndpoint struct {
	rule, connectionID, attachmentURI, ip string
	generation                            int64
	readAt                                time.Time
}

// proveAccepted remembers rule, just read accepted, as cr's endpoint.
func (r *Reconciler) proveAccepted(cr *hcplinkv1beta1.GCPPrivateServiceConnect, rule *compute.ForwardingRule) {
	if rule.PscConnectionId == 0 {
		return // nothing to match a report against
	}
	r.accepted.Store(cr.UID, acceptedEndpoint{rule: endpointRelativeName(cr), connectionID: strconv.FormatUint(rule.PscConnectionId, 10),
		attachmentURI: cr.Status.ServiceAttachmentURI, ip: rule.IPAddress, generation: cr.Generation, readAt: r.now()})
}

// endpointReported reports whether the endpoint need not be read this
// pass: it was read accepted for cr's current attachment, address and
// spec less than trustReportFor ago, and the operator reports that same
// connection ACCEPTED.
func (r *Reconciler) endpointReported(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
	v, ok := r.accepted.Load(cr.UID)
	if !ok {
		return false
	}
	p := v.(acceptedEndpoint)
	return p.attachmentURI == cr.Status.ServiceAttachmentURI && p.ip != "" && p.ip == cr.Status.EndpointIP &&
		p.generation == cr.Generation && r.now().Sub(p.readAt) < r.trustReportFor() && reportIs(cr.Status.EndpointConnection, p, gcpcloud.PSCAccepted)
}

// reportIs reports whether the operator's report names p's connection
// with status.
func reportIs(c *hcplinkv1beta1.GCPEndpointConnection, p acceptedEndpoint, status string) bool {
	return c != nil && c.ForwardingRule == p.rule && c.PSCConnectionID == p.connectionID && c.Status == status
}

// The operator's report as a Ready pass's proof sees it.
const (
	reportNone     = ""
	reportAccepted = "accepted" // the endpoint this process read accepted, ACCEPTED
	reportOther    = "other"    // anything else: the endpoint is to be read
)

// reportOf sums up the operator's report of cr's endpoint.
func (r *Reconciler) reportOf(cr *hcplinkv1beta1.GCPPrivateServiceConnect) string {
	if cr.Status.EndpointConnection == nil {
		return reportNone
	}
	if v, ok := r.accepted.Load(cr.UID); ok && reportIs(cr.Status.EndpointConnection, v.(acceptedEndpoint), gcpcloud.PSCAccepted) {
		return reportAccepted
	}
	return reportOther
}

// reportStillReady reports whether the operator's report, now, leaves a
// Ready pass's proof standing: its first report of the accepted endpoint
// changes nothing; a report of anything else, or none where it reported
// the endpoint accepted (deleted behind our back), means the endpoint is
// read.
func reportStillReady(atReady, now string) bool {
	return now != reportOther && (now == reportAccepted || atReady != reportAccepted)
}

// endpointRelativeName is cr's endpoint as the operator's report names it.
func endpointRelativeName(cr *hcplinkv1beta1.GCPPrivateServiceConnect) string {
	return gcpcloud.EndpointRelativeName(cr.Spec.Project, cr.Spec.Region, cr.Status.EndpointName)
}

// trustReportFor is how long a read of the endpoint lets the operator's
// report stand in for the next reads.
func (r *Reconciler) trustReportFor() time.Duration {
	if r.reportTrust > 0 {
		return r.reportTrust
	}
	return defaultReportTrust
}
