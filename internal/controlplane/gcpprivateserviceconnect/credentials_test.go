package gcpprivateserviceconnect

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// The credentials check signs in through cloudsim's STS and IAM
// Credentials: the cluster's identity is valid; a service account the
// pool's principal may not impersonate is refused, naming what to fix; no
// identity at all says which fields to set.
func TestCredentialsCheck(t *testing.T) {
	w := newWorld(t)
	stranger, err := w.f.Server.GCP.AddServiceAccount(customerProject, "not-granted", "")
	if err != nil {
		t.Fatal(err)
	}
	hcp := gcpHCP("ns", "creds", hcplinkv1beta1.GCPEndpointAccessPrivate)
	wiSpec := hcp.Spec.Platform.GCP.WorkloadIdentity
	wiSpec.PoolProvider = w.wi.Provider.Name()
	tests := []struct {
		name    string
		account string
		want    metav1.ConditionStatus
		reason  string
		says    string
	}{
		{"the cluster's identity", w.wi.Email, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, ""},
		{"a service account the principal may not impersonate", stranger.Email, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason, gcpcloud.SignInRole},
		{"a pool provider that does not exist", "provider:no-such-provider", metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason, "spec.platform.gcp.workloadIdentity.poolProvider"},
		{"no identity", "", metav1.ConditionFalse, hcplinkv1beta1.IdentityNotConfiguredReason, "spec.platform.gcp.workloadIdentity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiSpec.PoolProvider, wiSpec.ServiceAccountsEmails.ControlPlaneOperator = w.wi.Provider.Name(), hcplinkv1beta1.GCPServiceAccountEmail(tt.account)
			if provider, ok := strings.CutPrefix(tt.account, "provider:"); ok {
				// The cluster's service account, through a provider that is not there.
				wiSpec.PoolProvider = w.wi.Provider.Name()[:strings.LastIndex(w.wi.Provider.Name(), "/")+1] + provider
				wiSpec.ServiceAccountsEmails.ControlPlaneOperator = hcplinkv1beta1.GCPServiceAccountEmail(w.wi.Email)
			}
			checker := &CredentialsChecker{Cloud: w.factory}
			ctx, cancel := context.WithTimeout(w.ctx, 30*time.Second)
			defer cancel()
			cond, _ := checker.Check(ctx, hcp)
			if cond.Status != tt.want || cond.Reason != tt.reason || !strings.Contains(cond.Message, tt.says) {
				t.Fatalf("condition %+v; want %s/%s saying %q", cond, tt.want, tt.reason, tt.says)
			}
			if leakPattern.MatchString(cond.Message) {
				t.Fatalf("message leaks: %q", cond.Message)
			}
		})
	}
}

func TestGCPCredentialsCondition(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want metav1.ConditionStatus
	}{
		{"signed in", nil, metav1.ConditionTrue},
		{"no identity", &MissingIdentityError{Missing: "x"}, metav1.ConditionFalse},
		{"no answer", context.DeadlineExceeded, metav1.ConditionUnknown},
		{"something else", errors.New("boom"), metav1.ConditionUnknown},
	}
	for _, tt := range tests {
		if got := GCPCredentialsCondition(tt.err); got.Status != tt.want || got.Type != hcplinkv1beta1.ValidCloudCredentialsCondition {
			t.Errorf("%s: %+v, want %s", tt.name, got, tt.want)
		}
	}
}

// A deletion whose client cannot be built keeps the finalizer and says
// why (the reference dropped it and leaked everything); once a client can
// be built, the cleanup runs and then the finalizer goes.
func TestDeletionWithoutClientKeepsFinalizer(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("stuck", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	// A control-plane operator without its token file.
	c.r = &Reconciler{Client: env.Client, Cloud: &WIFFactory{}, Tracker: &outcome.Tracker{Now: w.clock.Now}}
	var delays []time.Duration
	for range 3 {
		res := c.reconcile()
		delays = append(delays, res.RequeueAfter)
		w.clock.Advance(res.RequeueAfter)
	}
	cr := c.get()
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Fatal("the finalizer was dropped without cleanup")
	}
	cond := condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.IdentityNotConfiguredReason {
		t.Fatalf("condition %+v", cond)
	}
	if delays[2] <= delays[0] {
		t.Fatalf("delays %v: the rechecks must grow", delays)
	}
	if got := w.customerResources(); len(got) != 3 {
		t.Fatalf("the customer project holds %v; nothing may be lost or half-deleted", got)
	}
	c.r = &Reconciler{Client: env.Client, Cloud: w.factory, Tracker: &outcome.Tracker{Now: w.clock.Now}}
	for i := 0; c.reconcileGone() >= 0; i++ {
		if i > 40 {
			t.Fatal("never finished deleting")
		}
		w.clock.Advance(10 * time.Second)
	}
	if got := w.customerResources(); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}
