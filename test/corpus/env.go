package corpus

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/hcplink/hcplink/internal/devenv"
)

// Deadlines: generous for a loaded 2-core machine, yet a failing case ends
// in well under a minute.
const (
	shortWait = 30 * time.Second
	longWait  = 90 * time.Second
	pollEvery = 100 * time.Millisecond
)

// env is the package's devenv, started by Main.
var env *devenv.Env

// Main is a corpus package's TestMain: it starts a devenv of platform
// (one per process: two would register the same controller names), runs
// the tests and stops it.
func Main(m *testing.M, platform devenv.Platform) int {
	flag.Parse()
	// Cases mostly wait on the operators, not on the CPU: run many at once.
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", "16")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var err error
	if env, err = devenv.Start(ctx, devenv.Options{Platform: platform, Log: testLogger(), Progress: os.Stderr}); err != nil {
		fmt.Fprintf(os.Stderr, "corpus: starting the %s devenv: %v\n", platform, err)
		return 1
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "corpus: stopping the devenv: %v\n", err)
	}
	return code
}

// Env is the devenv Main started.
func Env() *devenv.Env { return env }

func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// testLogger prints the operators' logs only when HCPLINK_E2E_VERBOSE is set.
func testLogger() logr.Logger {
	if os.Getenv("HCPLINK_E2E_VERBOSE") == "" {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
}
