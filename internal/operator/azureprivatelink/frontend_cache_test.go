package azureprivatelink

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// One listing finds every cluster's frontend; an address it lacks is
// looked for in a listing begun after the lookup, shared by every lookup
// that missed meanwhile; a listing older than the TTL is made again; a
// failed listing is returned to those that waited for it, not repeated.
func TestFrontendCache(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var lists atomic.Int64
	var mu sync.Mutex
	have := []Frontend{{PrivateIP: "10.0.1.1"}, {PrivateIP: "10.0.1.2"}}
	var fail error
	list := func(context.Context) ([]Frontend, error) {
		lists.Add(1)
		mu.Lock()
		defer mu.Unlock()
		return append([]Frontend(nil), have...), fail
	}
	var c frontendCache
	lookup := func(ip string) ([]Frontend, error) {
		return c.lookup(t.Context(), ip, clock, time.Minute, list)
	}
	for _, ip := range []string{"10.0.1.1", "10.0.1.2", "10.0.1.1"} {
		if got, err := lookup(ip); err != nil || len(got) != 1 {
			t.Fatalf("lookup(%s) = %v, %v", ip, got, err)
		}
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("%d listings for addresses one listing holds, want 1", n)
	}

	// A wave of new frontends: the first miss lists again, the others
	// that missed at the same time share it.
	mu.Lock()
	for _, ip := range []string{"10.0.1.3", "10.0.1.4", "10.0.1.5", "10.0.1.6"} {
		have = append(have, Frontend{PrivateIP: ip})
	}
	mu.Unlock()
	var wg sync.WaitGroup
	for _, ip := range []string{"10.0.1.3", "10.0.1.4", "10.0.1.5", "10.0.1.6"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := lookup(ip); err != nil || len(got) != 1 {
				t.Errorf("lookup(%s) = %v, %v", ip, got, err)
			}
		}()
	}
	wg.Wait()
	if n := lists.Load(); n < 2 || n > 3 {
		t.Errorf("%d listings after a wave of four new frontends, want one or two more", n-1)
	}

	// An address no load balancer holds is listed for once per lookup.
	before := lists.Load()
	if got, err := lookup("10.0.9.9"); err != nil || len(got) != 0 {
		t.Errorf("lookup of an unknown address = %v, %v", got, err)
	}
	if n := lists.Load() - before; n != 1 {
		t.Errorf("%d listings for an unknown address, want 1", n)
	}

	// Past the TTL even a known address is listed again.
	now = now.Add(2 * time.Minute)
	before = lists.Load()
	if _, err := lookup("10.0.1.1"); err != nil || lists.Load()-before != 1 {
		t.Errorf("a stale listing was used (%d listings, %v)", lists.Load()-before, err)
	}

	// A failed listing is the answer, not repeated by the same lookup.
	mu.Lock()
	fail = errors.New("throttled")
	mu.Unlock()
	before = lists.Load()
	if _, err := lookup("10.0.7.7"); err == nil || lists.Load()-before != 1 {
		t.Errorf("a failed listing: err %v after %d listings, want the error after 1", err, lists.Load()-before)
	}
}
