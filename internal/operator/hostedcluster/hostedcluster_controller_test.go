package hostedcluster

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	hcpevents "github.com/hcplink/hcplink/internal/events"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

// startManager runs the controller for hc in a manager whose cache sees
// only hc's namespace and control-plane namespace, so that tests do not
// reconcile each other's clusters.
func startManager(t *testing.T, cfg Config, hc *hcplinkv1beta1.HostedCluster) {
	t.Helper()
	cp := hcpNamespace(hc)
	byObject := CacheByObject()
	byObject[&corev1.Namespace{}] = cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", cp)}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{ByObject: byObject, DefaultNamespaces: map[string]cache.Config{hc.Namespace: {}, cp: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Events: hcpevents.New(mgr.GetEventRecorder("hcplink-operator-test")), Config: withPlatforms(cfg)}
	if err := r.SetupWithManager(mgr, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(logged(t))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}

// canI asks the API server's authorizer whether the control-plane
// operator's ServiceAccount of saNamespace may do verb on resource in
// namespace.
func canI(t *testing.T, saNamespace, namespace, verb, group, resource, subresource string) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + saNamespace + ":" + ControlPlaneOperatorName,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: verb, Group: group, Resource: resource, Subresource: subresource,
		},
	}}
	if err := env.Client.Create(t.Context(), sar); err != nil {
		t.Fatalf("SubjectAccessReview: %v", err)
	}
	return sar.Status.Allowed
}

