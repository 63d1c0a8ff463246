// Package e2eazure runs Azure private clusters end to end on an Azure
// devenv: the management operator and the control-plane operators signed
// in with workload identity as the identities `hcplink create iam azure
// --operator` and `create iam azure` make, the load-balancer stand-in, and
// cloudsim's Azure read back through the real SDK.
package e2eazure

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

// env is the one Azure devenv every scenario shares; scenarios use their
// own namespaces and cluster names.
var env *devenv.Env

// suite is the package's share of the e2e helpers.
var suite = e2eutil.ForAzure("e2eazure")

// driftInterval is both operators' drift check here: short, so that a
// drift scenario sees a repair within seconds, yet well above oneReconcile.
const driftInterval = 20 * time.Second

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
	// Scenarios run at once, more than the 8 Private Link Services one
	// internal load balancer takes: the management cluster has several,
	// and the operator places each cluster on one.
	env, err = suite.Start(devenv.Options{Platform: devenv.PlatformAzure, DriftInterval: driftInterval,
		AzureLoadBalancerConfigurations: []string{"kubernetes", "lb-2", "lb-3"}})
	if err != nil {
		return 1
	}
	defer suite.Stop()
	code := m.Run()
	if code == 0 {
		code = checkNothingLeft()
	}
	if code == 0 {
		code = checkSharedNATSubnetDeleted()
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
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.ShortWait)
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
		case <-time.After(e2eutil.PollEvery):
		}
	}
}
