package azureprivatelink

import (
	"context"
	"slices"
	"sync"
	"time"
)

// frontendCache batches the search for each cluster's load balancer
// frontend: one listing of the management cluster's load balancers (every
// internal frontend, by address) serves every object, as the listing of
// Private Link Services does. An address the listing lacks may belong to a
// frontend made after it started, so it is looked for in a listing that
// started after the lookup did — one shared by every object that missed
// meanwhile, so a wave of new clusters costs a listing or two, not one
// each.
type frontendCache struct {
	mu     sync.Mutex
	byIP   map[string][]Frontend
	readAt time.Time
	// started counts the listings begun; listed is the number of the one
	// byIP comes from, failed (with err) of the last that failed.
	started, listed, failed uint64
	err                     error
	inflight                chan struct{}
}

// lookup returns the frontends holding ip: from the current listing when
// it is younger than ttl and has the address, else from a listing begun
// after this call (list makes it).
func (c *frontendCache) lookup(ctx context.Context, ip string, now func() time.Time, ttl time.Duration, list func(context.Context) ([]Frontend, error)) ([]Frontend, error) {
	c.mu.Lock()
	after := c.started
	for {
		fresh := c.byIP != nil && now().Sub(c.readAt) < ttl
		if fresh && (len(c.byIP[ip]) > 0 || c.listed > after) {
			found := slices.Clone(c.byIP[ip])
			c.mu.Unlock()
			return found, nil
		}
		if c.err != nil && c.failed > after {
			err := c.err
			c.mu.Unlock()
			return nil, err
		}
		if wait := c.inflight; wait != nil {
			c.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			c.mu.Lock()
			continue
		}
		c.started++
		n, done := c.started, make(chan struct{})
		c.inflight = done
		c.mu.Unlock()

		// Detached from the caller's cancellation: the others wait on it.
		fes, err := list(context.WithoutCancel(ctx))

		c.mu.Lock()
		if err != nil {
			c.err, c.failed = err, n
		} else {
			byIP := map[string][]Frontend{}
			for _, f := range fes {
				byIP[f.PrivateIP] = append(byIP[f.PrivateIP], f)
			}
			c.byIP, c.readAt, c.listed, c.err = byIP, now(), n, nil
		}
		c.inflight = nil
		close(done)
	}
}

// expire makes the next lookup list again (Azure refused a service on a
// frontend the listing showed).
func (c *frontendCache) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readAt = time.Time{}
}
