package lbcontroller

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const (
	gcpProject   = cloudsimtest.ManagementProject
	gcpRegion    = cloudsimtest.GCPRegion
	gcpNodesCIDR = "10.0.0.0/24"
)

// gcpCloud is cloudsim's GCP with the management project's network, its
// nodes subnetwork and a PSC NAT subnetwork, made by the administrator.
type gcpCloud struct {
	f       *cloudsimtest.Fixture
	compute *compute.Service
	// clock, when set, is cloudsim's: operations finish as it is advanced.
	clock *sim.ManualClock
}

func newGCPCloud(t *testing.T) *gcpCloud {
	t.Helper()
	return newGCPCloudWith(t, nil)
}

// newGCPCloudWith is newGCPCloud on clock (nil: the wall clock).
func newGCPCloudWith(t *testing.T, clock *sim.ManualClock) *gcpCloud {
	t.Helper()
	opts := cloudsim.Options{}
	if clock != nil {
		opts.Clock = clock
	}
	f := cloudsimtest.StartGCP(t, opts)
	c := &gcpCloud{f: f, compute: f.Compute(t, cloudsimtest.GCPAdminTokens()), clock: clock}
	c.await(t, func() error {
		_, err := c.compute.Networks.Insert(gcpProject, &compute.Network{Name: "management", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
		return err
	}, func() error { _, err := c.compute.Networks.Get(gcpProject, "management").Do(); return err })
	for _, s := range []*compute.Subnetwork{
		{Name: "nodes", Network: "global/networks/management", IpCidrRange: gcpNodesCIDR},
		{Name: "psc-nat", Network: "global/networks/management", IpCidrRange: "10.1.0.0/28", Purpose: "PRIVATE_SERVICE_CONNECT"},
	} {
		c.await(t, func() error { _, err := c.compute.Subnetworks.Insert(gcpProject, gcpRegion, s).Do(); return err },
			func() error { _, err := c.compute.Subnetworks.Get(gcpProject, gcpRegion, s.Name).Do(); return err })
	}
	return c
}

// await starts a change and waits until read sees it (its operation done).
func (c *gcpCloud) await(t *testing.T, change, read func() error) {
	t.Helper()
	if err := change(); err != nil {
		t.Fatal(err)
	}
	if c.clock != nil {
		c.clock.Advance(time.Minute)
	}
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, deadline, true, func(context.Context) (bool, error) {
		return read() == nil, nil
	})
	if err != nil {
		t.Fatalf("the change is not visible within %v: %v", deadline, read())
	}
}

func (c *gcpCloud) reconciler() *GCPReconciler {
	return &GCPReconciler{Client: env.Client, Options: GCPOptions{
		ComputeEndpoint: c.f.URL + "/compute/v1/", Tokens: cloudsimtest.GCPAdminTokens(),
		Project: gcpProject, Region: gcpRegion, Subnetwork: "nodes",
	}}
}

// rule is the forwarding rule of that name, or nil.
func (c *gcpCloud) rule(t *testing.T, name string) *compute.ForwardingRule {
	t.Helper()
	fr, err := c.compute.ForwardingRules.Get(gcpProject, gcpRegion, name).Do()
	if gcpStatus(err) == http.StatusNotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return fr
}

// settleGCP calls Reconcile, as the workqueue would after each requested
// delay, until it asks for nothing more, within the deadline.
func settleGCP(t *testing.T, r *GCPReconciler, svc *corev1.Service) {
	t.Helper()
	var last ctrl.Result
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, deadline, true, func(ctx context.Context) (bool, error) {
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
		if err != nil {
			return false, err
		}
		last = res
		return res.IsZero(), nil
	})
	if err != nil {
		t.Fatalf("Reconcile did not settle within %v (last %+v): %v", deadline, last, err)
	}
}

var gcpInternal = map[string]string{GCPLoadBalancerTypeAnnotation: GCPInternal}

