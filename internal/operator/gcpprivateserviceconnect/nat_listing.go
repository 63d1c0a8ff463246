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

// natListing shares one listing of the management network's Private
// Service Connect subnetworks among the clusters created at about the same
// time (a fleet arriving), instead of a listing per cluster.
type natListing struct {
	mu       sync.Mutex
	subnets  []*compute.Subnetwork
	listedAt time.Time
	valid    bool
}

// get returns the listing, listing again (list) when it is older than
// ttl at now or fresh is asked for; cached is true when it was not listed
// now, so that a caller finding it wanting can ask for a fresh one.
func (l *natListing) get(ctx context.Context, list func(context.Context) ([]*compute.Subnetwork, error),
	now time.Time, ttl time.Duration, fresh bool) (subnets []*compute.Subnetwork, cached bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.valid && !fresh && now.Sub(l.listedAt) < ttl && !now.Before(l.listedAt) {
		return l.subnets, true, nil
	}
	all, err := list(ctx)
	if err != nil {
		l.valid = false
		return nil, false, err
	}
	l.subnets, l.listedAt, l.valid = all, now, true
	return all, false, nil
}

// drop forgets the listing: the next choice lists again.
func (l *natListing) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.valid = false
}