func TestPrivateAWSClusterGetsItsControlPlane(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc,
		awsNodePool(ns, "workers-b", "demo", subnetB),
		awsNodePool(ns, "workers-a", "demo", subnetA),
		awsNodePool(ns, "not-ours", "other", subnetC))
	r, _ := testReconciler(t, awsConfig())
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)

	get(t, hc)
	if !controllerutil.ContainsFinalizer(hc, hcplinkv1beta1.OperatorFinalizer) {
		t.Errorf("finalizers = %v, want %s", hc.Finalizers, hcplinkv1beta1.OperatorFinalizer)
	}
	if hc.Status.ControlPlaneNamespace != cp {
		t.Errorf("status.controlPlaneNamespace = %q, want %q", hc.Status.ControlPlaneNamespace, cp)
	}
	for _, c := range hc.Status.Conditions {
		if c.ObservedGeneration != hc.Generation {
			t.Errorf("condition %s has observedGeneration %d, want %d", c.Type, c.ObservedGeneration, hc.Generation)
		}
	}
	if c := condition(hc, hcplinkv1beta1.ValidConfigurationCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ValidConfiguration = %+v, want True", c)
	}
	for _, typ := range []string{hcplinkv1beta1.AWSEndpointAvailableCondition, hcplinkv1beta1.AWSEndpointServiceAvailableCondition} {
		if c := condition(hc, typ); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != hcplinkv1beta1.PrivateLinkStatusUnknownReason {
			t.Errorf("%s = %+v, want Unknown/%s before any AWSEndpointService exists", typ, c, hcplinkv1beta1.PrivateLinkStatusUnknownReason)
		}
	}
	if c := condition(hc, hcplinkv1beta1.AvailableCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Available = %+v, want False while private link is unknown", c)
	}
	if condition(hc, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition) != nil {
		t.Error("an AWS cluster carries the Azure condition")
	}

	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}
	get(t, namespace)
	if namespace.Annotations[hcplinkv1beta1.ClusterAnnotation] != ns+"/demo" || namespace.Labels[ControlPlaneNamespaceLabel] != "true" {
		t.Errorf("namespace metadata = %v %v", namespace.Labels, namespace.Annotations)
	}

	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: "demo"}}
	get(t, hcp)
	wantPools := []hcplinkv1beta1.HostedControlPlaneNodePool{{Name: "workers-a", SubnetID: subnetA}, {Name: "workers-b", SubnetID: subnetB}}
	if !reflect.DeepEqual(hcp.Spec.NodePools, wantPools) {
		t.Errorf("HostedControlPlane nodePools = %+v, want %+v", hcp.Spec.NodePools, wantPools)
	}
	if hcp.Spec.InfraID != hc.Spec.InfraID || hcp.Spec.ClusterID != hc.Spec.ClusterID ||
		!reflect.DeepEqual(hcp.Spec.Platform, hc.Spec.Platform) || !reflect.DeepEqual(hcp.Spec.Services, hc.Spec.Services) ||
		!reflect.DeepEqual(hcp.Spec.Networking, hc.Spec.Networking) || hcp.Spec.DNS != hc.Spec.DNS {
		t.Errorf("HostedControlPlane spec does not mirror the cluster: %+v", hcp.Spec)
	}
	if hcp.Annotations[hcplinkv1beta1.ClusterAnnotation] != ns+"/demo" {
		t.Errorf("HostedControlPlane annotations = %v", hcp.Annotations)
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: awsplatform.CredentialsSecretName}}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	for _, o := range []client.Object{sa, role, binding, secret, deploy} {
		get(t, o)
		if o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] != ns+"/demo" || o.GetLabels()[ManagedByLabel] != ManagedByValue {
			t.Errorf("%T metadata = %v %v", o, o.GetLabels(), o.GetAnnotations())
		}
	}
	if !reflect.DeepEqual(role.Rules, desiredRole(hc, testPlatforms()).Rules) {
		t.Errorf("Role rules = %+v", role.Rules)
	}
	if binding.RoleRef.Name != ControlPlaneOperatorName || len(binding.Subjects) != 1 || binding.Subjects[0].Name != ControlPlaneOperatorName || binding.Subjects[0].Namespace != cp {
		t.Errorf("RoleBinding = %+v %+v", binding.RoleRef, binding.Subjects)
	}
	wantCreds := "[default]\nrole_arn = " + testRoleARN + "\nweb_identity_token_file = /var/run/secrets/hcplink/serviceaccount/token\nregion = us-east-1\n"
	if got := string(secret.Data[awsplatform.CredentialsKey]); got != wantCreds {
		t.Errorf("credentials = %q, want %q", got, wantCreds)
	}
	pod := deploy.Spec.Template.Spec
	if len(pod.Containers) != 1 || pod.Containers[0].Image != testImage || pod.ServiceAccountName != ControlPlaneOperatorName ||
		!reflect.DeepEqual(pod.Containers[0].Args, []string{"control-plane-operator", "--namespace", cp, "--platform", "AWS"}) {
		t.Errorf("Deployment pod spec = %+v", pod)
	}
	if len(pod.Volumes) != 2 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != awsplatform.CredentialsSecretName ||
		pod.Volumes[1].Projected == nil || pod.Volumes[1].Projected.Sources[0].ServiceAccountToken.Audience != awsplatform.ServiceAccountTokenAudience {
		t.Errorf("Deployment volumes = %+v", pod.Volumes)
	}

	// The ServiceAccount may manage the private-link objects in its own
	// namespace, and nothing in any other.
	testenv.Eventually(t, "RBAC to allow the control-plane operator its namespace", func() (bool, error) {
		return canI(t, cp, cp, "update", hcplinkv1beta1.GroupName, "awsendpointservices", "status"), nil
	})
	for _, tt := range []struct {
		namespace, verb, group, resource, subresource string
		allowed                                       bool
	}{
		{cp, "update", "hcplink.io", "awsendpointservices", "finalizers", true},
		{cp, "get", "", "secrets", "", true},
		{cp, "create", "", "services", "", true},
		{cp, "create", "", "secrets", "", false},
		{cp, "update", "hcplink.io", "hostedcontrolplanes", "", false},
		{ns, "get", "", "secrets", "", false},
		{ns, "list", "", "services", "", false},
		{ns, "update", "hcplink.io", "awsendpointservices", "status", false},
		{"default", "get", "", "secrets", "", false},
		{"", "list", "", "services", "", false},
		{ns, "get", "hcplink.io", "hostedclusters", "", false},
		// Another cloud's private-link objects: its controllers do not run.
		{cp, "create", "hcplink.io", "azureprivatelinkservices", "", false},
		{cp, "list", "hcplink.io", "gcpprivateserviceconnects", "", false},
	} {
		if got := canI(t, cp, tt.namespace, tt.verb, tt.group, tt.resource, tt.subresource); got != tt.allowed {
			t.Errorf("%s %s/%s.%s in namespace %q: allowed = %v, want %v", tt.verb, tt.resource, tt.subresource, tt.group, tt.namespace, got, tt.allowed)
		}
	}

	// A second pass with nothing changed writes nothing.
	before := resourceVersions(t, hc, namespace, hcp, sa, role, binding, secret, deploy)
	reconcileOnce(t, r, hc)
	if after := resourceVersions(t, hc, namespace, hcp, sa, role, binding, secret, deploy); !reflect.DeepEqual(before, after) {
		t.Errorf("a pass without changes wrote: before %v, after %v", before, after)
	}

	// The Role an earlier operator rendered granted every platform's
	// private-link objects: an upgraded operator narrows it in place.
	update(t, role, func() {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{hcplinkv1beta1.GroupName},
			Resources: []string{"azureprivatelinkservices", "gcpprivateserviceconnects"}, Verbs: []string{"get", "list", "watch", "create", "delete"}})
	})
	testenv.Eventually(t, "RBAC to allow the wider Role", func() (bool, error) {
		return canI(t, cp, cp, "create", hcplinkv1beta1.GroupName, "azureprivatelinkservices", ""), nil
	})
	reconcileOnce(t, r, hc)
	get(t, role)
	if !reflect.DeepEqual(role.Rules, desiredRole(hc, testPlatforms()).Rules) {
		t.Errorf("after an upgrade, Role rules = %+v", role.Rules)
	}
	testenv.Eventually(t, "RBAC to deny Azure's objects again", func() (bool, error) {
		return !canI(t, cp, cp, "create", hcplinkv1beta1.GroupName, "azureprivatelinkservices", ""), nil
	})
}

