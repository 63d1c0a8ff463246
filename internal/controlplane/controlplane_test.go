package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	cpoName = "control-plane-operator"
	// deadline bounds each wait for the running operator.
	deadline = 30 * time.Second
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// grantControlPlaneOperator creates what the operator creates for a
// control-plane operator in ns: its ServiceAccount, Role and RoleBinding.
// The rules are those of internal/operator/hostedcluster (desiredRole),
// copied here because that package keeps them unexported: the common ones,
// and those of the cluster's platform's private-link resource.
func grantControlPlaneOperator(t *testing.T, ns, resource string) {
	t.Helper()
	group := hcplinkv1beta1.GroupName
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: cpoName, Namespace: ns}},
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: cpoName, Namespace: ns},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: writeVerbs},
				{APIGroups: []string{""}, Resources: []string{"services/status"}, Verbs: []string{"get", "update", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: readVerbs},
				{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readVerbs},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: writeVerbs},
				{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "update", "patch"}},
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: writeVerbs},
				{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes"}, Verbs: readVerbs},
				{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes/status"}, Verbs: []string{"get", "update", "patch"}},
				{APIGroups: []string{group}, Resources: []string{resource}, Verbs: append(append([]string{}, writeVerbs...), "deletecollection")},
				{APIGroups: []string{group}, Resources: []string{resource + "/status"}, Verbs: []string{"get", "update", "patch"}},
				{APIGroups: []string{group}, Resources: []string{resource + "/finalizers"}, Verbs: []string{"update"}},
			},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: cpoName, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: cpoName},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: cpoName, Namespace: ns}},
		},
	}
	for _, o := range objs {
		if err := env.Client.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T: %v", o, err)
		}
	}
}

// resourcesAsked records the hcplink.io resources a client asked the API
// server about (any verb), from the request paths.
type resourcesAsked struct {
	mu   sync.Mutex
	seen map[string]bool
}

// recording returns cfg with every request's hcplink.io resource recorded.
func (r *resourcesAsked) recording(cfg *rest.Config) *rest.Config {
	r.seen = map[string]bool{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			// /apis/hcplink.io/v1beta1/namespaces/<ns>/<resource>[/<name>...]
			if parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/"), "/"); len(parts) >= 6 && parts[1] == hcplinkv1beta1.GroupName && parts[3] == "namespaces" {
				r.mu.Lock()
				r.seen[parts[5]] = true
				r.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

func (r *resourcesAsked) asked(resource string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[resource]
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// asServiceAccount reaches the API server as the control-plane operator's
// ServiceAccount, as devenv runs it, so that only its RBAC applies.
func asServiceAccount(ns string) *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + cpoName}
	return cfg
}

func privateHCP(ns string) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns,
			Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/demo"}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              cloudsimtest.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::" + cloudsimtest.CustomerAccount + ":role/demo-cpo"},
			}},
		},
	}
}

func serviceExists(ns, name string, want bool) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &corev1.Service{})
		switch {
		case want && err != nil:
			return err
		case !want && err == nil:
			return fmt.Errorf("Service %s still exists", name)
		case !want && !apierrors.IsNotFound(err):
			return err
		}
		return nil
	}
}

func conditionIs(hcp *hcplinkv1beta1.HostedControlPlane, condType string, status metav1.ConditionStatus) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var got hcplinkv1beta1.HostedControlPlane
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hcp), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, condType)
		if c == nil || c.Status != status || c.ObservedGeneration != got.Generation {
			return fmt.Errorf("%s is %+v, want %s at generation %d", condType, c, status, got.Generation)
		}
		return nil
	}
}

