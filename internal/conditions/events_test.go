package conditions_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientevents "k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/testenv"
)

// A writer with a recorder tells of transitions, on the real API server,
// and of nothing else: the same condition written again, or with only a
// new message, adds no Event.
func TestWriterRecordsTransitionsOnly(t *testing.T) {
	env := testenv.Start(t)
	ctx := t.Context()
	clientset, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	broadcaster := clientevents.NewBroadcaster(&clientevents.EventSinkImpl{Interface: clientset.EventsV1()})
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broadcaster.Shutdown)
	w := conditions.Writer{Client: env.Client, FieldOwner: "test", Events: events.New(broadcaster.NewRecorder(env.Scheme, "hcplink-test"))}

	obj := &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.NewNamespace(t), Name: "private-router"},
		Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-nlb"},
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	apply := func(status metav1.ConditionStatus, reason, message string) {
		t.Helper()
		cond := metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: status, Reason: reason, Message: message}
		if _, err := w.Apply(ctx, obj, &obj.Status.Conditions, cond); err != nil {
			t.Fatal(err)
		}
	}
	apply(metav1.ConditionUnknown, "Waiting", "Waiting for the service.")                         // first, not False: no event
	apply(metav1.ConditionFalse, "EndpointRejected", "Rejected. Next check at 10:00:00 UTC.")     // event 1
	apply(metav1.ConditionFalse, "EndpointRejected", "Rejected. Next check at 10:02:00 UTC.")     // message only: none
	apply(metav1.ConditionFalse, "EndpointPendingAcceptance", "Pending. Next check at 10:04:00.") // event 2
	apply(metav1.ConditionTrue, "AWSSuccess", "All is well.")                                     // event 3

	want := []string{"EndpointRejected", "EndpointPendingAcceptance", "AWSSuccess"}
	var got []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = reasonsOf(ctx, t, env.Client, obj)
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events by reason = %v, want %v", got, want)
	}
}

func reasonsOf(ctx context.Context, t *testing.T, c client.Client, obj client.Object) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	slices.SortFunc(list.Items, func(a, b eventsv1.Event) int { return a.EventTime.Compare(b.EventTime.Time) })
	for _, e := range list.Items {
		if e.Regarding.UID == obj.GetUID() {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}
