package e2egcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/operator/platform"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// otherManagement is a second management cluster in devenv's management
// project: its own API server, its own network (nodes subnetwork, two PSC
// NAT subnetworks), its own service account holding the management
// operator's custom role, and hcplink's GCP controller registered as
// `hcplink operator --private-platform GCP` registers it, under its own
// management cluster ID.
type otherManagement struct {
	kube              *testenv.Env
	network, nodes    string
	natSubnets        []string
	operatorPrincipal string // as Compute Engine's operations name their user
}

// TestTwoManagementClustersInOneProject: devenv's management cluster and
// another in the same project, each serving a cluster of the same infra ID
// and name, with router rules at the same address in their own networks.
// Each publishes its own rule from its own NAT pool; deleting one side's
// cluster leaves the other's attachment, rule and NAT subnetworks as they
// were; and Google's history shows neither operator ever changed a
// resource of the other.
func TestTwoManagementClustersInOneProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	other := startOtherManagement(t)
	a := createCluster(t, "twomgmt", hcplinkv1beta1.GCPEndpointAccessPrivate)
	a.waitAvailable(t)
	pa := a.waitPath(t, a.fixture.Subnet)

	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The other side's router: a rule at the same address, in its network.
	ruleB := "router-" + strings.ToLower(a.infraID)
	adminDo(t)(cc.ForwardingRules.Insert(devenv.GCPManagementProject, devenv.GCPRegion, &compute.ForwardingRule{Name: ruleB,
		LoadBalancingScheme: "INTERNAL", BackendService: "regions/" + devenv.GCPRegion + "/backendServices/" + ruleB,
		Network: "global/networks/" + other.network, Subnetwork: "regions/" + devenv.GCPRegion + "/subnetworks/" + other.nodes,
		IPAddress: pa.rule.IPAddress, Ports: []string{"443"}}).Do())
	t.Cleanup(func() { deleteAsAdmin(t, cc, "forwardingRules", ruleB) })
	crB := other.serve(t, a)
	t.Cleanup(func() { other.deleteAndWait(t, crB) })
	var saB *compute.ServiceAttachment
	suite.Eventually(t, e2eutil.ShortWait, "the other management cluster's attachment", func(ctx context.Context) error {
		if err := other.kube.Client.Get(ctx, client.ObjectKeyFromObject(crB), crB); err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(crB.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		saB, err = cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, crB.Status.ServiceAttachmentName).Context(ctx).Do()
		return err
	})
	if saB.Name == pa.attachment.Name || lastSegment(saB.TargetService) != ruleB || len(saB.NatSubnets) != 1 || !slices.Contains(other.natSubnets, lastSegment(saB.NatSubnets[0])) {
		t.Fatalf("the other side's attachment %s publishes %s from %v; want its own name, rule %s and one of its NAT subnetworks %v (this side's: %s)",
			saB.Name, saB.TargetService, saB.NatSubnets, ruleB, other.natSubnets, pa.attachment.Name)
	}

	mine := []string{pa.attachment.Name, pa.rule.Name, lastSegment(pa.attachment.NatSubnets[0])}
	theirs := append([]string{saB.Name, ruleB, other.nodes}, other.natSubnets...)
	a.deleteAndCheckNothingLeftBut(t, theirs...)
	if got, err := cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, saB.Name).Do(); err != nil || got.Id != saB.Id ||
		!slices.Equal(got.NatSubnets, saB.NatSubnets) || got.TargetService != saB.TargetService {
		t.Fatalf("the other side's attachment after this side's cluster was deleted: %+v, %v", got, err)
	}
	// The other side's cluster goes too.
	other.deleteAndWait(t, crB)
	if _, err := cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, pa.attachment.Name).Do(); !isNotFound(err) {
		t.Errorf("this side's attachment %s after both clusters were deleted: %v", pa.attachment.Name, err)
	}
	// Neither operator touched the other's resources, in Google's own
	// record of who changed what.
	h, err := history(ctx, devenv.GCPManagementProject, func(name string) bool {
		return slices.Contains(mine, name) || slices.Contains(theirs, name)
	})
	if err != nil {
		t.Fatal(err)
	}
	touched := map[string]int{}
	for _, ch := range h {
		switch {
		case ch.user == principalEmail(env.GCPOperatorServiceAccount) && slices.Contains(theirs, ch.name),
			ch.user == other.operatorPrincipal && slices.Contains(mine, ch.name):
			touched[ch.user+" "+ch.kind+" "+ch.collection+"/"+ch.name]++
		}
	}
	if len(touched) > 0 {
		t.Errorf("an operator changed the other management cluster's resources: %v", touched)
	}
	if n := count(h, "serviceAttachments", "delete"); n != 2 {
		t.Errorf("%d attachment deletions, want 2 (one per side): %+v", n, h)
	}
	t.Logf("%d changes of the two sides' resources, none by the other side", len(h))
}

