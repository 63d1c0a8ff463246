package hostedcluster

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

// cpObjects are the objects the operator makes in control-plane namespace
// cp for the cluster called name.
func cpObjects(cp, name string) []client.Object {
	m := func(n string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: cp, Name: n} }
	return []client.Object{
		&hcplinkv1beta1.HostedControlPlane{ObjectMeta: m(name)},
		&appsv1.Deployment{ObjectMeta: m(ControlPlaneOperatorName)},
		&corev1.Secret{ObjectMeta: m(awsplatform.CredentialsSecretName)},
		&corev1.ServiceAccount{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.Role{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.RoleBinding{ObjectMeta: m(ControlPlaneOperatorName)},
	}
}

// forceDeleteNamespace plays `kubectl delete namespace --force` with the
// finalizers stripped: every object in it goes, finalizers or not, and the
// namespace itself. envtest has no namespace controller, so the test
// deletes the objects and finalizes the namespace itself.
func forceDeleteNamespace(t *testing.T, cp, name string) {
	t.Helper()
	for _, o := range cpObjects(cp, name) {
		if !exists(t, o) {
			continue
		}
		if len(o.GetFinalizers()) > 0 {
			update(t, o, func() { o.SetFinalizers(nil) })
		}
		if err := env.Client.Delete(t.Context(), o); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}
	get(t, ns)
	if err := env.Client.Delete(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	get(t, ns)
	ns.Spec.Finalizers = nil
	if _, err := cs.CoreV1().Namespaces().Finalize(t.Context(), ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the namespace to be gone", func() (bool, error) {
		return !exists(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}), nil
	})
	for _, o := range cpObjects(cp, name) {
		if exists(t, o) {
			t.Fatalf("%T %s survived the forced deletion", o, o.GetName())
		}
	}
}

// Brief protocol 5: a control-plane namespace force-deleted mid-cluster is
// recreated with everything in it by the normal reconcile; the new
// control-plane operator then adopts the cloud resources by tags.
func TestForceDeletedNamespaceIsRecreated(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc)
	r, _ := testReconciler(t, awsConfig())
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)
	forceDeleteNamespace(t, cp, hc.Name)

	reconcileOnce(t, r, hc)
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}
	if !exists(t, namespace) || namespace.Annotations[hcplinkv1beta1.ClusterAnnotation] != ns+"/demo" {
		t.Fatalf("namespace %s not recreated for the cluster: %+v", cp, namespace.ObjectMeta)
	}
	for _, o := range cpObjects(cp, hc.Name) {
		if !exists(t, o) {
			t.Errorf("%T %s was not recreated", o, o.GetName())
		} else if !o.GetDeletionTimestamp().IsZero() {
			t.Errorf("%T %s was recreated deleting", o, o.GetName())
		}
	}
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.ValidConfigurationCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ValidConfiguration = %+v, want True", c)
	}
}

// Issue item 3: once the cluster is being deleted and its namespace is
// gone, the operator brings back just enough for the control-plane
// operator's final customer-side sweep, waits for it, then finishes.
func TestNamespaceGoneDuringDeletionIsRecreatedForTheFinalSweep(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc)
	r, clk := testReconciler(t, awsConfig())
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	forceDeleteNamespace(t, cp, hc.Name)

	reconcileOnce(t, r, hc)
	for _, o := range cpObjects(cp, hc.Name) {
		if !exists(t, o) {
			t.Errorf("%T %s was not recreated for the final sweep", o, o.GetName())
			continue
		}
		// The HostedControlPlane comes back deleting (held by the operator),
		// so that the control-plane operator only sweeps; the rest live.
		_, isHCP := o.(*hcplinkv1beta1.HostedControlPlane)
		if isHCP != !o.GetDeletionTimestamp().IsZero() {
			t.Errorf("%T %s: deletionTimestamp %v", o, o.GetName(), o.GetDeletionTimestamp())
		}
		if isHCP && !contains(o.GetFinalizers(), hcplinkv1beta1.OperatorFinalizer) {
			t.Errorf("HostedControlPlane finalizers %v, want %s", o.GetFinalizers(), hcplinkv1beta1.OperatorFinalizer)
		}
	}
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.DeletingCondition); c == nil || c.Reason != hcplinkv1beta1.WaitingForCloudCleanupReason || !strings.Contains(c.Message, "recreated") {
		t.Errorf("Deleting = %+v, want %s saying the namespace was recreated", c, hcplinkv1beta1.WaitingForCloudCleanupReason)
	}

	f := &deletionFixture{r: r, clock: clk, hc: hc, cp: cp}
	f.assertWaitingForSweep(t)
	f.completeSweep(t)
	f.finish(t)
}

