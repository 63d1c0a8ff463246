package azureprivatelink

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
)

// TestCredentialsCheck asks cloudsim's Entra ID for tokens through
// azidentity: a working identity is True, a refused one False with a clean
// message (the escape hatch may then give up the cleanup), and an
// authority that does not answer is Unknown.
func TestCredentialsCheck(t *testing.T) {
	w := newWorld(t)
	good := w.f.AzureServicePrincipal(t, "cpo")
	bad := good
	bad.ClientSecret = "not-the-secret"
	for _, tt := range []struct {
		name       string
		factory    *ARMFactory
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		{"valid", &ARMFactory{Credential: w.f.AzureCredential(t, good), Options: w.f.AzureClientOptions()}, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason},
		{"refused", &ARMFactory{Credential: w.f.AzureCredential(t, bad), Options: w.f.AzureClientOptions()}, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.NewNamespace(t)
			hcp := azureHCP(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
			if err := env.Client.Create(w.ctx, hcp); err != nil {
				t.Fatal(err)
			}
			r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{Cloud: tt.factory}}
			res, err := r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)})
			if err != nil {
				t.Fatal(err)
			}
			if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(hcp), hcp); err != nil {
				t.Fatal(err)
			}
			got := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
			if got == nil || got.Status != tt.wantStatus || got.Reason != tt.wantReason || got.ObservedGeneration != hcp.Generation {
				t.Fatalf("condition %+v", got)
			}
			if leakPattern.MatchString(got.Message) {
				t.Errorf("message leaks: %q", got.Message)
			}
			if res.RequeueAfter < 30*time.Second {
				t.Errorf("recheck after %v", res.RequeueAfter)
			}
		})
	}
	if c := AzureCredentialsCondition(errors.New("dial tcp: connection refused")); c.Status != metav1.ConditionUnknown || c.Reason != hcplinkv1beta1.CredentialCheckFailedReason {
		t.Errorf("unreachable authority: %+v", c)
	}
}

// TestNoIdentityIsACondition: a control-plane operator without an Azure
// identity says so in the condition instead of failing silently.
func TestNoIdentityIsACondition(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, nil)
	c.r.Cloud = &ARMFactory{}
	_, err := c.r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)})
	if err == nil {
		t.Fatal("no error for controller-runtime's backoff")
	}
	got := condition(c.get(), hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
	if got.Status != metav1.ConditionUnknown || got.Reason != hcplinkv1beta1.InternalErrorReason || !strings.Contains(got.Message, "no Azure identity") {
		t.Errorf("condition %+v", got)
	}
}