// An internal Service gets an INTERNAL forwarding rule in the nodes
// subnetwork, named after its UID as GKE names them, with its port; its
// address is in the Service's status. Deleted, the rule goes and the
// Service is let go.
func TestGCPInternalServiceGetsAForwardingRule(t *testing.T) {
	c := newGCPCloud(t)
	r := c.reconciler()
	svc := createService(t, env.NewNamespace(t), "private-router", gcpInternal)
	settleGCP(t, r, svc)

	name := GCPForwardingRuleName(get(t, svc))
	fr := c.rule(t, name)
	if fr == nil {
		t.Fatalf("no forwarding rule %s", name)
	}
	ip := ingressIP(get(t, svc))
	if fr.LoadBalancingScheme != "INTERNAL" || fr.IPAddress != ip || len(fr.Ports) != 1 || fr.Ports[0] != "443" {
		t.Fatalf("rule %s: scheme %s, address %s, ports %v; Service ingress %q: want INTERNAL on port 443 at the Service's address",
			name, fr.LoadBalancingScheme, fr.IPAddress, fr.Ports, ip)
	}
	if addr, err := netip.ParseAddr(ip); err != nil || !netip.MustParsePrefix(gcpNodesCIDR).Contains(addr) {
		t.Errorf("ingress IP %q is not in the nodes subnetwork %s", ip, gcpNodesCIDR)
	}
	if !controllerutil.ContainsFinalizer(get(t, svc), Finalizer) {
		t.Error("the Service does not hold the cleanup finalizer")
	}

	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	settleGCP(t, r, svc)
	if c.rule(t, name) != nil {
		t.Errorf("forwarding rule %s is still there after its Service went", name)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(svc), &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service is still there (%v): the finalizer was not removed", err)
	}
}

// A service attachment on the rule holds it (Compute Engine refuses to
// delete it): the Service waits with its finalizer, and goes once the
// attachment is gone.
func TestGCPRuleHeldByServiceAttachment(t *testing.T) {
	c := newGCPCloud(t)
	r := c.reconciler()
	svc := createService(t, env.NewNamespace(t), "private-router", gcpInternal)
	settleGCP(t, r, svc)
	fr := c.rule(t, GCPForwardingRuleName(get(t, svc)))
	c.await(t, func() error {
		_, err := c.compute.ServiceAttachments.Insert(gcpProject, gcpRegion, &compute.ServiceAttachment{Name: "cluster", TargetService: fr.SelfLink,
			ConnectionPreference: "ACCEPT_MANUAL", NatSubnets: []string{"regions/" + gcpRegion + "/subnetworks/psc-nat"}}).Do()
		return err
	}, func() error {
		_, err := c.compute.ServiceAttachments.Get(gcpProject, gcpRegion, "cluster").Do()
		return err
	})

	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
	if err != nil || res.RequeueAfter != inUseRequeue {
		t.Fatalf("Reconcile = %+v, %v; want a wait of %v while the attachment holds the rule", res, err, inUseRequeue)
	}
	if c.rule(t, fr.Name) == nil || !controllerutil.ContainsFinalizer(get(t, svc), Finalizer) {
		t.Fatal("the rule went, or the Service lost its finalizer, while a service attachment was on it")
	}

	c.await(t, func() error {
		_, err := c.compute.ServiceAttachments.Delete(gcpProject, gcpRegion, "cluster").Do()
		return err
	},
		func() error {
			if _, err := c.compute.ServiceAttachments.Get(gcpProject, gcpRegion, "cluster").Do(); gcpStatus(err) != http.StatusNotFound {
				return err
			}
			return nil
		})
	settleGCP(t, r, svc)
	if c.rule(t, fr.Name) != nil {
		t.Error("the rule is still there after the attachment went")
	}
}

// A Service not annotated internal gets an EXTERNAL rule with an external
// address, as GKE's default; annotated internal, its rule is replaced by
// an INTERNAL one in the nodes subnetwork (a rule's scheme cannot change).
func TestGCPExternalServiceThenInternal(t *testing.T) {
	c := newGCPCloud(t)
	r := c.reconciler()
	svc := createService(t, env.NewNamespace(t), "router", nil)
	settleGCP(t, r, svc)
	name := GCPForwardingRuleName(get(t, svc))
	fr := c.rule(t, name)
	if fr == nil || fr.LoadBalancingScheme != "EXTERNAL" || fr.IPAddress != ingressIP(get(t, svc)) || fr.Subnetwork != "" {
		t.Fatalf("rule %+v, Service ingress %q: want an EXTERNAL rule at the Service's address", fr, ingressIP(get(t, svc)))
	}

	patched := get(t, svc)
	orig := patched.DeepCopy()
	patched.Annotations = gcpInternal
	if err := env.Client.Patch(t.Context(), patched, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, deadline, true, func(ctx context.Context) (bool, error) {
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)}); err != nil {
			return false, err
		}
		fr = c.rule(t, name)
		return fr != nil && fr.LoadBalancingScheme == "INTERNAL", nil
	})
	if err != nil {
		t.Fatalf("the rule was not replaced by an INTERNAL one: %+v", fr)
	}
	settleGCP(t, r, svc)
	ip := ingressIP(get(t, svc))
	if addr, err := netip.ParseAddr(ip); err != nil || ip != fr.IPAddress || !netip.MustParsePrefix(gcpNodesCIDR).Contains(addr) {
		t.Errorf("ingress IP %q, rule at %s: want the internal rule's address in %s", ip, fr.IPAddress, gcpNodesCIDR)
	}
}

