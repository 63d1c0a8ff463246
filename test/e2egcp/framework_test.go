// Package e2egcp runs GCP private clusters end to end on a GCP devenv:
// the management operator signed in with its service account's key, the
// control-plane operators by workload identity federation through the
// customer's pool provider trusting the management cluster's issuer, the
// stand-in for GKE's load-balancer controller, and cloudsim's GCP read back
// through Google's own Go clients.
package e2egcp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// env is the one GCP devenv every scenario shares; scenarios use their own
// namespaces and cluster names.
var env *devenv.Env

// suite is the package's share of the e2e helpers.
var suite = e2eutil.ForGCP("e2egcp")

// driftInterval is both operators' drift check here: short, so that a
// drift scenario sees a repair within seconds, yet well above oneReconcile.
const driftInterval = 20 * time.Second

// natSubnets: one service attachment per PSC NAT subnetwork, and the
// scenarios run at once.
const natSubnets = 8

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
	var err error
	env, err = suite.Start(devenv.Options{Platform: devenv.PlatformGCP, DriftInterval: driftInterval, GCPNATSubnets: natSubnets})
	if err != nil {
		return 1
	}
	defer suite.Stop()
	code := m.Run()
	if code == 0 {
		code = checkNothingLeft()
	}
	return code
}

func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkNothingLeft runs after every scenario has deleted its cluster:
// neither project may hold anything but devenv's fixtures.
func checkNothingLeft() int {
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.ShortWait)
	defer cancel()
	for {
		left, err := leftovers(ctx, allProjects()...)
		if err == nil && len(left) == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			if err != nil {
				fmt.Fprintf(os.Stderr, "e2egcp: listing what is left in the cloud: %v\n", err)
			} else {
				fmt.Fprintf(os.Stderr, "e2egcp: left in the cloud after every cluster was deleted: %v\n", left)
			}
			return 1
		case <-time.After(e2eutil.PollEvery):
		}
	}
}
