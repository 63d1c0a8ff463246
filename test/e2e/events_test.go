package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestEventsTellTransitionsNotPasses: the creation of a Private cluster
// tells, as Events on the objects, what each operator created (the
// endpoint service; the security group and the VPC endpoint) and how the
// conditions changed; idle drift passes tell nothing more; deletion tells
// what was deleted. The cluster lives in a customer account of its own, so
// that the account's Route 53 reads count this cluster's drift passes.
func TestEventsTellTransitionsNotPasses(t *testing.T) {
	customer := env.Customers[2]
	c := flCreateClusterIn(t, customer.Network, customer.AWS, "events", "evt")
	c.create(t)
	suite.Eventually(t, e2eutil.LongWait, "the cluster to be Available", func(ctx context.Context) error { return flClusterAvailable(ctx, c.rsCluster) })
	cr := flGetCR(t, c.hcpNS, "private-router")

	created := []string{"Created endpoint service ", "Created security group ", "Created VPC endpoint "}
	suite.Eventually(t, e2eutil.ShortWait, "an Event for each cloud resource created", func(ctx context.Context) error {
		return evHasNotes(evAbout(ctx, t, c.hcpNS, cr), events.ReasonCreated, created)
	})
	suite.Eventually(t, e2eutil.ShortWait, "an Event for the HostedCluster becoming Available", func(ctx context.Context) error {
		for _, e := range evAbout(ctx, t, c.ns, c.hc) {
			if strings.HasPrefix(e.Note, "Available is True") {
				return nil
			}
		}
		var notes []string
		for _, e := range evAbout(ctx, t, c.ns, c.hc) {
			notes = append(notes, e.Reason+": "+e.Note)
		}
		return fmt.Errorf("no Event tells that Available turned True; the Events: %q", notes)
	})

	before := evSnapshot(t, c)
	reads := func() int64 {
		return env.Cloud.Counters.Snapshot()[customer.Network.Account]["route53:ListResourceRecordSets"].Total
	}
	start := reads()
	suite.Eventually(t, 2*rsDriftWait, "two drift passes of the idle cluster", func(context.Context) error {
		if n := reads() - start; n < 2 {
			return fmt.Errorf("%d drift passes so far", n)
		}
		return nil
	})
	if after := evSnapshot(t, c); !slices.Equal(before, after) {
		t.Fatalf("idle drift passes added Events:\nbefore: %q\nafter:  %q", before, after)
	}

	// The control-plane namespace, and the Events in it, go with the
	// cluster: watch them from before the deletion.
	deleted := evWatch(t, c.hcpNS, cr)
	flDeleteCluster(t, c.rsCluster)
	suite.Eventually(t, e2eutil.LongWait, "an Event for each cloud resource deleted", func(context.Context) error {
		return evHasNotes(deleted(), events.ReasonDeleted, []string{"Deleted endpoint service ", "Deleted security group ", "Deleted VPC endpoint "})
	})
	flExpectNothingLeft(t, customer.Network.Account, c.rsCluster)
}

// evWatch collects the Events about obj from now on, until the test ends.
func evWatch(t *testing.T, namespace string, obj client.Object) func() []eventsv1.Event {
	t.Helper()
	clientset, err := kubernetes.NewForConfig(env.Kube)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := clientset.EventsV1().Events(namespace).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watching Events: %v", err)
	}
	var mu sync.Mutex
	var seen []eventsv1.Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			// Added only: the same Event comes again as Modified (a series) and
			// Deleted (with its namespace).
			if e, ok := ev.Object.(*eventsv1.Event); ok && ev.Type == watch.Added && e.Regarding.UID == obj.GetUID() {
				mu.Lock()
				seen = append(seen, *e)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { w.Stop(); cancel(); <-done })
	return func() []eventsv1.Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// evAbout lists the Events about obj, oldest first.
func evAbout(ctx context.Context, t *testing.T, namespace string, obj client.Object) []eventsv1.Event {
	t.Helper()
	var list eventsv1.EventList
	if err := env.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		t.Fatalf("listing Events: %v", err)
	}
	var about []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.UID == obj.GetUID() {
			about = append(about, e)
		}
	}
	slices.SortFunc(about, func(a, b eventsv1.Event) int { return a.EventTime.Compare(b.EventTime.Time) })
	return about
}

// evHasNotes: exactly one Event with reason for each note prefix.
func evHasNotes(list []eventsv1.Event, reason string, prefixes []string) error {
	for _, prefix := range prefixes {
		n := 0
		for _, e := range list {
			if e.Reason == reason && strings.HasPrefix(e.Note, prefix) {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%d %s Events start %q, want 1", n, reason, prefix)
		}
	}
	return nil
}

// evSnapshot: every Event about the cluster's objects, one line each, with
// its series count (a repeated Event becomes a series, not a new object).
func evSnapshot(t *testing.T, c *flCluster) []string {
	t.Helper()
	var lines []string
	for _, ns := range []string{c.ns, c.hcpNS} {
		var list eventsv1.EventList
		if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			t.Fatalf("listing Events: %v", err)
		}
		for _, e := range list.Items {
			if !strings.HasPrefix(e.ReportingController, "hcplink-") {
				continue // the load-balancer stand-in is not an hcplink operator
			}
			count := int32(1)
			if e.Series != nil {
				count = e.Series.Count
			}
			lines = append(lines, fmt.Sprintf("%s/%s %s ×%d: %s", e.Regarding.Kind, e.Regarding.Name, e.Reason, count, e.Note))
		}
	}
	slices.Sort(lines)
	return lines
}