func resourceVersions(t *testing.T, objs ...client.Object) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		get(t, o)
		out[fmt.Sprintf("%T", o)] = o.GetResourceVersion()
	}
	return out
}

func TestInvalidClustersGetNothing(t *testing.T) {
	longName := strings.Repeat("x", 60)
	tests := []struct {
		name   string
		cfg    Config
		hc     func(ns string) *hcplinkv1beta1.HostedCluster
		reason string
	}{
		{name: "(a) private AWS cluster, no private platform", cfg: Config{PrivatePlatform: PrivatePlatformNone, ControlPlaneOperatorImage: testImage},
			hc: func(ns string) *hcplinkv1beta1.HostedCluster {
				return awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
			}, reason: hcplinkv1beta1.UnsupportedPrivatePlatformReason},
		{name: "(b) private AWS cluster in another region", cfg: awsConfig(),
			hc: func(ns string) *hcplinkv1beta1.HostedCluster {
				return withRegion(awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate), "eu-west-1")
			}, reason: hcplinkv1beta1.PlatformRegionMismatchReason},
		{name: "(c) private Azure cluster on an AWS operator", cfg: awsConfig(),
			hc: func(ns string) *hcplinkv1beta1.HostedCluster {
				return azureCluster(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
			}, reason: hcplinkv1beta1.UnsupportedPrivatePlatformReason},
		{name: "(d) namespace name too long", cfg: awsConfig(),
			hc: func(ns string) *hcplinkv1beta1.HostedCluster {
				return awsCluster(ns, longName, hcplinkv1beta1.AWSEndpointAccessPublic)
			}, reason: hcplinkv1beta1.NamespaceNameTooLongReason},
		// A role ARN in another partition than the region (issue 8 item 9)
		// is refused by the CRD itself (validationtest); the controller's
		// check (TestCheckRoleARN) stays for objects stored before the rule.
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.NewNamespace(t)
			hc := tt.hc(ns)
			create(t, hc)
			r, _ := testReconciler(t, tt.cfg)
			if res := reconcileOnce(t, r, hc); res.RequeueAfter <= 0 {
				t.Errorf("RequeueAfter = %s, want a recheck later", res.RequeueAfter)
			}
			assertRefused(t, hc, tt.reason)
			assertNothingCreated(t, hc)
		})
	}

	t.Run("(e) namespace exists without annotation", func(t *testing.T) {
		ns := env.NewNamespace(t)
		hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
		foreign := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcpNamespace(hc), Labels: map[string]string{"owner": "someone-else"}}}
		create(t, foreign, hc)
		get(t, foreign)
		r, _ := testReconciler(t, awsConfig())
		reconcileOnce(t, r, hc)
		assertRefused(t, hc, hcplinkv1beta1.NamespaceConflictReason)
		before := foreign.ResourceVersion
		get(t, foreign)
		if foreign.ResourceVersion != before || foreign.Annotations[hcplinkv1beta1.ClusterAnnotation] != "" {
			t.Errorf("the foreign namespace was changed: %+v", foreign.ObjectMeta)
		}
		assertNoControlPlaneObjects(t, foreign.Name)
		// Deleting the refused cluster leaves the foreign namespace alone.
		if err := env.Client.Delete(t.Context(), hc); err != nil {
			t.Fatal(err)
		}
		if exists(t, &hcplinkv1beta1.HostedCluster{ObjectMeta: hc.ObjectMeta}) {
			t.Error("a refused cluster without finalizer is still there after deletion")
		}
		get(t, foreign)
		if !foreign.DeletionTimestamp.IsZero() {
			t.Error("the foreign namespace is being deleted")
		}
	})

	t.Run("(e) two clusters whose names map to the same namespace", func(t *testing.T) {
		// <p>/x-c and <p>-x/c both map to <p>-x-c.
		p := env.NewNamespace(t)
		create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p + "-x"}})
		first := awsCluster(p, "x-c", hcplinkv1beta1.AWSEndpointAccessPrivate)
		second := awsCluster(p+"-x", "c", hcplinkv1beta1.AWSEndpointAccessPrivate)
		if hcpNamespace(first) != hcpNamespace(second) {
			t.Fatalf("the fixture is wrong: %s != %s", hcpNamespace(first), hcpNamespace(second))
		}
		create(t, first, second)
		r, _ := testReconciler(t, awsConfig())
		reconcileOnce(t, r, first)
		deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(first), Name: ControlPlaneOperatorName}}
		get(t, deploy)
		before := deploy.ResourceVersion

		reconcileOnce(t, r, second)
		assertRefused(t, second, hcplinkv1beta1.NamespaceConflictReason)
		c := condition(second, hcplinkv1beta1.ValidConfigurationCondition)
		if !strings.Contains(c.Message, p+"/x-c") {
			t.Errorf("message %q does not name the cluster that owns the namespace", c.Message)
		}
		if exists(t, &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(second), Name: "c"}}) {
			t.Error("a HostedControlPlane was created for the refused cluster")
		}
		get(t, deploy)
		if deploy.ResourceVersion != before || deploy.Annotations[hcplinkv1beta1.ClusterAnnotation] != p+"/x-c" {
			t.Errorf("the first cluster's Deployment was changed: %v", deploy.Annotations)
		}
		// The first cluster stays valid.
		reconcileOnce(t, r, first)
		get(t, first)
		if c := condition(first, hcplinkv1beta1.ValidConfigurationCondition); c.Status != metav1.ConditionTrue {
			t.Errorf("first cluster ValidConfiguration = %+v", c)
		}
	})
}

