package gcpprivateserviceconnect

import (
	"strconv"
	"strings"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// A Ready pass is remembered, with what it was Ready for, so that the
// passes events bring soon after (the ExternalName Services it created,
// the HostedControlPlane's changes, the operator's first report of the
// endpoint accepted) ask nothing of Google Cloud: the drift check that
// pass scheduled reads the cloud at its time. A report of the endpoint
// that is not that (reportStillReady) reads at once.

type readyProof struct {
	input string
	at    time.Time
	// report is the operator's report of the endpoint then (reportOf).
	report string
}

// readyInput is what a Ready pass proved the path for: the attachment, the
// customer's network and subnet (via the generation), the endpoint and its
// address, the zone.
func readyInput(cr *hcplinkv1beta1.GCPPrivateServiceConnect) string {
	st := cr.Status
	return strings.Join([]string{st.ServiceAttachmentURI, st.EndpointName, st.EndpointIP, st.DNSZoneName,
		strconv.FormatInt(cr.Generation, 10)}, "|")
}

// convergedFor is how long a Ready pass spares later passes their cloud
// reads: less than the shortest jittered drift interval (-15 %), so that
// the drift check it scheduled always reads.
func (r *Reconciler) convergedFor() time.Duration { return r.driftInterval() * 4 / 5 }

func (r *Reconciler) now() time.Time {
	if t := r.outcomes(); t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (r *Reconciler) proveReady(cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	r.converged.Store(cr.UID, readyProof{input: readyInput(cr), at: r.now(), report: r.reportOf(cr)})
}

// stillReady reports whether a Ready pass proved the path for cr's current
// inputs recently enough that this pass need not look at Google Cloud.
func (r *Reconciler) stillReady(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
	v, ok := r.converged.Load(cr.UID)
	if !ok {
		return false
	}
	p := v.(readyProof)
	return p.input == readyInput(cr) && r.now().Sub(p.at) < r.convergedFor() && reportStillReady(p.report, r.reportOf(cr))
}

// noteReport records in the Ready proof a report of the endpoint accepted
// that came after the Ready pass (the operator's first report): a later
// report of none then means the endpoint went, and is read at once.
func (r *Reconciler) noteReport(cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	v, ok := r.converged.Load(cr.UID)
	if !ok {
		return
	}
	if p := v.(readyProof); p.report != reportAccepted && r.reportOf(cr) == reportAccepted {
		p.report = reportAccepted
		r.converged.Store(cr.UID, p)
	}
}
