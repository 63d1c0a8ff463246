// Package listcache batches a controller's reads of one kind of cloud
// resource: one listing per TTL serves every object, concurrent callers
// share the listing in flight, a failed listing is remembered briefly (so
// that many workers throttled at once do not each repeat it), and entries
// the controller changed are marked for a targeted read instead of a
// relisting. The management operator's AWS endpoint services and Azure
// Private Link Services both use it.
package listcache

import (
	"context"
	"maps"
	"sync"
	"time"
)

// Batch is one kind's listing: the items by key, when they were read, a
// remembered error, and the listing in flight. The zero value is empty.
type Batch[T any] struct {
	mu       sync.Mutex
	items    map[string]T
	dirty    map[string]bool
	readAt   time.Time
	err      error
	errAt    time.Time
	inflight chan struct{}
}

// Get returns the listing, reading it with list when it is older than ttl
// (or was never read). One caller reads; the others wait for its result.
// The read runs on a context detached from the caller's cancellation (one
// caller giving up must not fail the others); list bounds it itself. A
// failed read is returned to every caller for errTTL.
func (b *Batch[T]) Get(ctx context.Context, now func() time.Time, ttl, errTTL time.Duration, list func(context.Context) (map[string]T, error)) (map[string]T, error) {
	for {
		b.mu.Lock()
		t := now()
		if b.items != nil && t.Sub(b.readAt) < ttl {
			items := b.items
			b.mu.Unlock()
			return items, nil
		}
		if b.err != nil && t.Sub(b.errAt) < errTTL {
			err := b.err
			b.mu.Unlock()
			return nil, err
		}
		if wait := b.inflight; wait != nil {
			b.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		b.inflight = done
		b.mu.Unlock()

		items, err := list(context.WithoutCancel(ctx))

		b.mu.Lock()
		if err != nil {
			b.err, b.errAt = err, now()
		} else {
			b.items, b.readAt, b.err, b.dirty = items, now(), nil, nil
		}
		b.inflight = nil
		close(done)
		b.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return items, nil
	}
}

// Put records the item a targeted read (or a write) returned, and clears
// its mark.
func (b *Batch[T]) Put(key string, v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.items == nil {
		// Nothing listed yet: the first listing will include it anyway.
		return
	}
	// Copy on write: callers iterate the maps they got without the lock.
	items := maps.Clone(b.items)
	items[key] = v
	b.items = items
	delete(b.dirty, key)
}

// Forget drops an item (it no longer exists).
func (b *Batch[T]) Forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.items[key]; ok {
		items := maps.Clone(b.items)
		delete(items, key)
		b.items = items
	}
	delete(b.dirty, key)
}

// Invalidate marks an item the controller changed: its next read is a
// targeted one.
func (b *Batch[T]) Invalidate(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dirty == nil {
		b.dirty = map[string]bool{}
	}
	b.dirty[key] = true
}

// Expire makes the next Get list again.
func (b *Batch[T]) Expire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.readAt = time.Time{}
}

// IsDirty reports whether an item is marked.
func (b *Batch[T]) IsDirty(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dirty[key]
}