func assertRefused(t *testing.T, hc *hcplinkv1beta1.HostedCluster, reason string) {
	t.Helper()
	get(t, hc)
	c := condition(hc, hcplinkv1beta1.ValidConfigurationCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != reason || c.Message == "" || c.ObservedGeneration != hc.Generation {
		t.Fatalf("ValidConfiguration = %+v, want False/%s with a message", c, reason)
	}
	if a := condition(hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Status != metav1.ConditionFalse || a.Reason != hcplinkv1beta1.InvalidConfigurationReason {
		t.Errorf("Available = %+v, want False/%s", a, hcplinkv1beta1.InvalidConfigurationReason)
	}
	for _, typ := range testPlatforms().ConditionTypes() {
		if condition(hc, typ) != nil {
			t.Errorf("a refused cluster carries %s", typ)
		}
	}
	if len(hc.Finalizers) != 0 {
		t.Errorf("finalizers = %v, want none on a refused cluster", hc.Finalizers)
	}
	if hc.Status.ControlPlaneNamespace != "" {
		t.Errorf("status.controlPlaneNamespace = %q, want empty", hc.Status.ControlPlaneNamespace)
	}
}

// assertNothingCreated checks that hc has no namespace and no object in it.
func assertNothingCreated(t *testing.T, hc *hcplinkv1beta1.HostedCluster) {
	t.Helper()
	name := hcpNamespace(hc)
	if len(name) <= 63 && exists(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}) {
		t.Errorf("namespace %s was created", name)
	}
	// No object anywhere says it belongs to the cluster.
	owner := hc.Namespace + "/" + hc.Name
	var namespaces corev1.NamespaceList
	if err := env.Client.List(t.Context(), &namespaces); err != nil {
		t.Fatal(err)
	}
	for _, n := range namespaces.Items {
		if n.Annotations[hcplinkv1beta1.ClusterAnnotation] == owner {
			t.Errorf("namespace %s belongs to the refused cluster", n.Name)
		}
	}
	for _, list := range []client.ObjectList{&hcplinkv1beta1.HostedControlPlaneList{}, &appsv1.DeploymentList{}, &rbacv1.RoleList{}, &corev1.SecretList{}} {
		if err := env.Client.List(t.Context(), list); err != nil {
			t.Fatal(err)
		}
		items, _ := meta.ExtractList(list)
		for _, item := range items {
			if o := item.(client.Object); o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] == owner {
				t.Errorf("%T %s/%s belongs to the refused cluster", o, o.GetNamespace(), o.GetName())
			}
		}
	}
}

