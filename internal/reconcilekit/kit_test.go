package reconcilekit

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
)

func TestWithResolvedWords(t *testing.T) {
	o := outcome.Wait("Pending", "Waiting for the endpoint", time.Minute)
	resolved := o
	resolved.Message = "Waiting for the endpoint Next check at 12:00:00 UTC."
	conds := []metav1.Condition{
		{Type: "A", Reason: "Pending", Message: "Waiting for the endpoint"},
		{Type: "B", Reason: "Pending", Message: "Another message"},
		{Type: "C", Reason: "Other", Message: "Waiting for the endpoint"},
	}
	got := WithResolvedWords(conds, o, resolved)
	want := []string{resolved.Message, "Another message", "Waiting for the endpoint"}
	for i := range got {
		if got[i].Message != want[i] {
			t.Errorf("condition %s: message %q, want %q", got[i].Type, got[i].Message, want[i])
		}
	}
}

func TestLogKey(t *testing.T) {
	for kind, want := range map[string]string{
		"AWSEndpointService":      "awsEndpointService",
		"AzurePrivateLinkService": "azurePrivateLinkService",
		"HostedControlPlane":      "hostedControlPlane",
		"GCP":                     "gcp",
	} {
		if got := logKey(kind); got != want {
			t.Errorf("logKey(%q) = %q, want %q", kind, got, want)
		}
	}
}

func TestSpecOrStatusChanged(t *testing.T) {
	alias := func(o client.Object) string {
		return o.(*hcplinkv1beta1.AzurePrivateLinkService).Status.PrivateLinkServiceAlias
	}
	p := SpecOrStatusChanged(func(old, new client.Object) bool { return alias(old) != alias(new) })
	cr := func(generation int64, alias string, deleting bool) *hcplinkv1beta1.AzurePrivateLinkService {
		o := &hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router", Generation: generation}}
		o.Status.PrivateLinkServiceAlias = alias
		if deleting {
			o.DeletionTimestamp = &metav1.Time{Time: time.Now()}
		}
		return o
	}
	for _, tt := range []struct {
		name     string
		old, new client.Object
		want     bool
	}{
		{"a new generation", cr(1, "", false), cr(2, "", false), true},
		{"the watched status field", cr(1, "", false), cr(1, "pls.alias", false), true},
		{"deletion starts", cr(1, "", false), cr(1, "", true), true},
		{"our own status write", cr(1, "a", false), cr(1, "a", false), false},
	} {
		if got := p.Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: tt.new}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDeleting(t *testing.T) {
	for _, tt := range []struct {
		name       string
		o          outcome.Outcome
		wantReason string
	}{
		{"no status", outcome.Outcome{Reason: "Something"}, hcplinkv1beta1.DeletingReason},
		{"an unexpected error keeps its reason", outcome.FromError(errors.New("boom")), hcplinkv1beta1.InternalErrorReason},
		{"a resource still provisioning", outcome.Wait("EndpointPending", "Waiting for the endpoint", time.Second), hcplinkv1beta1.DeletingReason},
		{"a wait that says what to do", outcome.WaitOnPerson("AccessDenied", "Grant the role"), "AccessDenied"},
	} {
		got := Deleting(tt.o, "EndpointPending")
		if got.Status != metav1.ConditionFalse || got.Reason != tt.wantReason {
			t.Errorf("%s: %s/%s, want False/%s", tt.name, got.Status, got.Reason, tt.wantReason)
		}
	}
}

func TestFinisherResult(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "awsendpointservices"}, "private-router", errors.New("changed"))
	cause, write := errors.New("cloud refused"), errors.New("write failed")
	for _, tt := range []struct {
		name          string
		conflictAfter time.Duration
		errs          []error
		want          ctrl.Result
		wantErr       error
	}{
		{"no error requeues after the delay", time.Second, []error{nil, nil}, ctrl.Result{RequeueAfter: time.Minute}, nil},
		{"the first error decides", time.Second, []error{nil, cause, write}, ctrl.Result{}, cause},
		{"a conflict looks again soon", time.Second, []error{conflict, write}, ctrl.Result{RequeueAfter: time.Second}, nil},
		{"a conflict after another error is that error", time.Second, []error{cause, conflict}, ctrl.Result{}, cause},
		{"without ConflictAfter a conflict is an error", 0, []error{conflict}, ctrl.Result{}, conflict},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Finisher{ConflictAfter: tt.conflictAfter}.result(time.Minute, tt.errs...)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("result = %+v, %v; want %+v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// An outcome without a reason (the pass only continues) writes no condition:
// the Writer here has no client, so a write would fail the test.
func TestFinishWritesNoConditionWithoutReason(t *testing.T) {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	f := Finisher{Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, ConflictAfter: time.Second}
	res, err := f.Finish(t.Context(), Target{Object: cr, Conditions: &cr.Status.Conditions}, outcome.Continue())
	if err != nil || res != (ctrl.Result{}) || len(cr.Status.Conditions) != 0 {
		t.Errorf("Finish = %+v, %v with conditions %v; want nothing written", res, err, cr.Status.Conditions)
	}
}

// A pass ended by a finalizer write from a stale copy (a delete path's
// last step) writes no condition — it would say "Unexpected error" about
// a cache race on an object going away — and hands the error to
// QuietWhenStale: the Writer here has no client, so a write would fail
// the test.
func TestFinishWritesNoConditionForAStaleFinalizerWrite(t *testing.T) {
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	stale := &kubepatch.StaleError{Err: errors.New("the finalizers changed")}
	f := Finisher{Type: hcplinkv1beta1.GCPServiceAttachmentAvailableCondition, ConflictAfter: time.Second}
	res, err := f.Finish(t.Context(), Target{Object: cr, Conditions: &cr.Status.Conditions}, outcome.FromError(stale))
	if !kubepatch.IsStale(err) || res != (ctrl.Result{}) || len(cr.Status.Conditions) != 0 {
		t.Errorf("Finish = %+v, %v with conditions %v; want the stale error and nothing written", res, err, cr.Status.Conditions)
	}
}

func TestStatusOf(t *testing.T) {
	changed := StatusOf(func(o, n *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return o.Status.ServiceAttachmentURI != n.Status.ServiceAttachmentURI
	})
	a := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	b := a.DeepCopy()
	b.Status.ServiceAttachmentURI = "projects/p/regions/r/serviceAttachments/s"
	for name, tc := range map[string]struct {
		old, new client.Object
		want     bool
	}{
		"same":         {a, a.DeepCopy(), false},
		"changed":      {a, b, true},
		"another kind": {&hcplinkv1beta1.AzurePrivateLinkService{}, b, false},
	} {
		if got := changed(tc.old, tc.new); got != tc.want {
			t.Errorf("%s: StatusOf = %v, want %v", name, got, tc.want)
		}
	}
}
