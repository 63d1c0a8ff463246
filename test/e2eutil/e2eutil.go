// Package e2eutil is what every end-to-end package (test/e2e on AWS,
// test/e2eazure and test/e2egcp) shares: starting the one devenv
// a package's scenarios use, polling with a deadline and a dump of the
// state when it passes, condition checks, namespaces and names.
package e2eutil

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
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
	"github.com/hcplink/hcplink/internal/testenv"
)

// Deadlines: generous for a loaded 2-core machine, yet a failing scenario
// ends in well under a minute.
const (
	ShortWait = 30 * time.Second
	LongWait  = 90 * time.Second
	PollEvery = 100 * time.Millisecond
)

// startTimeout bounds devenv's start, image builds and cloud fixtures
// included.
const startTimeout = 15 * time.Minute

// Suite is one e2e package's devenv and what a failure there dumps.
type Suite struct {
	// Name prefixes the package's messages outside a test ("e2e").
	Name string
	// Env is the devenv every scenario shares (set by Start); scenarios
	// use their own namespaces and cluster names so that they do not meet.
	Env *devenv.Env
	// CloudLists returns empty lists of the cloud's own kinds
	// (AWSEndpointServiceList, …), dumped after the HostedClusters,
	// NodePools and HostedControlPlanes and before the Services.
	CloudLists func() []client.ObjectList
	// CloudState is the cloud's state for a dump, titled CloudTitle.
	CloudState func() (json.RawMessage, error)
	CloudTitle string
}

// ForAWS is the suite of an AWS package: a failure dumps the
// AWSEndpointServices too, and cloudsim's AWS state.
func ForAWS(name string) *Suite {
	s := &Suite{Name: name, CloudTitle: "cloud state"}
	s.CloudLists = func() []client.ObjectList { return []client.ObjectList{&hcplinkv1beta1.AWSEndpointServiceList{}} }
	s.CloudState = func() (json.RawMessage, error) { return s.Env.Cloud.AWS.Snapshot() }
	return s
}

// ForAzure is the suite of an Azure package: a failure dumps the
// AzurePrivateLinkServices too, and cloudsim's Azure state.
func ForAzure(name string) *Suite {
	s := &Suite{Name: name, CloudTitle: "Azure state"}
	s.CloudLists = func() []client.ObjectList { return []client.ObjectList{&hcplinkv1beta1.AzurePrivateLinkServiceList{}} }
	s.CloudState = func() (json.RawMessage, error) { return s.Env.Cloud.Azure.Snapshot() }
	return s
}

// ForGCP is the suite of a GCP package: a failure dumps the
// GCPPrivateServiceConnects too, and cloudsim's GCP state.
func ForGCP(name string) *Suite {
	s := &Suite{Name: name, CloudTitle: "GCP state"}
	s.CloudLists = func() []client.ObjectList { return []client.ObjectList{&hcplinkv1beta1.GCPPrivateServiceConnectList{}} }
	s.CloudState = func() (json.RawMessage, error) { return s.Env.Cloud.GCP.Snapshot() }
	return s
}

// Start starts the devenv with opts (the package's log and progress
// added) for every scenario of the package; a failure is printed.
func (s *Suite) Start(opts devenv.Options) (*devenv.Env, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	opts.Log = Logger()
	opts.Progress = os.Stderr
	env, err := devenv.Start(ctx, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: starting devenv: %v\n", s.Name, err)
		return nil, err
	}
	s.Env = env
	return env, nil
}

// Stop stops the devenv; a failure is printed.
func (s *Suite) Stop() {
	if err := s.Env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: stopping devenv: %v\n", s.Name, err)
	}
}

// Logger prints the operators' logs only when HCPLINK_E2E_VERBOSE is set;
// a failing scenario dumps the objects instead.
func Logger() logr.Logger {
	if os.Getenv("HCPLINK_E2E_VERBOSE") == "" {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
}

// Eventually polls check until it returns nil or the deadline passes; on
// timeout it fails the test with the last error and a dump of the state.
func (s *Suite) Eventually(t *testing.T, timeout time.Duration, what string, check func(ctx context.Context) error) {
	t.Helper()
	if err := testenv.Poll(context.Background(), timeout, check); err != nil {
		s.DumpState(t)
		t.Fatalf("%s: %v", what, err)
	}
}

// DumpState writes the hcplink objects and the cloud's state to the test
// log, so that a failure explains itself.
func (s *Suite) DumpState(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	lists := []client.ObjectList{&hcplinkv1beta1.HostedClusterList{}, &hcplinkv1beta1.NodePoolList{}, &hcplinkv1beta1.HostedControlPlaneList{}}
	if s.CloudLists != nil {
		lists = append(lists, s.CloudLists()...)
	}
	for _, list := range append(lists, &corev1.ServiceList{}) {
		if err := s.Env.Client.List(ctx, list); err != nil {
			t.Logf("dump: listing %T: %v", list, err)
			continue
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		t.Logf("dump: %T:\n%s", list, b)
	}
	if s.CloudState == nil {
		return
	}
	state, err := s.CloudState()
	if err != nil {
		t.Logf("dump: cloud state: %v", err)
		return
	}
	t.Logf("dump: %s:\n%s", s.CloudTitle, state)
}

// ConditionIs checks one condition's status (and reason, when given).
func ConditionIs(conditions []metav1.Condition, condType string, status metav1.ConditionStatus, reason string) error {
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

// CreateNamespace makes a namespace named prefix-<random>.
func (s *Suite) CreateNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := s.Env.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

// RandomSuffix is n lowercase letters, for infra IDs and names.
func RandomSuffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rand.IntN(26))
	}
	return string(b)
}

// StopOperators stops the management operator and the control-plane
// operator of hcpNamespace, so that nothing repairs what a test breaks,
// and returns what starts them again (at most once; the test's cleanup
// calls it too).
func (s *Suite) StopOperators(t *testing.T, hcpNamespace string) (start func()) {
	t.Helper()
	if err := s.Env.StopOperator(); err != nil {
		t.Fatalf("stopping the operator: %v", err)
	}
	s.Env.StopControlPlaneOperator(hcpNamespace)
	s.Eventually(t, ShortWait, "the control-plane operator to stop", func(context.Context) error {
		if slices.Contains(s.Env.RunningControlPlaneOperators(), hcpNamespace) {
			return fmt.Errorf("%s still runs", hcpNamespace)
		}
		return nil
	})
	started := false
	start = func() {
		if started {
			return
		}
		started = true
		s.Env.StartOperator()
		if err := s.Env.StartControlPlaneOperator(context.Background(), hcpNamespace); err != nil {
			t.Fatalf("starting the control-plane operator: %v", err)
		}
	}
	t.Cleanup(start)
	return start
}