func assertNoControlPlaneObjects(t *testing.T, namespace string) {
	t.Helper()
	for _, o := range []client.Object{
		&hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ControlPlaneOperatorName}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ControlPlaneOperatorName}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ControlPlaneOperatorName}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ControlPlaneOperatorName}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: awsplatform.CredentialsSecretName}},
	} {
		if exists(t, o) {
			t.Errorf("%T %s was created", o, o.GetName())
		}
	}
}

func TestPublicClusterCarriesNoPrivateLinkConditions(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "public", hcplinkv1beta1.AWSEndpointAccessPublic)
	create(t, hc)
	r, _ := testReconciler(t, Config{PrivatePlatform: PrivatePlatformNone, ControlPlaneOperatorImage: testImage})
	reconcileOnce(t, r, hc)
	get(t, hc)
	for _, typ := range testPlatforms().ConditionTypes() {
		if condition(hc, typ) != nil {
			t.Errorf("a public cluster carries %s", typ)
		}
	}
	if c := condition(hc, hcplinkv1beta1.AvailableCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Available = %+v, want True (valid, HostedControlPlane exists)", c)
	}
	if exists(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: awsplatform.CredentialsSecretName}}) {
		t.Error("a public cluster without role got AWS credentials")
	}

	// Conditions left from before are removed; others' conditions stay.
	now := metav1.Now()
	hc.Status.Conditions = append(hc.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionTrue, Reason: "Stale", Message: "left over", LastTransitionTime: now},
		metav1.Condition{Type: "SomeoneElse", Status: metav1.ConditionTrue, Reason: "Theirs", Message: "not ours", LastTransitionTime: now})
	if err := env.Client.Status().Update(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, r, hc)
	get(t, hc)
	if condition(hc, hcplinkv1beta1.AWSEndpointAvailableCondition) != nil {
		t.Error("the stale AWSEndpointAvailable condition is still there")
	}
	if c := condition(hc, "SomeoneElse"); c == nil || c.Message != "not ours" {
		t.Errorf("another writer's condition was touched: %+v", c)
	}
	if condition(hc, hcplinkv1beta1.ValidConfigurationCondition) == nil || condition(hc, hcplinkv1beta1.AvailableCondition) == nil {
		t.Errorf("our conditions are gone: %+v", hc.Status.Conditions)
	}
}