func TestGCPNamesAndAnnotations(t *testing.T) {
	svc := func(uid string, annotations map[string]string, ports int) *corev1.Service {
		s := &corev1.Service{}
		s.UID, s.Annotations = types.UID(uid), annotations
		for i := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: int32(443 + i)})
		}
		return s
	}
	for _, tc := range []struct {
		name               string
		svc                *corev1.Service
		rule               string
		gcp, internal, all bool
		ports              int
	}{
		{"GKE's annotation", svc("0b3c6f52-1d2e-4f5a-9b8c-7d6e5f4a3b2c", gcpInternal, 1), "a0b3c6f521d2e4f5a9b8c7d6e5f4a3b2", true, true, false, 1},
		{"the legacy annotation", svc("11111111-2222-3333-4444-555555555555", map[string]string{gcpLegacyTypeAnnotation: GCPInternal}, 2), "a1111111122223333444455555555555", true, true, false, 2},
		{"external", svc("ab", map[string]string{GCPLoadBalancerTypeAnnotation: "External"}, 1), "aab", true, false, false, 1},
		{"Azure's", svc("ab", map[string]string{AzureInternalAnnotation: "true"}, 1), "aab", false, false, false, 1},
		{"more ports than a rule lists", svc("ab", gcpInternal, gcpMaxPorts+1), "aab", true, true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GCPForwardingRuleName(tc.svc); got != tc.rule || len(got) > 32 {
				t.Errorf("rule name %q, want %q (at most 32 characters)", got, tc.rule)
			}
			if isGCP(tc.svc) != tc.gcp || wantsGCPInternal(tc.svc) != tc.internal {
				t.Errorf("isGCP %v, internal %v; want %v, %v", isGCP(tc.svc), wantsGCPInternal(tc.svc), tc.gcp, tc.internal)
			}
			if ports, all := gcpPorts(tc.svc); all != tc.all || len(ports) != tc.ports {
				t.Errorf("ports %v, all %v; want %d ports, all %v", ports, all, tc.ports, tc.all)
			}
		})
	}
}

// GKE makes a Service's forwarding rule with one insert and waits on its
// operation: the passes the Service's own updates bring while the
// operation runs (the finalizer added, a requeue) do not insert again.
func TestGCPOneInsertPerRule(t *testing.T) {
	clock := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	c := newGCPCloudWith(t, clock)
	r := c.reconciler()
	svc := createService(t, env.NewNamespace(t), "private-router", gcpInternal)
	reconcile := func() ctrl.Result {
		t.Helper()
		res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for range 3 { // the insert, then the passes of the finalizer's update and of the requeue
		if res := reconcile(); res.RequeueAfter <= 0 {
			t.Fatalf("a pass while the rule's operation runs asks for no requeue: %+v", res)
		}
	}
	clock.Advance(time.Minute) // the operation is done
	for range 3 {
		if res := reconcile(); res.IsZero() {
			break
		}
	}
	if ip := ingressIP(get(t, svc)); ip == "" {
		t.Fatal("the Service has no address once the rule's operation is done")
	}
	var inserts int64
	for k, n := range c.f.Calls(gcpProject) {
		if strings.HasSuffix(k, ":forwardingRules.insert") {
			inserts += n.Total
		}
	}
	if inserts != 1 {
		t.Fatalf("%d forwarding-rule inserts for one Service; want 1 (GKE waits on the operation)", inserts)
	}
}
