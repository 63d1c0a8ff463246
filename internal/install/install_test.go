package install

import (
	"bytes"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/config/crd"
	"github.com/hcplink/hcplink/internal/testenv"
)

// lifecycleOptions install with a credentials file, so that install's own
// Secret is part of every step.
func lifecycleOptions(namespace string) Options {
	return Options{Namespace: namespace, PrivatePlatform: "AWS",
		AWS: AWSCredentials{Region: "us-east-1", CredentialsFile: []byte("[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = example\n")}}
}

// TestInstallLifecycle runs install as a user would on a real API server:
// a dry run writes nothing, apply creates every object, applying again
// changes nothing, uninstall refuses while a HostedCluster exists and then
// removes what install made, keeping a CRD whose objects remain.
func TestInstallLifecycle(t *testing.T) {
	c := kube(t)
	ns := "hcplink-lifecycle"
	opts := lifecycleOptions(ns)
	objs, err := Objects(opts)
	if err != nil {
		t.Fatal(err)
	}

	// A dry run: the API server validates every object, nothing is written.
	var progress bytes.Buffer
	results, err := Apply(t.Context(), c, opts, ApplyOptions{DryRun: true, Progress: &progress})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if len(results) != len(objs) {
		t.Fatalf("dry run reported %d objects, want %d", len(results), len(objs))
	}
	for _, r := range results {
		if !strings.Contains(r.Note, "dry run") {
			t.Errorf("%s: the line does not say it was a dry run", r)
		}
		if r.Kind != "CustomResourceDefinition" && r.Outcome != Created {
			t.Errorf("%s: want created (nothing exists yet)", r)
		}
	}
	for _, obj := range objs {
		if obj.GetObjectKind().GroupVersionKind().Kind == "CustomResourceDefinition" {
			continue // envtest installed them
		}
		if exists(t, c, obj) {
			t.Errorf("the dry run wrote %s %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
		}
	}
	t.Logf("dry run:\n%s", progress.String())

	// Apply, then apply again: the second is a no-op.
	if _, err := Apply(t.Context(), c, opts, ApplyOptions{}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	before := resourceVersions(t, c, objs)
	results, err = Apply(t.Context(), c, opts, ApplyOptions{})
	if err != nil {
		t.Fatalf("second apply: %v", err)
	}
	for _, r := range results {
		if r.Outcome != Unchanged {
			t.Errorf("second apply: %s, want unchanged", r)
		}
	}
	if after := resourceVersions(t, c, objs); !equalMaps(before, after) {
		t.Errorf("the second apply wrote objects: resource versions %v became %v", before, after)
	}
	// A changed option is configured in place, and a dry run of it says so
	// without writing it.
	changed := opts
	changed.Replicas = 3
	results, err = Apply(t.Context(), c, changed, ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomeOf(results, "Deployment"); got != Configured {
		t.Errorf("a dry run with --replicas 3 says the Deployment is %q, want configured", got)
	}
	d := &appsv1.Deployment{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: operatorName}, d); err != nil || *d.Spec.Replicas != DefaultReplicas {
		t.Errorf("after the dry run the Deployment has %v replicas (error %v), want still %d", d.Spec.Replicas, err, DefaultReplicas)
	}

	// Uninstall refuses while a HostedCluster exists, and removes nothing.
	hcNS := env.NewNamespace(t)
	hc := privateAWSCluster(hcNS, "waiting")
	if err := c.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	err = Uninstall(t.Context(), c, UninstallOptions{Namespace: ns})
	if err == nil || !strings.Contains(err.Error(), hcNS+"/waiting") {
		t.Fatalf("uninstall with a HostedCluster = %v, want a refusal naming %s/waiting", err, hcNS)
	}
	if !exists(t, c, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorName}}) {
		t.Fatal("the refused uninstall deleted the Deployment")
	}

	// Once the cluster is gone, uninstall removes what install made. A
	// NodePool left behind keeps its CRD.
	if err := c.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyWithin(t, settleWithin, "the HostedCluster to go", func() (bool, error) { return !exists(t, c, hc), nil })
	np := &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: hcNS, Name: "left-behind"},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: "waiting", Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform}}}
	if err := c.Create(t.Context(), np); err != nil {
		t.Fatal(err)
	}
	progress.Reset()
	if err := Uninstall(t.Context(), c, UninstallOptions{Namespace: ns, Progress: &progress}); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	t.Logf("uninstall:\n%s", progress.String())
	for _, obj := range objs {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		gone := !exists(t, c, obj) || beingDeleted(t, c, obj) // envtest runs no namespace controller
		switch {
		case obj.GetName() == "nodepools.hcplink.io":
			if gone {
				t.Error("uninstall deleted the NodePool CRD while a NodePool remains")
			}
		case !gone:
			t.Errorf("uninstall left %s %s", kind, obj.GetName())
		}
	}
	if !strings.Contains(progress.String(), "customresourcedefinition nodepools.hcplink.io kept (NodePool objects remain: "+hcNS+"/left-behind)") {
		t.Errorf("uninstall did not say why it kept the NodePool CRD:\n%s", progress.String())
	}
	if err := Uninstall(t.Context(), c, UninstallOptions{Namespace: ns}); err != nil {
		t.Errorf("uninstall run again: %v, want nil (re-running is safe)", err)
	}
	// Put the CRDs back for the other tests, once the deleted ones are gone.
	restoreCRDs(t, c)
}