func TestAzurePrivateLinkServiceAggregation(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := azureCluster(ns, "az", hcplinkv1beta1.AzureTopologyPrivate)
	create(t, hc)
	r, _ := testReconciler(t, Config{PrivatePlatform: azureplatform.Name, ControlPlaneOperatorImage: testImage})
	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); c == nil || c.Status != metav1.ConditionUnknown {
		t.Fatalf("AzurePrivateLinkServiceAvailable = %+v, want Unknown", c)
	}
	for _, typ := range []string{hcplinkv1beta1.AWSEndpointAvailableCondition, hcplinkv1beta1.AWSEndpointServiceAvailableCondition} {
		if condition(hc, typ) != nil {
			t.Errorf("an Azure cluster carries %s", typ)
		}
	}
	if exists(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: awsplatform.CredentialsSecretName}}) {
		t.Error("an Azure cluster got AWS credentials")
	}

	pls := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: azSubscription, ResourceGroupName: "customer-rg",
			Location: "eastus", GuestSubnetID: azSubnet, GuestVNetID: azVNet, BaseDomain: "azdemo.example.com"},
	}
	create(t, pls)
	setConditions(t, pls, &pls.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition,
		Status: metav1.ConditionFalse, Reason: hcplinkv1beta1.PrivateEndpointPendingReason, Message: "the Private Endpoint waits for approval"})
	reconcileOnce(t, r, hc)
	get(t, hc)
	c := condition(hc, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != hcplinkv1beta1.PrivateEndpointPendingReason || c.Message != "private-router: the Private Endpoint waits for approval" {
		t.Errorf("AzurePrivateLinkServiceAvailable = %+v", c)
	}

	// The customer side works, the management side does not: the cluster
	// is not Available, and says which side failed (issue 18, item 8).
	setConditions(t, pls, &pls.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AzureSuccessReason, Message: "ok"},
		metav1.Condition{Type: hcplinkv1beta1.AzurePLSCreatedCondition, Status: metav1.ConditionFalse, Reason: hcplinkv1beta1.AccessDeniedReason,
			Message: "the identity lacks the permission Microsoft.Network/privateLinkServices/write"})
	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.AvailableCondition); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "AzurePLSCreated: private-router: the identity lacks") {
		t.Errorf("Available with the management side failing = %+v, want False naming AzurePLSCreated", c)
	}
	if c := condition(hc, hcplinkv1beta1.AzurePLSCreatedCondition); c == nil || c.Reason != hcplinkv1beta1.AccessDeniedReason {
		t.Errorf("AzurePLSCreated = %+v, want the operator's AccessDenied", c)
	}

	setConditions(t, pls, &pls.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.AzurePLSCreatedCondition,
		Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AzureSuccessReason, Message: "ok"})
	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); c.Status != metav1.ConditionTrue || c.Message != hcplinkv1beta1.AllIsWellMessage {
		t.Errorf("AzurePrivateLinkServiceAvailable = %+v, want True", c)
	}
	if c := condition(hc, hcplinkv1beta1.AvailableCondition); c.Status != metav1.ConditionTrue {
		t.Errorf("Available = %+v, want True", c)
	}
}

// setConditions writes conditions into obj's status as the private-link
// controllers would.
func setConditions(t *testing.T, obj client.Object, conds *[]metav1.Condition, set ...metav1.Condition) {
	t.Helper()
	get(t, obj)
	for _, c := range set {
		meta.SetStatusCondition(conds, c)
	}
	if err := env.Client.Status().Update(t.Context(), obj); err != nil {
		t.Fatalf("writing the status of %s: %v", obj.GetName(), err)
	}
}

// hcpSpec reads the HostedControlPlane of hc.
func hcpSpec(t *testing.T, hc *hcplinkv1beta1.HostedCluster) (hcplinkv1beta1.HostedControlPlaneSpec, bool) {
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: hc.Name}}
	if !exists(t, hcp) {
		return hcplinkv1beta1.HostedControlPlaneSpec{}, false
	}
	return hcp.Spec, true
}

