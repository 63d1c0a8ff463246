package gcpprivateserviceconnect

import (
	"context"
	"sync"
	"time"

	"google.golang.org/api/compute/v1"
)

// natListingTTL is how long one listing of the NAT subnetworks serves the
// attachments created meanwhile. They change only when an administrator
// adds or removes one, and a listing that no longer holds is never
// believed: a choice that finds none free, or not the given one, lists
// again first, and a failed insert drops the listing.
const natListingTTL = 30 * time.Second

// ruleListingTTL is how long one listing of the internal forwarding rules
// serves the routers found meanwhile; a router's address the listing does
// not hold (its rule made since) lists again first.
const ruleListingTTL = 30 * time.Second

// sharedListing shares one listing among the clusters created at about
// the same time (a fleet arriving), instead of a listing per cluster: the
// management network's Private Service Connect subnetworks, the region's
// attachments that use them, its internal forwarding rules.
type sharedListing[T any] struct {
	mu       sync.Mutex
	items    []T
	listedAt time.Time
	valid    bool
}

// natListing is the NAT subnetworks' shared listing.
type natListing = sharedListing[*compute.Subnetwork]

// regionAttachmentListing is the shared listing of every attachment of
// the region, anyone's, where the NAT subnetworks in use are found.
type regionAttachmentListing = sharedListing[*compute.ServiceAttachment]

// ruleListing is the shared listing of the management network's internal
// forwarding rules, where the routers' rules are found.
type ruleListing = sharedListing[*compute.ForwardingRule]

// get returns the listing, listing again (list) when it is older than
// ttl at now or fresh is asked for; cached is true when it was not listed
// now, so that a caller finding it wanting can ask for a fresh one.
func (l *sharedListing[T]) get(ctx context.Context, list func(context.Context) ([]T, error),
	now time.Time, ttl time.Duration, fresh bool) (items []T, cached bool, err error) {
	items, _, cached, err = l.getAt(ctx, list, now, ttl, fresh)
	return items, cached, err
}

// getAt is get, also saying when the listing was made.
func (l *sharedListing[T]) getAt(ctx context.Context, list func(context.Context) ([]T, error),
	now time.Time, ttl time.Duration, fresh bool) (items []T, listedAt time.Time, cached bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.valid && !fresh && now.Sub(l.listedAt) < ttl && !now.Before(l.listedAt) {
		return l.items, l.listedAt, true, nil
	}
	all, err := list(ctx)
	if err != nil {
		l.valid = false
		return nil, time.Time{}, false, err
	}
	l.items, l.listedAt, l.valid = all, now, true
	return all, now, false, nil
}

// drop forgets the listing: the next choice lists again.
func (l *sharedListing[T]) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.valid = false
}
