package testenv

import (
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// Logger logs to t until t's cleanups have run, and drops lines after that.
// A controller-runtime manager logs from goroutines that can outlive Start
// ("Stopping and waiting for ..."); testr would panic the whole test binary
// on such a line, this logger does not.
func Logger(t testing.TB) logr.Logger {
	var mu sync.Mutex
	ended := false
	// Registered first, so it runs after every cleanup the test adds later,
	// including the one that stops the manager.
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
	})
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if prefix != "" {
			t.Log(prefix + ": " + args)
			return
		}
		t.Log(args)
	}, funcr.Options{Verbosity: 1})
}
