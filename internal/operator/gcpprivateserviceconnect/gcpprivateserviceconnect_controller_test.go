package gcpprivateserviceconnect

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// A private cluster gets one service attachment in front of the router's
// rule of this management network: manual acceptance of the cluster's
// project, a NAT subnetwork of the pool, this management cluster's marker;
// status names it for the control-plane operator.
func TestHappyPath(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	passes := w.settle(r, c.cr)

	name := c.cr.Status.ServiceAttachmentName
	sa := w.attachment(name)
	if sa == nil {
		t.Fatalf("no attachment %q; attachments: %v", name, w.attachments())
	}
	owner := gcpcloud.Owner{ManagementCluster: managerID, InfraID: c.hc.Spec.InfraID, Name: c.cr.Name}
	if name != gcpcloud.ServiceAttachmentName(owner) {
		t.Errorf("attachment %s, want %s", name, gcpcloud.ServiceAttachmentName(owner))
	}
	if got, ok := gcpcloud.OwnerFromDescription(sa.Description); !ok || got != owner {
		t.Errorf("marker %+v (%v), want %+v", got, ok, owner)
	}
	if sa.ConnectionPreference != gcpcloud.ConnectionPreferenceManual || !gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: customerProject}}) {
		t.Errorf("attachment accepts %s %+v, want ACCEPT_MANUAL of %s", sa.ConnectionPreference, gcpcloud.ConsumersOf(sa), customerProject)
	}
	if gcpcloud.RelativeName(sa.TargetService) != gcpcloud.RelativeName(w.router.SelfLink) {
		t.Errorf("attachment targets %s, want this management network's router %s", sa.TargetService, w.router.SelfLink)
	}
	if got := lastSegments(sa.NatSubnets); !slices.Equal(got, []string{"psc-nat-a"}) {
		t.Errorf("NAT subnetworks %v, want [psc-nat-a]", got)
	}
	st := c.cr.Status
	if st.ServiceAttachmentURI != "projects/"+mgmtProject+"/regions/"+region+"/serviceAttachments/"+name ||
		st.ForwardingRuleName != "router" || !slices.Equal(st.NATSubnets, []string{"psc-nat-a"}) {
		t.Errorf("status %+v", st)
	}
	cond := condition(t, c.cr)
	if cond.Reason != hcplinkv1beta1.GCPSuccessReason || !strings.Contains(cond.Message, name) {
		t.Errorf("condition %+v", cond)
	}
	if !controllerutil.ContainsFinalizer(c.cr, hcplinkv1beta1.OperatorFinalizer) {
		t.Error("no finalizer")
	}
	if inserts, patches := w.calls("serviceAttachments.insert").Total, w.calls("serviceAttachments.patch").Total; inserts != 1 || patches != 0 {
		t.Errorf("%d inserts and %d patches, want one insert made right at once", inserts, patches)
	}
	t.Logf("ready after %d passes, %d Compute Engine calls (%+v)", passes, w.calls("").Total, w.f.Calls(mgmtProject))
}