// startOtherManagement starts the second management cluster; the test's
// cleanup stops it and removes its network.
func startOtherManagement(t *testing.T) *otherManagement {
	t.Helper()
	ctx := context.Background()
	suffix := e2eutil.RandomSuffix(5)
	m := &otherManagement{network: "management-" + suffix, nodes: "nodes-" + suffix,
		natSubnets: []string{"psc-nat-" + suffix + "-1", "psc-nat-" + suffix + "-2"}}
	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Its network overlaps devenv's management network's ranges, as two
	// VPC networks may.
	adminDo(t)(cc.Networks.Insert(devenv.GCPManagementProject, &compute.Network{Name: m.network, ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	t.Cleanup(func() { deleteAsAdmin(t, cc, "networks", m.network) })
	for i, s := range append([]string{m.nodes}, m.natSubnets...) {
		sub := &compute.Subnetwork{Name: s, Network: "global/networks/" + m.network, IpCidrRange: "10.0.0.0/24"}
		if i > 0 {
			sub.Purpose, sub.IpCidrRange = gcpcloud.PurposePrivateServiceConnect, fmt.Sprintf("10.1.0.%d/28", 16*(i-1))
		}
		adminDo(t)(cc.Subnetworks.Insert(devenv.GCPManagementProject, devenv.GCPRegion, sub).Do())
		t.Cleanup(func() { deleteAsAdmin(t, cc, "subnetworks", s) })
	}

	sa, err := env.Cloud.GCP.AddServiceAccount(devenv.GCPManagementProject, "hcplink-operator-"+suffix, "the other management cluster's operator")
	if err != nil {
		t.Fatal(err)
	}
	m.operatorPrincipal = sa.Email
	role := "projects/" + devenv.GCPManagementProject + "/roles/" + gcpcloud.RoleID(gcpcloud.ManagementOperator)
	if err := env.Cloud.GCP.Grant(devenv.GCPManagementProject, role, "serviceAccount:"+sa.Email, nil); err != nil {
		t.Fatal(err)
	}
	key, err := env.Cloud.GCP.AddServiceAccountKey(sa.Email, env.CloudURL+"/oauth2/token")
	if err != nil {
		t.Fatal(err)
	}

	if m.kube, err = testenv.New(ctx, testenv.Options{}); err != nil {
		t.Fatalf("starting the other management cluster's API server: %v", err)
	}
	t.Cleanup(func() {
		if err := m.kube.Stop(); err != nil {
			t.Error(err)
		}
	})
	mgr, err := ctrl.NewManager(m.kube.Config, ctrl.Options{Scheme: m.kube.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	gcp := gcpplatform.Platform(gcpplatform.Options{Project: devenv.GCPManagementProject, Region: devenv.GCPRegion, Network: m.network,
		Cloud: gcpcloud.Config{CredentialsJSON: key, ComputeEndpoint: env.GCPComputeEndpoint, DNSEndpoint: env.GCPDNSEndpoint}})
	runCtx, cancel := context.WithCancel(ctx)
	if _, err := gcp.Setup(runCtx, mgr, platform.SetupOptions{ManagementClusterID: "e2e-other-" + suffix, DriftInterval: driftInterval}); err != nil {
		cancel()
		t.Fatalf("setting up the other management cluster's GCP controller: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the other management cluster's controller: %v", err)
		}
	})
	return m
}

// serve makes, in the other management cluster, a HostedCluster of the
// same namespace, name and spec as c's, and its GCPPrivateServiceConnect
// at the address of the rule made for it, as its control-plane operator
// would.
func (m *otherManagement) serve(t *testing.T, c *cluster) *hcplinkv1beta1.GCPPrivateServiceConnect {
	t.Helper()
	ctx := context.Background()
	hcA, err := c.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	crA, err := c.psc(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{c.Namespace, c.HCPNamespace} {
		if err := m.kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}, Spec: *hcA.Spec.DeepCopy()}
	if err := m.kube.Client.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.HCPNamespace, Name: crA.Name, Annotations: map[string]string{
			hcplinkv1beta1.ClusterAnnotation: hcplinkv1beta1.ClusterAnnotationValue(c.Namespace, c.Name)}},
		Spec: *crA.Spec.DeepCopy(),
	}
	if err := m.kube.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// deleteAndWait deletes the other side's GCPPrivateServiceConnect and
// waits until its controller has let it go.
func (m *otherManagement) deleteAndWait(t *testing.T, cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	t.Helper()
	if err := m.kube.Client.Delete(context.Background(), cr); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	suite.Eventually(t, e2eutil.ShortWait, "the other side's GCPPrivateServiceConnect to be deleted", func(ctx context.Context) error {
		if err := m.kube.Client.Get(ctx, client.ObjectKeyFromObject(cr), &hcplinkv1beta1.GCPPrivateServiceConnect{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})
}

// adminDo waits for an administrator's Compute Engine change to be done:
// adminDo(t)(call.Do()).
func adminDo(t *testing.T) func(*compute.Operation, error) {
	return func(op *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		waitOperation(t, op)
	}
}

func waitOperation(t *testing.T, op *compute.Operation) {
	t.Helper()
	cc, err := computeClient(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	suite.Eventually(t, e2eutil.ShortWait, "operation "+op.Name, func(ctx context.Context) error {
		var got *compute.Operation
		if op.Region != "" {
			got, err = cc.RegionOperations.Get(devenv.GCPManagementProject, devenv.GCPRegion, op.Name).Context(ctx).Do()
		} else {
			got, err = cc.GlobalOperations.Get(devenv.GCPManagementProject, op.Name).Context(ctx).Do()
		}
		if err != nil {
			return err
		}
		if got.Status != "DONE" {
			return fmt.Errorf("%s", got.Status)
		}
		if got.Error != nil && len(got.Error.Errors) > 0 {
			t.Fatalf("operation %s failed: %s", op.Name, got.Error.Errors[0].Message)
		}
		return nil
	})
}

// deleteAsAdmin deletes a resource of the management project made for a
// scenario, and waits until it is gone.
func deleteAsAdmin(t *testing.T, cc *compute.Service, collection, name string) {
	t.Helper()
	var op *compute.Operation
	var err error
	switch collection {
	case "forwardingRules":
		op, err = cc.ForwardingRules.Delete(devenv.GCPManagementProject, devenv.GCPRegion, name).Do()
	case "subnetworks":
		op, err = cc.Subnetworks.Delete(devenv.GCPManagementProject, devenv.GCPRegion, name).Do()
	case "networks":
		op, err = cc.Networks.Delete(devenv.GCPManagementProject, name).Do()
	}
	if isNotFound(err) {
		return
	}
	if err != nil {
		t.Errorf("deleting %s %s: %v", collection, name, err)
		return
	}
	waitOperation(t, op)
}

// principalEmail is the email of "serviceAccount:EMAIL" (or EMAIL).
func principalEmail(member string) string { return strings.TrimPrefix(member, "serviceAccount:") }
