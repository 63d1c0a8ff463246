package azureprivatelink

import (
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/intervals"
)

// Proofs: what the passes of one convergence already proved (the endpoint
// approved for this alias, the link) is not asked of Azure again by the
// next pass, so a pass that was throttled or waited resumes where it
// stopped instead of reading everything again. A pass that ends Ready
// drops the link's: the next drift check reads the link and lists the
// records. The endpoint's is kept while the management side reports its
// connection Approved (status.privateEndpointConnectionState). Proofs
// expire after the drift interval.

// Steps that are remembered.
const (
	stepEndpoint = "endpoint"
	// stepEndpointApproved: the alias the endpoint was last proved approved
	// for; drift checks trust it while the management side reports the
	// connection Approved.
	stepEndpointApproved = "endpoint-approved"
	// stepEndpointRead: when the endpoint was last read. The management
	// side's report stands in for a read for reportTrust at most: were the
	// operator stopped, its last Approved would stand for ever.
	stepEndpointRead = "endpoint-read"
	stepLink         = "link"
	// stepZoneCreated: this convergence created the zone, so it has no
	// link to read yet.
	stepZoneCreated = "zone-created"
	// stepZoneConflict: a zone of the name that is not ours was found; its
	// rechecks read instead of trying to create.
	stepZoneConflict = "zone-conflict"
	// stepLinkConflict: Azure refused the link because the VNet is linked
	// to another zone of the name; its retries keep that condition.
	stepLinkConflict = "link-conflict"
	// stepConverged: a pass ended Ready for these inputs (convergedInput).
	// A pass that an event brings soon after (the ExternalName Services the
	// pass created, the management side's report of the connection) has
	// nothing to ask Azure; the drift check comes at its time.
	stepConverged = "converged"
)

// defaultReportTrust is how long after the last read of the endpoint the
// operator's report is taken instead (intervals.EndpointReportTrust).
const defaultReportTrust = intervals.EndpointReportTrust

// trustReportFor is defaultReportTrust, or the test's.
func (r *Reconciler) trustReportFor() time.Duration {
	if r.reportTrust > 0 {
		return r.reportTrust
	}
	return defaultReportTrust
}

// readRecently reports whether the endpoint was read for alias less than
// trustReportFor ago.
func (r *Reconciler) readRecently(cr *hcplinkv1beta1.AzurePrivateLinkService, alias string) bool {
	v, ok := r.proofs.Load(proofKey{cr.UID, stepEndpointRead})
	if !ok {
		return false
	}
	p := v.(proof)
	return p.input == alias && r.now().Sub(p.at) < r.trustReportFor()
}

// convergedFor is how long a Ready pass's proof spares later passes their
// cloud reads: less than the shortest jittered drift interval (-15 %), so
// that the drift check it scheduled always reads.
func (r *Reconciler) convergedFor() time.Duration { return r.driftInterval() * 4 / 5 }

// convergedInput is what a Ready pass proved the path for: the service,
// the guest network, the endpoint and its address, the zone, the spec's
// generation, and whether the management side reports the connection
// refused (its Approved report, or none yet, changes nothing).
func convergedInput(cr *hcplinkv1beta1.AzurePrivateLinkService) string {
	st := cr.Status
	return strings.Join([]string{st.PrivateLinkServiceAlias, st.PrivateLinkServiceID, cr.Spec.GuestVNetID, cr.Spec.GuestSubnetID,
		st.PrivateEndpointID, st.PrivateEndpointIP, st.DNSZoneName, st.PrivateDNSZoneID, strconv.FormatInt(cr.Generation, 10),
		strconv.FormatBool(connectionRefused(endpointView{ConnectionStatus: st.PrivateEndpointConnectionState}))}, "|")
}

// converged reports whether a Ready pass proved the path for cr's current
// inputs recently enough that this pass need not look at Azure.
func (r *Reconciler) converged(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
	v, ok := r.proofs.Load(proofKey{cr.UID, stepConverged})
	if !ok {
		return false
	}
	p := v.(proof)
	return p.input == convergedInput(cr) && r.now().Sub(p.at) < r.convergedFor()
}

type proofKey struct {
	uid  types.UID
	step string
}

type proof struct {
	input string // what the step was proved for (alias, zone, VNet, address)
	value string // what it found, when the step has a result to reuse
	at    time.Time
}

// proven returns the value a step was proved with for input, and whether
// it was.
func (r *Reconciler) proven(cr *hcplinkv1beta1.AzurePrivateLinkService, step, input string) (string, bool) {
	v, ok := r.proofs.Load(proofKey{cr.UID, step})
	if !ok {
		return "", false
	}
	p := v.(proof)
	if p.input != input || r.now().Sub(p.at) > r.driftInterval() {
		return "", false
	}
	return p.value, true
}

func (r *Reconciler) prove(cr *hcplinkv1beta1.AzurePrivateLinkService, step, input, value string) {
	r.proofs.Store(proofKey{cr.UID, step}, proof{input: input, value: value, at: r.now()})
}

// forgetProofs drops every proof of cr.
func (r *Reconciler) forgetProofs(cr *hcplinkv1beta1.AzurePrivateLinkService) {
	r.proofs.Range(func(k, _ any) bool {
		if k.(proofKey).uid == cr.UID {
			r.proofs.Delete(k)
		}
		return true
	})
}

// forgetProof drops one step's proof of cr.
func (r *Reconciler) forgetProof(cr *hcplinkv1beta1.AzurePrivateLinkService, step string) {
	r.proofs.Delete(proofKey{cr.UID, step})
}

// provenOnce returns what a step was last proved for, whatever its age.
func (r *Reconciler) provenOnce(cr *hcplinkv1beta1.AzurePrivateLinkService, step string) (input string, ok bool) {
	v, ok := r.proofs.Load(proofKey{cr.UID, step})
	if !ok {
		return "", false
	}
	return v.(proof).input, true
}
