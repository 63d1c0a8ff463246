package gcpprivateserviceconnect

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// TestSetupWiring runs what Setup registers in a manager: the private
// router's internal address reaches a new CR, the operator's attachment
// URI brings the path up, the credentials check reports the identity
// valid, PublicAndPrivate ↔ Private moves the ExternalName Services, and
// the Service's removal deletes the CR, whose cleanup leaves nothing in the
// customer's project.
func TestSetupWiring(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	w := newWorld(t)
	ns := env.NewNamespace(t)
	hcp := gcpHCP(ns, "wired", hcplinkv1beta1.GCPEndpointAccessPrivate)
	hcp.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = w.wi.Provider.Name()
	hcp.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = hcplinkv1beta1.GCPServiceAccountEmail(w.wi.Email)
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Operations are quick on cloudsim's clock, which the test moves fast.
	if err := Setup(mgr, SetupOptions{Cloud: w.factory, OperationPoll: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.PrivateRouterServiceName, Namespace: ns,
		Annotations: map[string]string{LoadBalancerTypeAnnotation: LoadBalancerTypeInternal}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: routerIP}}
	if err := env.Client.Status().Update(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}
	get := func() *hcplinkv1beta1.GCPPrivateServiceConnect {
		cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
		if err := env.Client.Get(w.ctx, key, cr); err != nil {
			return nil
		}
		return cr
	}
	eventually(t, "the observer creates the CR and the controller waits for the attachment", func() bool {
		cr := get()
		return cr != nil && condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition).Reason == hcplinkv1beta1.WaitingForServiceAttachmentReason
	})
	// The operator's part: the attachment and its URI in status.
	c := &cluster{w: w, hcp: hcp, cr: get(), owner: gcpcloud.Owner{ManagementCluster: managementID, InfraID: hcp.Spec.InfraID, Name: key.Name}}
	c.publishURI(w.publish(c.owner, 0))
	eventually(t, "the path becomes available", func() bool {
		w.clock.Advance(5 * time.Second)
		cr := get()
		return cr != nil && available(cr)
	})
	eventually(t, "the credentials check finds the identity valid", func() bool {
		cur := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(hcp), cur); err != nil {
			return false
		}
		return meta.IsStatusConditionTrue(cur.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	})

	externalNames := func() int {
		n := 0
		for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
			if err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: ns, Name: name}, &corev1.Service{}); err == nil {
				n++
			}
		}
		return n
	}
	eventually(t, "Private has ExternalName Services", func() bool { return externalNames() == 2 })
	c.setAccess(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)
	eventually(t, "PublicAndPrivate has none", func() bool { return externalNames() == 0 })
	c.setAccess(hcplinkv1beta1.GCPEndpointAccessPrivate)
	eventually(t, "Private has them again", func() bool { return externalNames() == 2 })

	// The Service goes: the observer deletes the CR, whose finalizer
	// cleans the customer's side.
	if err := env.Client.Delete(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the CR is cleaned up and released", func() bool {
		w.clock.Advance(5 * time.Second)
		err := env.Client.Get(w.ctx, key, &hcplinkv1beta1.GCPPrivateServiceConnect{})
		return apierrors.IsNotFound(err)
	})
	if got := w.customerResources(); len(got) != 0 {
		t.Errorf("left after deletion: %v", got)
	}
}

// eventually polls cond every 100 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		<-tick.C
	}
}
