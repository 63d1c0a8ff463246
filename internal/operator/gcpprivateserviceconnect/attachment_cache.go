package gcpprivateserviceconnect

import (
	"context"
	"sync"
	"time"

	"google.golang.org/api/compute/v1"
)

// attachmentCache batches the drift checks of a fleet: one listing of this
// management cluster's attachments (by its name prefix and marker) serves
// every object's check while it is younger than its TTL, so that a drift
// pass costs a page of listing per many clusters instead of a read each.
// A copy from the listing is only compared with what must be: a write
// always starts from a fresh read (its fingerprint), and forgets the
// listed copy.
type attachmentCache struct {
	mu       sync.Mutex
	byName   map[string]*compute.ServiceAttachment
	listedAt time.Time
}

// listed returns name as the latest listing shows it, listing again
// (list) when the last listing is older than ttl at now; ok is false when
// the listing does not show it (new, changed since, or gone): the caller
// reads it. The lock is held while listing so that workers checking at once
// share one listing.
func (c *attachmentCache) listed(ctx context.Context, list func(context.Context) ([]*compute.ServiceAttachment, error),
	now time.Time, ttl time.Duration, name string) (*compute.ServiceAttachment, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil || now.Sub(c.listedAt) >= ttl || now.Before(c.listedAt) {
		all, err := list(ctx)
		if err != nil {
			return nil, false, err
		}
		c.byName = make(map[string]*compute.ServiceAttachment, len(all))
		for _, sa := range all {
			c.byName[sa.Name] = sa
		}
		c.listedAt = now
	}
	sa, ok := c.byName[name]
	return sa, ok, nil
}

// forget drops the listed copy of name: it was just changed.
func (c *attachmentCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byName, name)
}
