package conditions_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/testenv"
)

func TestWritersKeepEachOthersConditions(t *testing.T) {
	env := testenv.Start(t)
	ctx := context.Background()
	obj := &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.NewNamespace(t), Name: "private-router"},
		Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-nlb"},
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	operator := conditions.Writer{Client: env.Client, FieldOwner: "test-operator", Now: now}
	controlPlane := conditions.Writer{Client: env.Client, FieldOwner: "test-control-plane", Now: now}

	apply := func(w conditions.Writer, typ string, status metav1.ConditionStatus, reason string) bool {
		t.Helper()
		wrote, err := w.Apply(ctx, obj, &obj.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason})
		if err != nil {
			t.Fatalf("applying %s: %v", typ, err)
		}
		return wrote
	}
	read := func() *hcplinkv1beta1.AWSEndpointService {
		t.Helper()
		var got hcplinkv1beta1.AWSEndpointService
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &got); err != nil {
			t.Fatal(err)
		}
		return &got
	}

	if !apply(operator, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue, "AWSSuccess") {
		t.Fatal("first apply did not write")
	}
	if !apply(controlPlane, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, "EndpointPending") {
		t.Fatal("second writer's apply did not write")
	}
	got := read()
	for _, typ := range []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AWSEndpointAvailableCondition} {
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		if c == nil {
			t.Fatalf("condition %s is missing: one writer clobbered the other (%+v)", typ, got.Status.Conditions)
		}
		if c.ObservedGeneration != got.Generation {
			t.Errorf("%s observedGeneration = %d, want %d", typ, c.ObservedGeneration, got.Generation)
		}
	}

	if apply(operator, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue, "AWSSuccess") {
		t.Error("re-applying an unchanged condition wrote")
	}
	first := meta.FindStatusCondition(read().Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition).LastTransitionTime

	clock = clock.Add(time.Minute)
	apply(controlPlane, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, "EndpointPendingAcceptance")
	if ltt := meta.FindStatusCondition(read().Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition).LastTransitionTime; !ltt.Equal(&first) {
		t.Errorf("a new reason with the same status moved lastTransitionTime from %v to %v", first, ltt)
	}
	apply(controlPlane, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionTrue, "AWSSuccess")
	if ltt := meta.FindStatusCondition(read().Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition).LastTransitionTime; !ltt.Time.Equal(clock) {
		t.Errorf("a status change set lastTransitionTime %v, want %v", ltt, clock)
	}

	if err := env.Client.Delete(ctx, obj); err != nil {
		t.Fatal(err)
	}
	wrote, err := operator.Apply(ctx, obj, &obj.Status.Conditions, metav1.Condition{Type: "X", Status: metav1.ConditionTrue, Reason: "Gone"})
	if err != nil || wrote {
		t.Fatalf("applying to a deleted object = %v, %v; want no write and no error", wrote, err)
	}
}

// A manager that owns two types and applies them one at a time keeps both:
// server-side apply drops what a manager stops sending.
func TestWriterKeepsItsOwnOtherTypes(t *testing.T) {
	env := testenv.Start(t)
	ctx := context.Background()
	obj := &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.NewNamespace(t), Name: "private-router"},
		Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-nlb"},
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	w := conditions.Writer{Client: env.Client, FieldOwner: "test-two-types", Types: []string{"First", "Second"}}
	for _, typ := range []string{"First", "Second", "First"} {
		if _, err := w.Apply(ctx, obj, &obj.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "R" + typ, Message: typ}); err != nil {
			t.Fatalf("applying %s: %v", typ, err)
		}
	}
	// A change to First after Second was written must keep Second.
	if _, err := w.Apply(ctx, obj, &obj.Status.Conditions, metav1.Condition{Type: "First", Status: metav1.ConditionFalse, Reason: "Changed", Message: "changed"}); err != nil {
		t.Fatal(err)
	}
	var got hcplinkv1beta1.AWSEndpointService
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, "Second"); c == nil || c.Reason != "RSecond" {
		t.Fatalf("Second was dropped or changed when First was written: %+v", got.Status.Conditions)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, "First"); c == nil || c.Reason != "Changed" {
		t.Fatalf("First = %+v, want reason Changed", c)
	}
}
