package gcpprivateserviceconnect

import (
	"slices"
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/events"
)

// The private zone's binding to the cluster's network, removed or moved to
// another network behind hcplink's back, is back within one drift check,
// with an Event; a network someone added to the zone stays bound.
func TestZoneVisibilityDriftIsRepaired(t *testing.T) {
	for _, tc := range []struct {
		name string
		// bound is what the zone is left bound to, besides nothing.
		bound []string
	}{
		{"binding removed", nil},
		{"moved to another network", []string{"projects/" + customerProject + "/global/networks/other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.network(customerProject, "other", "other-workers", "192.168.2.0/24")
			c := w.newCluster("vis", hcplinkv1beta1.GCPEndpointAccessPrivate)
			c.r.Events = events.New(env.EventRecorder(t, "hcplink-control-plane-operator-test"))
			c.until("available", available)
			zoneName := gcpcloud.ZoneName(c.ownerHere().InfraID)
			customer := "projects/" + customerProject + "/global/networks/customer"

			edited := &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{}, ForceSendFields: []string{"Networks"}}
			for _, n := range tc.bound {
				edited.Networks = append(edited.Networks, &dns.ManagedZonePrivateVisibilityConfigNetwork{NetworkUrl: "https://www.googleapis.com/compute/v1/" + n})
			}
			if _, err := w.dns.ManagedZones.Patch(customerProject, zoneName, &dns.ManagedZone{PrivateVisibilityConfig: edited}).Do(); err != nil {
				t.Fatal(err)
			}
			if zone := w.zone(zoneName); gcpcloud.ZoneVisibleTo(zone, customer) {
				t.Fatal("setting up: the zone is still visible to the customer's network")
			}

			w.clock.Advance(DefaultDriftInterval * 115 / 100)
			c.reconcile() // the drift check
			zone := w.zone(zoneName)
			if !gcpcloud.ZoneVisibleTo(zone, customer) {
				t.Fatalf("after one drift check the zone is bound to %v, want the customer's network", boundTo(zone))
			}
			for _, n := range tc.bound {
				if !gcpcloud.ZoneVisibleTo(zone, n) {
					t.Fatalf("the drift check unbound %s, which someone else bound", n)
				}
			}
			if cr := c.get(); !available(cr) {
				t.Fatalf("not available after the repair: %+v", cr.Status.Conditions)
			}
			waitForEvent(t, c.get(), events.ReasonRepaired)
		})
	}
}

func boundTo(zone *dns.ManagedZone) []string {
	var out []string
	if zone.PrivateVisibilityConfig != nil {
		for _, n := range zone.PrivateVisibilityConfig.Networks {
			out = append(out, gcpcloud.RelativeName(n.NetworkUrl))
		}
	}
	return out
}

func (w *world) zone(name string) *dns.ManagedZone {
	w.t.Helper()
	zone, err := w.dns.ManagedZones.Get(customerProject, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return zone
}

// waitForEvent polls the API server, with a deadline, for an Event of
// reason about obj (the broadcaster writes them asynchronously).
func waitForEvent(t *testing.T, obj client.Object, reason string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var list eventsv1.EventList
		if err := env.Client.List(t.Context(), &list, client.InNamespace(obj.GetNamespace())); err != nil {
			t.Fatal(err)
		}
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.UID == obj.GetUID() {
				reasons = append(reasons, e.Reason)
			}
		}
		if slices.Contains(reasons, reason) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Events %v, want one of reason %s", reasons, reason)
		}
		<-tick.C
	}
}