// Issue item 11 (operator part): the control plane's refused credentials
// reach the HostedCluster and lead Available, and the HostedControlPlane's
// Available mirrors the cluster's (its printer column was always empty).
func TestRefusedCredentialsReachTheClusterAndAvailableIsMirrored(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc)
	r, _ := testReconciler(t, awsConfig())
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: "demo"}}

	// The endpoint says AccessDenied; the true cause is the role.
	endpoint := awsEndpointService(cp, "private-router")
	create(t, endpoint)
	setConditions(t, endpoint, &endpoint.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage},
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionFalse, Reason: hcplinkv1beta1.AccessDeniedReason,
			Message: "DescribeSecurityGroups was denied; grant ec2:DescribeSecurityGroups to the role"})
	const refused = "could not assume role arn:aws:iam::222222222222:role/hcplink/demo-control-plane-operator: it does not trust the ServiceAccount"
	setHCPCondition(t, hcp, metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition, Status: metav1.ConditionFalse,
		Reason: hcplinkv1beta1.InvalidCredentialsReason, Message: refused})

	reconcileOnce(t, r, hc)
	get(t, hc)
	c := condition(hc, hcplinkv1beta1.ValidCloudCredentialsCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != hcplinkv1beta1.InvalidCredentialsReason || c.Message != refused {
		t.Errorf("HostedCluster ValidCloudCredentials = %+v, want the HostedControlPlane's", c)
	}
	a := condition(hc, hcplinkv1beta1.AvailableCondition)
	if a == nil || a.Status != metav1.ConditionFalse || a.Reason != hcplinkv1beta1.InvalidCredentialsReason || !strings.HasPrefix(a.Message, "the control-plane operator cannot use its cloud credentials: "+refused) {
		t.Errorf("Available = %+v, want False/%s leading with the refused role", a, hcplinkv1beta1.InvalidCredentialsReason)
	}
	assertMirrored := func() {
		t.Helper()
		get(t, hc)
		get(t, hcp)
		want, got := condition(hc, hcplinkv1beta1.AvailableCondition), findCondition(hcp.Status.Conditions, hcplinkv1beta1.HostedControlPlaneAvailableCondition)
		if got == nil || got.Status != want.Status || got.Reason != want.Reason || got.Message != want.Message {
			t.Errorf("HostedControlPlane Available = %+v, want the cluster's %+v", got, want)
		}
		// The control-plane operator's conditions are left alone.
		if findCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition) == nil {
			t.Error("mirroring Available dropped the control-plane operator's ValidCloudCredentials")
		}
	}
	assertMirrored()

	// The role is fixed and the endpoint works: both become True.
	setHCPCondition(t, hcp, metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition, Status: metav1.ConditionTrue,
		Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage})
	setConditions(t, endpoint, &endpoint.Status.Conditions,
		metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage})
	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.ValidCloudCredentialsCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ValidCloudCredentials = %+v, want True", c)
	}
	if a := condition(hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Status != metav1.ConditionTrue {
		t.Errorf("Available = %+v, want True", a)
	}
	assertMirrored()
}

// TestAzureSettingsVerdictReachesTheCluster: the control-plane operator
// found the cluster's Azure settings wrong (it creates nothing then); the
// HostedCluster shows that verdict, and Available names it as the cause
// rather than the private path that was never made.
func TestAzureSettingsVerdictReachesTheCluster(t *testing.T) {
	ns := env.NewNamespace(t)
	hc := azureCluster(ns, "settings", hcplinkv1beta1.AzureTopologyPrivate)
	create(t, hc)
	r, _ := testReconciler(t, Config{PrivatePlatform: azureplatform.Name, ControlPlaneOperatorImage: testImage})
	reconcileOnce(t, r, hc)
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace(hc), Name: hc.Name}}
	const wrong = "spec.platform.azure.location is westeurope, but the VNet is in eastus: set the VNet's location"
	setHCPCondition(t, hcp, metav1.Condition{Type: hcplinkv1beta1.AzureConfigurationValidCondition, Status: metav1.ConditionFalse,
		Reason: hcplinkv1beta1.AzureLocationMismatchReason, Message: wrong})

	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.AzureConfigurationValidCondition); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != hcplinkv1beta1.AzureLocationMismatchReason || c.Message != wrong {
		t.Errorf("HostedCluster AzureConfigurationValid = %+v, want the HostedControlPlane's", c)
	}
	if a := condition(hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Status != metav1.ConditionFalse ||
		a.Reason != hcplinkv1beta1.InvalidConfigurationReason || !strings.Contains(a.Message, wrong) {
		t.Errorf("Available = %+v, want False/%s naming the wrong setting", a, hcplinkv1beta1.InvalidConfigurationReason)
	}

	setHCPCondition(t, hcp, metav1.Condition{Type: hcplinkv1beta1.AzureConfigurationValidCondition, Status: metav1.ConditionTrue,
		Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage})
	reconcileOnce(t, r, hc)
	get(t, hc)
	if c := condition(hc, hcplinkv1beta1.AzureConfigurationValidCondition); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("AzureConfigurationValid = %+v, want True once the settings are fixed", c)
	}
	if a := condition(hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Reason == hcplinkv1beta1.InvalidConfigurationReason {
		t.Errorf("Available = %+v still blames the settings after they were fixed", a)
	}
}