func TestChangesReachTheHostedControlPlane(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc, awsNodePool(ns, "workers-a", "demo", subnetA))
	startManager(t, awsConfig(), hc)

	waitForPools := func(what string, want ...hcplinkv1beta1.HostedControlPlaneNodePool) {
		t.Helper()
		testenv.Eventually(t, what, func() (bool, error) {
			spec, ok := hcpSpec(t, hc)
			return ok && reflect.DeepEqual(spec.NodePools, want), nil
		})
	}
	waitForPools("the HostedControlPlane with the first NodePool", hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-a", SubnetID: subnetA})

	// Spec changes of the cluster.
	update(t, hc, func() {
		hc.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
		hc.Spec.Platform.AWS.ResourceTags = append(hc.Spec.Platform.AWS.ResourceTags, hcplinkv1beta1.AWSResourceTag{Key: "env", Value: "prod"})
		hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hcplinkv1beta1.MachineNetworkEntry{CIDR: "10.1.0.0/16"})
		hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = append(hc.Spec.Platform.AWS.AdditionalAllowedPrincipals, "arn:aws:iam::210987654321:role/ops")
	})
	testenv.Eventually(t, "endpoint access, tag, CIDR and principal to reach the HostedControlPlane", func() (bool, error) {
		spec, ok := hcpSpec(t, hc)
		return ok && spec.Platform.AWS.EndpointAccess == hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate &&
			reflect.DeepEqual(spec.Platform.AWS.ResourceTags, hc.Spec.Platform.AWS.ResourceTags) &&
			reflect.DeepEqual(spec.Networking, hc.Spec.Networking) &&
			reflect.DeepEqual(spec.Platform.AWS.AdditionalAllowedPrincipals, hc.Spec.Platform.AWS.AdditionalAllowedPrincipals), nil
	})
	testenv.Eventually(t, "the conditions to observe the new generation", func() (bool, error) {
		get(t, hc)
		c := condition(hc, hcplinkv1beta1.ValidConfigurationCondition)
		return c != nil && c.ObservedGeneration == hc.Generation, nil
	})

	// NodePools: added without a subnet, subnet set, subnet cleared, removed.
	poolB := awsNodePool(ns, "workers-b", "demo", "")
	create(t, poolB)
	waitForPools("a NodePool without subnet to be added",
		hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-a", SubnetID: subnetA}, hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-b"})

	update(t, poolB, func() { poolB.Spec.Platform.AWS.Subnet = &hcplinkv1beta1.AWSSubnetReference{ID: subnetB} })
	waitForPools("a subnet set on a NodePool",
		hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-a", SubnetID: subnetA}, hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-b", SubnetID: subnetB})

	poolA := awsNodePool(ns, "workers-a", "demo", "")
	update(t, poolA, func() { poolA.Spec.Platform.AWS.Subnet = nil })
	waitForPools("a subnet cleared on a NodePool",
		hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-a"}, hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-b", SubnetID: subnetB})

	if err := env.Client.Delete(t.Context(), poolA); err != nil {
		t.Fatal(err)
	}
	waitForPools("a deleted NodePool to be removed", hcplinkv1beta1.HostedControlPlaneNodePool{Name: "workers-b", SubnetID: subnetB})

	// The operator's objects are repaired when changed or deleted.
	cp := hcpNamespace(hc)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	update(t, role, func() {
		role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}
	})
	testenv.Eventually(t, "the Role to be repaired", func() (bool, error) {
		get(t, role)
		return reflect.DeepEqual(role.Rules, desiredRole(hc, testPlatforms()).Rules), nil
	})
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: ControlPlaneOperatorName}}
	get(t, deploy)
	uid := deploy.UID
	if err := env.Client.Delete(t.Context(), deploy); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the Deployment to be recreated", func() (bool, error) {
		d := &appsv1.Deployment{ObjectMeta: deploy.ObjectMeta}
		return exists(t, d) && d.UID != uid, nil
	})

	// Deletion through the running manager; the test plays the
	// control-plane operator's final sweep.
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: "demo"}}
	testenv.Eventually(t, "the HostedControlPlane to be marked deleting", func() (bool, error) {
		return exists(t, hcp) && !hcp.DeletionTimestamp.IsZero(), nil
	})
	setHCPCondition(t, hcp, metav1.Condition{Type: hcplinkv1beta1.CloudCleanupCompleteCondition, Status: metav1.ConditionTrue,
		Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage})
	testenv.Eventually(t, "the cluster to be deleted", func() (bool, error) {
		return !exists(t, &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"}}), nil
	})
	assertNoControlPlaneObjects(t, cp)
}