// privateAWSCluster is a valid private AWS HostedCluster.
func privateAWSCluster(namespace, name string) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    name + "-x7k2p",
			ClusterID:  "0f3c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}},
				{Service: hcplinkv1beta1.OAuthServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "oauth.demo.example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              "us-east-1",
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0", Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: "subnet-0a1b2c3d4e5f60718"}, Zone: "us-east-1a"},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/hcplink/demo-control-plane-operator"},
			}},
		},
	}
}

func exists(t *testing.T, c client.Client, obj client.Object) bool {
	t.Helper()
	u := asUnstructured(t, c, obj)
	err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), u)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func beingDeleted(t *testing.T, c client.Client, obj client.Object) bool {
	t.Helper()
	u := asUnstructured(t, c, obj)
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), u); err != nil {
		return apierrors.IsNotFound(err)
	}
	return u.GetDeletionTimestamp() != nil
}

// asUnstructured is an empty object of obj's kind, so that reading it
// never fills obj itself.
func asUnstructured(t *testing.T, c client.Client, obj client.Object) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		g, err := c.GroupVersionKindFor(obj)
		if err != nil {
			t.Fatal(err)
		}
		gvk = g
	}
	u.SetGroupVersionKind(gvk)
	return u
}

func resourceVersions(t *testing.T, c client.Client, objs []client.Object) map[string]string {
	t.Helper()
	rvs := map[string]string{}
	for _, obj := range objs {
		u := asUnstructured(t, c, obj)
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), u); err != nil {
			t.Fatal(err)
		}
		rvs[u.GetKind()+"/"+u.GetName()] = u.GetResourceVersion()
	}
	return rvs
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func outcomeOf(results []Result, kind string) Outcome {
	for _, r := range results {
		if r.Kind == kind {
			return r.Outcome
		}
	}
	return ""
}

// restoreCRDs waits until the CRDs uninstall deleted are gone, applies
// them again and waits until they are served.
func restoreCRDs(t *testing.T, c client.Client) {
	t.Helper()
	testenv.EventuallyWithin(t, settleWithin, "the deleted CRDs to go", func() (bool, error) {
		for _, name := range []string{"hostedclusters.hcplink.io", "hostedcontrolplanes.hcplink.io", "awsendpointservices.hcplink.io"} {
			if exists(t, c, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}) {
				return false, nil
			}
		}
		return true, nil
	})
	if _, err := Apply(t.Context(), c, Options{Namespace: "hcplink-restore"}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCRDs(t, c)
}

// waitForCRDs waits until every hcplink CRD install applies is
// established.
func waitForCRDs(t *testing.T, c client.Client) {
	t.Helper()
	want, err := crd.CustomResourceDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyWithin(t, settleWithin, "the hcplink CRDs to be established", func() (bool, error) {
		list := &apiextensionsv1.CustomResourceDefinitionList{}
		if err := c.List(t.Context(), list); err != nil {
			return false, err
		}
		established := 0
		for _, crd := range list.Items {
			for _, cond := range crd.Status.Conditions {
				if crd.Spec.Group == hcplinkv1beta1.GroupName && cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					established++
				}
			}
		}
		return established == len(want), nil
	})
}