// TestRunUnderNamespaceRBAC runs the control-plane operator of an AWS
// cluster (--platform AWS) as its ServiceAccount, with only the Role the
// operator grants it, and drives a cluster through Private →
// PublicAndPrivate → Private. It never asks the API server about another
// cloud's private-link objects: their controllers do not run.
func TestRunUnderNamespaceRBAC(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ns, otherNS := env.NewNamespace(t), env.NewNamespace(t)
	grantControlPlaneOperator(t, ns, "awsendpointservices")
	hcp := privateHCP(ns)
	if err := env.Client.Create(t.Context(), hcp); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(t.Context(), privateHCP(otherNS)); err != nil {
		t.Fatal(err)
	}

	// The impersonated identity really is limited to its namespace.
	limited, err := client.New(asServiceAccount(ns), client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := limited.List(t.Context(), &corev1.ServiceList{}, client.InNamespace(otherNS)); !apierrors.IsForbidden(err) {
		t.Fatalf("listing Services of another namespace as the ServiceAccount: %v, want Forbidden", err)
	}

	awsConfig := f.Config(t, cloudsimtest.CustomerAccount)
	var asked resourcesAsked
	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), testenv.Logger(t)))
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{RestConfig: asked.recording(asServiceAccount(ns)), Namespace: ns, Platform: awsplatform.Name,
			Platforms:          map[string]platform.Settings{awsplatform.Name: {Cloud: &awsConfig}},
			MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(deadline):
			t.Error("Run did not return after its context ended")
		}
	})

	testenv.Eventually(t, "private-router is created", serviceExists(ns, hcplinkv1beta1.PrivateRouterServiceName, true))
	testenv.Eventually(t, "RoutersReady is False while there is no load balancer", conditionIs(hcp, hcplinkv1beta1.RoutersReadyCondition, metav1.ConditionFalse))
	testenv.Eventually(t, "ValidCloudCredentials is True", conditionIs(hcp, hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionTrue))

	// The cloud gives the Service a load balancer: the owned-Service watch
	// brings the controller back.
	svc := &corev1.Service{}
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "k8s-x-privater-0123456789-0123456789abcdef.elb.us-east-1.amazonaws.com"}}
	if err := env.Client.Status().Update(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "RoutersReady is True", conditionIs(hcp, hcplinkv1beta1.RoutersReadyCondition, metav1.ConditionTrue))

	setAccess := func(access hcplinkv1beta1.AWSEndpointAccessType) {
		t.Helper()
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), hcp); err != nil {
			t.Fatal(err)
		}
		// A patch, not an update: the operators write the status meanwhile.
		base := hcp.DeepCopy()
		hcp.Spec.Platform.AWS.EndpointAccess = access
		if err := env.Client.Patch(t.Context(), hcp, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	setAccess(hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate)
	testenv.Eventually(t, "router is created for PublicAndPrivate", serviceExists(ns, hcplinkv1beta1.RouterServiceName, true))
	setAccess(hcplinkv1beta1.AWSEndpointAccessPrivate)
	testenv.Eventually(t, "router is deleted for Private", serviceExists(ns, hcplinkv1beta1.RouterServiceName, false))

	// Nothing happened in the other namespace.
	var others corev1.ServiceList
	if err := env.Client.List(t.Context(), &others, client.InNamespace(otherNS)); err != nil {
		t.Fatal(err)
	}
	if len(others.Items) != 0 {
		t.Errorf("%d Services in another namespace", len(others.Items))
	}

	// By now every controller's cache has synced (the conditions above
	// were written by running controllers): only AWS's watched its objects.
	if !asked.asked("awsendpointservices") {
		t.Error("the AWS controllers never asked for awsendpointservices: the request recorder sees nothing")
	}
	for _, other := range []string{"azureprivatelinkservices", "gcpprivateserviceconnects"} {
		if asked.asked(other) {
			t.Errorf("the control-plane operator of an AWS cluster asked the API server for %s: another cloud's controllers run", other)
		}
	}
}

func TestRunRefusesIncompleteOptions(t *testing.T) {
	tests := map[string]Options{
		"no rest config":   {Namespace: "ns"},
		"no namespace":     {RestConfig: env.Config},
		"unknown platform": {RestConfig: env.Config, Namespace: "ns", Platform: "aws"},
	}
	for name, opts := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			err := Run(ctx, opts)
			if err == nil || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Run = %v, want an immediate error", err)
			}
		})
	}
}
