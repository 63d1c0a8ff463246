package azure

import (
	"sort"
	"strings"
	"time"
)

// Resource is one stored ARM resource: the envelope every type shares, and
// Properties, owned by the helper that registered the type (a pointer to a
// struct that encodes as the wire's "properties"). Child resources (subnets,
// private endpoint connections, record sets) are resources too.
type Resource struct {
	ID                ID
	Type              string // "Microsoft.Network/virtualNetworks", the registered spelling
	Location          string
	Tags              map[string]string
	ETag              string
	ProvisioningState string
	Properties        any
	CreatedBy         string // object ID of the principal that created it
	CreatedAt         time.Time
	// Operation is the long-running operation in progress on the resource, if any.
	Operation *Operation `json:"-"`
}

// Name is the resource's name (the last segment of its ID).
func (r *Resource) Name() string { return r.ID.Name() }

// Store holds every Azure resource, keyed by the lower-cased canonical ID.
// It is guarded by the Cloud's mutex: handlers use it freely.
type Store struct {
	byKey map[string]*Resource
}

func newStore() *Store { return &Store{byKey: map[string]*Resource{}} }

// Get returns the resource with this ID, or nil.
func (s *Store) Get(id ID) *Resource { return s.byKey[id.Key()] }

// GetByString looks a resource up by an ID string as a request body carries it.
func (s *Store) GetByString(id string) *Resource {
	return s.byKey[strings.ToLower(strings.TrimSuffix(id, "/"))]
}

// Put stores (or replaces) a resource.
func (s *Store) Put(r *Resource) { s.byKey[r.ID.Key()] = r }

// Delete removes the resource and everything beneath it (its children and
// extension resources scoped to it), as ARM does.
func (s *Store) Delete(id ID) {
	key := id.Key()
	for k := range s.byKey {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(s.byKey, k)
		}
	}
}

// List returns the resources of one type directly beneath parent (a
// resource group, a subscription, or a parent resource), sorted by ID.
// typ is the full type, compared case-insensitively. A subscription parent
// lists across its resource groups.
func (s *Store) List(parent ID, typ string) []*Resource {
	prefix := parent.Key() + "/"
	var out []*Resource
	for k, r := range s.byKey {
		if strings.HasPrefix(k, prefix) && strings.EqualFold(r.Type, typ) {
			out = append(out, r)
		}
	}
	sortResources(out)
	return out
}

// Under returns every resource beneath the ID (not the ID itself).
func (s *Store) Under(id ID) []*Resource {
	prefix := id.Key() + "/"
	var out []*Resource
	for k, r := range s.byKey {
		if strings.HasPrefix(k, prefix) {
			out = append(out, r)
		}
	}
	sortResources(out)
	return out
}

// All returns every resource, sorted by ID.
func (s *Store) All() []*Resource {
	out := make([]*Resource, 0, len(s.byKey))
	for _, r := range s.byKey {
		out = append(out, r)
	}
	sortResources(out)
	return out
}

// Find returns the resources of a type anywhere, for cross-subscription
// rules (a private endpoint looking for a Private Link Service by alias).
func (s *Store) Find(typ string, match func(*Resource) bool) []*Resource {
	var out []*Resource
	for _, r := range s.byKey {
		if strings.EqualFold(r.Type, typ) && (match == nil || match(r)) {
			out = append(out, r)
		}
	}
	sortResources(out)
	return out
}

func sortResources(rs []*Resource) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID.Key() < rs[j].ID.Key() })
}
