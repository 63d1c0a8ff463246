package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
)

// env is the one devenv every scenario in this package shares; scenarios
// use their own namespaces and cluster names so that they do not meet.
var env *devenv.Env

// Deadlines: generous for a loaded 2-core machine, yet a failing scenario
// ends in well under a minute.
const (
	shortWait = 30 * time.Second
	longWait  = 90 * time.Second
	pollEvery = 100 * time.Millisecond
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var err error
	env, err = devenv.Start(ctx, devenv.Options{Log: testLogger(), Progress: os.Stderr, DriftInterval: 20 * time.Second,
		// The third account is the events scenario's alone: its call counts tell its passes.
		CustomerAccounts: 3})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting devenv: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: stopping devenv: %v\n", err)
	}
	return code
}

// testLogger prints the operators' logs only when HCPLINK_E2E_VERBOSE is set;
// a failing scenario dumps the objects instead.
func testLogger() logr.Logger {
	if os.Getenv("HCPLINK_E2E_VERBOSE") == "" {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
}

// eventually polls check until it returns nil or the deadline passes; on
// timeout it fails the test with the last error and a dump of the state.
func eventually(t *testing.T, timeout time.Duration, what string, check func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		if last = check(ctx); last == nil {
			return
		}
		select {
		case <-ctx.Done():
			dumpState(t)
			t.Fatalf("waiting %v for %s: %v", timeout, what, last)
		case <-time.After(pollEvery):
		}
	}
}

// dumpState writes the hcplink objects and the cloud's state to the test
// log, so that a failure explains itself.
func dumpState(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	lists := []client.ObjectList{
		&hcplinkv1beta1.HostedClusterList{}, &hcplinkv1beta1.NodePoolList{}, &hcplinkv1beta1.HostedControlPlaneList{},
		&hcplinkv1beta1.AWSEndpointServiceList{}, &corev1.ServiceList{},
	}
	for _, list := range lists {
		if err := env.Client.List(ctx, list); err != nil {
			t.Logf("dump: listing %T: %v", list, err)
			continue
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		t.Logf("dump: %T:\n%s", list, b)
	}
	state, err := env.Cloud.AWS.Snapshot()
	if err != nil {
		t.Logf("dump: cloud state: %v", err)
		return
	}
	t.Logf("dump: cloud state:\n%s", state)
}

// conditionIs checks one condition's status (and reason, when given).
func conditionIs(conditions []metav1.Condition, condType string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(conditions, condType)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition yet", condType)
	case c.Status != status:
		return fmt.Errorf("%s is %s (%s: %s), want %s", condType, c.Status, c.Reason, c.Message, status)
	case reason != "" && c.Reason != reason:
		return fmt.Errorf("%s reason is %s (%s), want %s", condType, c.Reason, c.Message, reason)
	}
	return nil
}

func createNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

// clusterSpec describes an AWS hosted cluster for a scenario.
type clusterSpec struct {
	namespace, name string
	access          hcplinkv1beta1.AWSEndpointAccessType
	nodePoolZones   []string // one NodePool per entry, in the customer subnet of that zone
}

// createAWSCluster prepares the customer side (role, zone) and creates the
// HostedCluster and its NodePools.
func createAWSCluster(t *testing.T, spec clusterSpec) *hcplinkv1beta1.HostedCluster {
	t.Helper()
	ctx := context.Background()
	infraID := spec.name + "-" + strings.ToLower(randomSuffix(5))
	fixture, err := env.PrepareAWSCluster(ctx, spec.namespace, spec.name, infraID)
	if err != nil {
		t.Fatalf("preparing the customer account: %v", err)
	}
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: spec.namespace, Name: spec.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: infraID,
			DNS:     hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{
				MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}},
			},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type:  hcplinkv1beta1.RoutePublishing,
					Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + spec.name + ".example.test"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS: &hcplinkv1beta1.AWSPlatformSpec{
					Region:              devenv.Region,
					EndpointAccess:      spec.access,
					CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
					RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: fixture.ControlPlaneOperatorRoleARN},
				},
			},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("creating HostedCluster: %v", err)
	}
	for i, zone := range spec.nodePoolZones {
		createNodePool(t, spec.namespace, fmt.Sprintf("%s-np%d", spec.name, i+1), spec.name, env.Customer.SubnetByAZ[zone])
	}
	return hc
}

func createNodePool(t *testing.T, namespace, name, cluster, subnet string) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: cluster,
			Platform: hcplinkv1beta1.NodePoolPlatform{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS:  &hcplinkv1beta1.AWSNodePoolPlatform{Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: subnet}},
			},
		},
	}
	if err := env.Client.Create(context.Background(), np); err != nil {
		t.Fatalf("creating NodePool %s: %v", name, err)
	}
}

func randomSuffix(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	seed := time.Now().UnixNano()
	for i := range b {
		seed = seed*6364136223846793005 + 1442695040888963407
		b[i] = letters[int(uint64(seed)>>33)%len(letters)]
	}
	return string(b)
}
