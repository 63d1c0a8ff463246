package azureprivatelink

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/listcache"
)

// defaultListErrorTTL is how long a failed listing is remembered, so that
// the workers of many objects throttled at once do not each repeat it.
const defaultListErrorTTL = 5 * time.Second

// ServiceCache batches the operator's reads of Private Link Services: one
// listing of a resource group's services (their connections inline) per
// TTL serves every object of the management cluster. A service the
// listing lacks (it may predate it), one in a transitional state, one the
// operator changed, or one the caller needs newer (a connection it
// expects is missing) is read by a targeted call.
type ServiceCache struct {
	// Cloud makes the calls.
	Cloud *Cloud
	// Now tells the time.
	Now func() time.Time
	// TTL is how long a listing serves: the drift interval.
	TTL time.Duration

	mu     sync.Mutex
	groups map[string]*listcache.Batch[armnetwork.PrivateLinkService]
}

func (c *ServiceCache) batch(rg string) *listcache.Batch[armnetwork.PrivateLinkService] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.groups == nil {
		c.groups = map[string]*listcache.Batch[armnetwork.PrivateLinkService]{}
	}
	key := strings.ToLower(rg)
	b := c.groups[key]
	if b == nil {
		b = &listcache.Batch[armnetwork.PrivateLinkService]{}
		c.groups[key] = b
	}
	return b
}

// listed is the resource group's listing (read when stale).
func (c *ServiceCache) listed(ctx context.Context, rg string) (map[string]armnetwork.PrivateLinkService, error) {
	return c.batch(rg).Get(ctx, c.Now, c.TTL, defaultListErrorTTL, func(ctx context.Context) (map[string]armnetwork.PrivateLinkService, error) {
		all, err := c.Cloud.Provider.List(ctx, rg)
		if err != nil {
			return nil, err
		}
		out := make(map[string]armnetwork.PrivateLinkService, len(all))
		for _, s := range all {
			if s != nil {
				out[strings.ToLower(deref(s.Name))] = *s
			}
		}
		return out, nil
	})
}

// Get returns the service named name in rg, or nil when a targeted read
// found none. enough says whether the listing's copy will do (nil: it
// will, when settled).
func (c *ServiceCache) Get(ctx context.Context, rg, name string, enough func(*armnetwork.PrivateLinkService) bool) (*armnetwork.PrivateLinkService, error) {
	items, err := c.listed(ctx, rg)
	if err != nil {
		return nil, err
	}
	key := strings.ToLower(name)
	if s, ok := items[key]; ok && !c.batch(rg).IsDirty(key) && settledService(&s) && (enough == nil || enough(&s)) {
		return &s, nil
	}
	found, err := c.Cloud.PrivateLinkService(ctx, rg, name)
	if err != nil {
		return nil, err
	}
	if found == nil {
		c.batch(rg).Forget(key)
		return nil, nil
	}
	c.batch(rg).Put(key, *found)
	return found, nil
}

// Listed is the service as the listing shows it, when it is settled and
// not marked; no targeted read.
func (c *ServiceCache) Listed(ctx context.Context, rg, name string) *armnetwork.PrivateLinkService {
	items, err := c.listed(ctx, rg)
	if err != nil {
		return nil
	}
	key := strings.ToLower(name)
	if s, ok := items[key]; ok && !c.batch(rg).IsDirty(key) && settledService(&s) {
		return &s
	}
	return nil
}

// Relisted lists the resource group's services anew (every caller sharing
// the one listing in flight).
func (c *ServiceCache) Relisted(ctx context.Context, rg string) ([]armnetwork.PrivateLinkService, error) {
	c.batch(rg).Expire()
	items, err := c.listed(ctx, rg)
	if err != nil {
		return nil, err
	}
	out := make([]armnetwork.PrivateLinkService, 0, len(items))
	for _, s := range items {
		out = append(out, s)
	}
	return out, nil
}

// Invalidate marks a service the operator changed.
func (c *ServiceCache) Invalidate(rg, name string) { c.batch(rg).Invalidate(strings.ToLower(name)) }

// Forget drops a service the operator deleted.
func (c *ServiceCache) Forget(rg, name string) { c.batch(rg).Forget(strings.ToLower(name)) }

// settledService: a service whose listed copy may be trusted; one being
// created, changed or deleted is read again.
func settledService(s *armnetwork.PrivateLinkService) bool {
	if s.Properties == nil {
		return false
	}
	switch provisioning(s.Properties.ProvisioningState) {
	case armnetwork.ProvisioningStateSucceeded, armnetwork.ProvisioningStateFailed:
		return true
	}
	return false
}

// All is every service of the resource group as the current listing shows
// it (listed when stale): what the placement of new clusters counts.
func (c *ServiceCache) All(ctx context.Context, rg string) ([]armnetwork.PrivateLinkService, error) {
	items, err := c.listed(ctx, rg)
	if err != nil {
		return nil, err
	}
	out := make([]armnetwork.PrivateLinkService, 0, len(items))
	for _, s := range items {
		out = append(out, s)
	}
	return out, nil
}
