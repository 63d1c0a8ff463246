package install

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/operator"
	"github.com/hcplink/hcplink/internal/testenv"
)

// TestOperatorRunsUnderTheRenderedRBAC starts the management operator as
// the ServiceAccount install renders, with exactly its ClusterRole, and
// drives a private AWS cluster until the control-plane operator's
// namespace, ServiceAccount, Role (which the API server lets the operator
// write only if it holds every permission in it), RoleBinding, credentials
// Secret and Deployment exist. Leader election runs too, in install's
// namespace. The identity is applied, and the operator authenticates with
// a token of its ServiceAccount only, as the local environment does it
// (internal/devenv/rbac.go).
func TestOperatorRunsUnderTheRenderedRBAC(t *testing.T) {
	c := kube(t)
	ns := "hcplink-rbac"
	opts := Options{Namespace: ns, PrivatePlatform: operator.PlatformAWS,
		AWS: AWSCredentials{Region: cloudsimtest.Region, RoleARN: "arn:aws:iam::111111111111:role/hcplink-operator"}}
	// Only the identity, as the local environment applies it: the operator
	// runs in this process, not from the Deployment.
	if _, err := Apply(t.Context(), c, opts, ApplyOptions{Kinds: IdentityKinds}); err != nil {
		t.Fatal(err)
	}
	if exists(t, c, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorName}}) {
		t.Error("applying the identity kinds created the Deployment too")
	}
	waitForCRDs(t, c)
	operatorKube := serviceAccountKube(t, c, ns)

	cloud := cloudsimtest.Start(t, cloudsim.Options{})
	awsCfg := cloud.Config(t, cloudsimtest.ManagementAccount)
	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), ctrl.Log.WithName("operator")))
	done := make(chan error, 1)
	go func() {
		done <- operator.Run(ctx, operator.Options{
			RestConfig:                operatorKube,
			PrivatePlatform:           operator.PlatformAWS,
			AWSPrivateRegion:          cloudsimtest.Region,
			AWS:                       &awsCfg,
			ControlPlaneOperatorImage: "registry.example.com/hcplink:test",
			MetricsBindAddress:        "0",
			HealthProbeBindAddress:    "0",
			LeaderElection:            true,
			LeaderElectionNamespace:   ns,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the operator stopped with %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the operator did not stop within 30s of its context ending")
		}
	})

	hc := privateAWSCluster(env.NewNamespace(t), "rbac")
	if err := c.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	cpNS := hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
	name := "control-plane-operator"
	made := []client.Object{
		&hcplinkv1beta1.HostedControlPlane{}, &corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{},
		&corev1.Secret{}, &appsv1.Deployment{},
	}
	keys := []client.ObjectKey{{Namespace: cpNS, Name: hc.Name}, {Namespace: cpNS, Name: name}, {Namespace: cpNS, Name: name},
		{Namespace: cpNS, Name: name}, {Namespace: cpNS, Name: name + "-aws-credentials"}, {Namespace: cpNS, Name: name}}
	testenv.EventuallyWithin(t, settleWithin, "the operator, as its ServiceAccount, to create the control plane's objects", func() (bool, error) {
		for i, obj := range made {
			if err := c.Get(t.Context(), keys[i], obj); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	})
	select {
	case err := <-done:
		t.Fatalf("the operator stopped early: %v", err)
	default:
	}
}
