// Package e2eazure runs Azure private clusters end to end on an Azure
// devenv: the management operator with its own service principal, the
// control-plane operators signed in with workload identity, the
// load-balancer stand-in, and cloudsim's Azure read back through the real
// SDK.
package e2eazure

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
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

// env is the one Azure devenv every scenario shares; scenarios use their
// own namespaces and cluster names.
var env *devenv.Env

// driftInterval is both operators' drift check here: short, so that a
// drift scenario sees a repair within seconds, yet well above oneReconcile.
const driftInterval = 20 * time.Second

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
	flag.Parse()
	// Scenarios mostly wait on the operators' polls, not on the CPU: run
	// them all at once unless -parallel says otherwise.
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", "8")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var err error
	// Scenarios run at once, more than the 8 Private Link Services one
	// internal load balancer takes: the management cluster has several,
	// and the operator places each cluster on one.
	env, err = devenv.Start(ctx, devenv.Options{Platform: devenv.PlatformAzure, Log: testLogger(), Progress: os.Stderr, DriftInterval: driftInterval,
		AzureLoadBalancerConfigurations: []string{"kubernetes", "lb-2", "lb-3"}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2eazure: starting devenv: %v\n", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		code = checkNothingLeft()
	}
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "e2eazure: stopping devenv: %v\n", err)
	}
	return code
}

func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkNothingLeft runs after every scenario has deleted its cluster:
// neither subscription may hold anything but devenv's fixtures.
func checkNothingLeft() int {
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	for {
		left, err := leftovers(ctx)
		if err == nil && len(left) == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			if err != nil {
				fmt.Fprintf(os.Stderr, "e2eazure: listing what is left in the cloud: %v\n", err)
			} else {
				fmt.Fprintf(os.Stderr, "e2eazure: left in the cloud after every cluster was deleted: %v\n", ids(left))
			}
			return 1
		case <-time.After(pollEvery):
		}
	}
}

// testLogger prints the operators' logs only when HCPLINK_E2E_VERBOSE is
// set; a failing scenario dumps the objects instead.
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

// dumpState writes the hcplink objects and cloudsim's Azure state to the
// test log, so that a failure explains itself.
func dumpState(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, list := range []client.ObjectList{
		&hcplinkv1beta1.HostedClusterList{}, &hcplinkv1beta1.NodePoolList{}, &hcplinkv1beta1.HostedControlPlaneList{},
		&hcplinkv1beta1.AzurePrivateLinkServiceList{}, &corev1.ServiceList{},
	} {
		if err := env.Client.List(ctx, list); err != nil {
			t.Logf("dump: listing %T: %v", list, err)
			continue
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		t.Logf("dump: %T:\n%s", list, b)
	}
	state, err := env.Cloud.Azure.Snapshot()
	if err != nil {
		t.Logf("dump: cloud state: %v", err)
		return
	}
	t.Logf("dump: Azure state:\n%s", state)
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

// randomSuffix is n lowercase letters, for infra IDs.
func randomSuffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rand.IntN(26))
	}
	return string(b)
}
