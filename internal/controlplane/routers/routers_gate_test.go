package routers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// TestGateChanged: a status write that opens or closes the creation gate
// (a cloud's settings check, say) brings the HostedControlPlane back; one
// that leaves the gate as it was does not, whatever the cloud.
func TestGateChanged(t *testing.T) {
	const open = "open"
	gate := func(hcp *hcplinkv1beta1.HostedControlPlane) bool { return hcp.Annotations["gate"] == open }
	hcp := func(g string) *hcplinkv1beta1.HostedControlPlane {
		h := baseHCP("ns")
		h.Annotations = map[string]string{"gate": g}
		return h
	}
	tests := []struct {
		name      string
		mayCreate func(*hcplinkv1beta1.HostedControlPlane) bool
		old, new  client.Object
		want      bool
	}{
		{"opens", gate, hcp("held"), hcp(open), true},
		{"closes", gate, hcp(open), hcp("held"), true},
		{"stays open", gate, hcp(open), hcp(open), false},
		{"stays held", gate, hcp("held"), hcp("other"), false},
		{"no gate", nil, hcp("held"), hcp(open), false},
		{"not a HostedControlPlane", gate, &corev1.Service{}, hcp(open), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reconciler{MayCreate: tt.mayCreate}
			if got := r.gateChanged().Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: tt.new}); got != tt.want {
				t.Errorf("gateChanged = %v, want %v", got, tt.want)
			}
		})
	}
}