func TestPrivateLinkConditionsAreAggregated(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc)
	cp := hcpNamespace(hc)
	startManager(t, awsConfig(), hc)

	waitFor := func(what string, check func(hc *hcplinkv1beta1.HostedCluster) bool) {
		t.Helper()
		testenv.Eventually(t, what, func() (bool, error) {
			current := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"}}
			get(t, current)
			return check(current), nil
		})
	}
	is := func(hc *hcplinkv1beta1.HostedCluster, typ string, status metav1.ConditionStatus, reason, message string) bool {
		c := condition(hc, typ)
		return c != nil && c.Status == status && (reason == "" || c.Reason == reason) && (message == "" || c.Message == message) && c.ObservedGeneration == hc.Generation
	}
	waitFor("Unknown before any AWSEndpointService", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason, "") &&
			is(hc, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason, "")
	})

	// One object carries the cluster annotation, the other only lives in
	// the cluster's namespace: both are mapped to the cluster.
	router := awsEndpointService(cp, "private-router")
	router.Annotations = map[string]string{hcplinkv1beta1.ClusterAnnotation: ns + "/demo"}
	kas := awsEndpointService(cp, "kube-apiserver-private")
	create(t, router, kas)
	setConditions(t, router, &router.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AWSSuccessReason, Message: "ok"},
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionFalse, Reason: hcplinkv1beta1.EndpointPendingAcceptanceReason, Message: "the endpoint waits for acceptance"})
	waitFor("one object reporting: the other has not reported yet", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingAcceptanceReason, "private-router: the endpoint waits for acceptance") &&
			is(hc, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason, "kube-apiserver-private: not reported yet") &&
			is(hc, hcplinkv1beta1.AvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.PrivateLinkUnavailableReason, "")
	})

	setConditions(t, kas, &kas.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AWSSuccessReason, Message: "ok"},
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionFalse, Reason: hcplinkv1beta1.ThrottledReason, Message: "AWS throttled the request; retrying"})
	waitFor("two False messages joined, service True", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.PrivateLinkUnavailableReason,
			"kube-apiserver-private: AWS throttled the request; retrying; private-router: the endpoint waits for acceptance") &&
			is(hc, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage)
	})

	for _, o := range []*hcplinkv1beta1.AWSEndpointService{router, kas} {
		setConditions(t, o, &o.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AWSSuccessReason, Message: "ok"})
	}
	waitFor("everything True", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage) &&
			is(hc, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage) &&
			is(hc, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage)
	})

	// A deleted object no longer counts.
	setConditions(t, kas, &kas.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionFalse, Reason: "Broken", Message: "broken"})
	waitFor("the broken object to show", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, "Broken", "kube-apiserver-private: broken")
	})
	if err := env.Client.Delete(t.Context(), kas); err != nil {
		t.Fatal(err)
	}
	waitFor("the deleted object to be forgotten", func(hc *hcplinkv1beta1.HostedCluster) bool {
		return is(hc, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionTrue, "", "")
	})
}

// status.controlPlaneOperatorCreationTime is written before the
// control-plane operator's Deployment can exist: a pass whose Deployment
// the API server refuses (no image) has already recorded it. It is written
// once.
func TestControlPlaneOperatorCreationIsRecordedBeforeItsDeployment(t *testing.T) {
	cfg := awsConfig()
	cfg.ControlPlaneOperatorImage = ""
	hc := awsCluster(env.NewNamespace(t), "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc)
	r, clk := testReconciler(t, cfg)
	if _, err := r.Reconcile(logged(t), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)}); err == nil {
		t.Fatal("Reconcile with no control-plane operator image succeeded; want the Deployment refused")
	}
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: ControlPlaneOperatorName}}
	if exists(t, deployment) {
		t.Fatal("the Deployment exists although the API server should have refused it")
	}
	get(t, hc)
	recorded := hc.Status.ControlPlaneOperatorCreationTime
	if recorded == nil {
		t.Fatal("status.controlPlaneOperatorCreationTime is not set after a pass that went to create the control-plane operator")
	}

	r.Config.ControlPlaneOperatorImage = testImage
	clk.Step(time.Hour)
	reconcileOnce(t, r, hc)
	if !exists(t, deployment) {
		t.Fatal("the Deployment was not created")
	}
	get(t, hc)
	if got := hc.Status.ControlPlaneOperatorCreationTime; got == nil || !got.Equal(recorded) {
		t.Errorf("status.controlPlaneOperatorCreationTime = %v, want %v kept", got, recorded)
	}
}
