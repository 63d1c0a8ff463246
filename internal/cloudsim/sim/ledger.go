package sim

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// The ledger keeps the history of every resource the clouds have held
// since it was started, so that a long run can be judged afterwards:
// duplicates (two resources for one owner and purpose alive at once),
// leaks (resources of the product under test still there at the end) and
// foreign resources touched (mutating calls by the product's principals on
// resources it did not create). Each cloud reports its inventory after
// every successful mutating call, and the targets of that call; the ledger
// works out creations and deletions by difference, so no create or delete
// path of any cloud can be missed.

// LedgerConfig says which callers are the product under test and how its
// resources name their owner.
type LedgerConfig struct {
	// Principals are the product's callers: AWS ARNs (assumed-role
	// sessions as arn:aws:sts::<account>:assumed-role/<role>/<session>;
	// a trailing * matches any rest), Azure principals' object IDs and
	// Google members (serviceAccount:<email>).
	Principals []string `json:"principals"`
	// OwnerTagPrefixes start the tag key that names the owning cluster
	// (the rest of the key is the cluster): "kubernetes.io/cluster/".
	OwnerTagPrefixes []string `json:"ownerTagPrefixes"`
	// PurposeTagKeys name the owning object within the cluster (its value).
	PurposeTagKeys []string `json:"purposeTagKeys"`
}

// InventoryItem is one resource as a cloud reports it to the ledger.
type InventoryItem struct {
	Cloud   string
	Account string // AWS account, Azure subscription, GCP project
	Kind    string // "ec2:security-group", "Microsoft.Network/privateEndpoints", ...
	ID      string
	Tags    map[string]string
	// Owner, when set, is the resource's owner as the cloud itself knows
	// it, for a resource that takes no tags (a GCP service attachment:
	// the forwarding rule it publishes); otherwise the tags name it.
	Owner string
	// CreatedBy is the creator when the cloud keeps it (Azure); otherwise
	// the ledger takes the caller of the call that made it appear.
	CreatedBy string
	// Deleting: its deletion is under way (a VPC endpoint deleting, an ARM
	// resource Deleting). It is on its way out: a replacement made now is
	// not a duplicate, but it is a leak until it is gone.
	Deleting bool
}

// LedgerEntry is one resource's life.
type LedgerEntry struct {
	Cloud   string `json:"cloud"`
	Account string `json:"account"`
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Owner   string `json:"owner,omitempty"` // "<cluster>/<purpose tag value>" when tagged so
	// Ours: made by one of the product's principals since the start. Tags
	// alone do not make a resource the product's: the customer's own
	// infrastructure (made by the CLI as the customer) carries them too.
	Ours      bool       `json:"ours"`
	CreatedBy string     `json:"createdBy,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	DeletedAt *time.Time `json:"deletedAt,omitempty"`
	// DeletingAt is when its deletion was first seen under way.
	DeletingAt *time.Time `json:"deletingAt,omitempty"`
	// Baseline: it was there when the ledger started.
	Baseline bool `json:"baseline,omitempty"`
}

// Touch is a mutating call by the product on a resource it did not make.
type Touch struct {
	Cloud     string    `json:"cloud"`
	Account   string    `json:"account"`
	ID        string    `json:"id"`
	Operation string    `json:"operation"`
	Principal string    `json:"principal"`
	At        time.Time `json:"at"`
}

// Duplicate is two or more resources of one kind for one owner alive at once.
type Duplicate struct {
	Cloud   string   `json:"cloud"`
	Account string   `json:"account"`
	Kind    string   `json:"kind"`
	Owner   string   `json:"owner"`
	IDs     []string `json:"ids"`
	// Entries are the lives of those resources, to see how it happened.
	Entries []LedgerEntry `json:"entries"`
}

// LedgerReport is the ledger's judgement so far.
type LedgerReport struct {
	Started    time.Time   `json:"started"`
	Created    int         `json:"created"` // resources of the product's made since the start
	Deleted    int         `json:"deleted"`
	Duplicates []Duplicate `json:"duplicates"`
	// Leaks are the product's resources alive now, by account.
	Leaks          map[string][]LedgerEntry `json:"leaks"`
	ForeignTouched []Touch                  `json:"foreignTouched"`
}

type ledgerKey struct{ cloud, id string }

// Ledger is the history. The zero value is off: it records nothing until
// Start.
type Ledger struct {
	mu      sync.Mutex
	on      bool
	cfg     LedgerConfig
	started time.Time
	live    map[ledgerKey]*LedgerEntry
	all     []*LedgerEntry
	touches []Touch
	dups    map[string]*Duplicate
}

// NewLedger returns a ledger that is off.
func NewLedger() *Ledger { return &Ledger{} }

// Start forgets any history and begins a new one with inventories as the
// baseline: what exists now was not made by the product (the seeded and
// the customer's resources).
func (l *Ledger) Start(cfg LedgerConfig, now time.Time, inventories ...[]InventoryItem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on, l.cfg, l.started = true, cfg, now
	l.live, l.all, l.touches, l.dups = map[ledgerKey]*LedgerEntry{}, nil, nil, map[string]*Duplicate{}
	for _, inv := range inventories {
		for _, it := range inv {
			l.add(it, it.CreatedBy, now, true)
		}
	}
}

// Stop turns the ledger off; its history stays readable.
func (l *Ledger) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
}

// On reports whether the ledger records.
func (l *Ledger) On() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.on
}

// Observe takes one cloud's whole inventory after a call by caller and
// records what appeared and what went.
func (l *Ledger) Observe(cloud string, inv []InventoryItem, caller string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	seen := make(map[ledgerKey]bool, len(inv))
	for _, it := range inv {
		k := ledgerKey{cloud, it.ID}
		seen[k] = true
		if e := l.live[k]; e != nil {
			if it.Deleting && e.DeletingAt == nil {
				at := now
				e.DeletingAt = &at
			}
			if e.Owner == "" {
				if e.Owner = l.ownerOf(it.Tags); e.Owner != "" && e.Ours && e.DeletingAt == nil { // tagged after its create
					l.checkDuplicate(e)
				}
			}
			continue
		}
		creator := it.CreatedBy
		if creator == "" {
			creator = caller
		}
		l.add(it, creator, now, false)
	}
	for k, e := range l.live {
		if k.cloud == cloud && !seen[k] {
			at := now
			e.DeletedAt = &at
			delete(l.live, k)
		}
	}
}

// Touched records the targets of a mutating call by caller that existed
// before it: those the product did not make are foreign touches.
func (l *Ledger) Touched(cloud, operation, caller string, targets []string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on || !l.isProduct(caller) {
		return
	}
	for _, id := range targets {
		if e := l.live[ledgerKey{cloud, id}]; e != nil && !e.Ours {
			l.touches = append(l.touches, Touch{Cloud: cloud, Account: e.Account, ID: id, Operation: operation, Principal: caller, At: now})
		}
	}
}

// add records a resource seen for the first time. Callers hold l.mu.
func (l *Ledger) add(it InventoryItem, creator string, now time.Time, baseline bool) {
	owner := it.Owner
	if owner == "" {
		owner = l.ownerOf(it.Tags)
	}
	e := &LedgerEntry{Cloud: it.Cloud, Account: it.Account, Kind: it.Kind, ID: it.ID, Owner: owner,
		Ours: !baseline && l.isProduct(creator), CreatedBy: creator, CreatedAt: now, Baseline: baseline}
	if it.Deleting {
		at := now
		e.DeletingAt = &at
	}
	l.live[ledgerKey{it.Cloud, it.ID}] = e
	l.all = append(l.all, e)
	if e.Ours && owner != "" && e.DeletingAt == nil {
		l.checkDuplicate(e)
	}
}

// checkDuplicate looks for another live resource of e's kind and owner.
func (l *Ledger) checkDuplicate(e *LedgerEntry) {
	ids := []string{}
	for _, other := range l.live {
		if other.Ours && other.DeletingAt == nil && other.Cloud == e.Cloud && other.Account == e.Account && other.Kind == e.Kind && other.Owner == e.Owner {
			ids = append(ids, other.ID)
		}
	}
	if len(ids) < 2 {
		return
	}
	key := e.Cloud + "|" + e.Account + "|" + e.Kind + "|" + e.Owner
	d := l.dups[key]
	if d == nil {
		d = &Duplicate{Cloud: e.Cloud, Account: e.Account, Kind: e.Kind, Owner: e.Owner}
		l.dups[key] = d
	}
	for _, id := range ids {
		if !containsString(d.IDs, id) {
			d.IDs = append(d.IDs, id)
		}
	}
	sort.Strings(d.IDs)
}

func (l *Ledger) ownerOf(tags map[string]string) string {
	cluster := ""
	for k := range tags {
		for _, p := range l.cfg.OwnerTagPrefixes {
			if rest, ok := strings.CutPrefix(k, p); ok && rest != "" {
				cluster = rest
			}
		}
	}
	if cluster == "" {
		return ""
	}
	for _, k := range l.cfg.PurposeTagKeys {
		if v := tags[k]; v != "" {
			return cluster + "/" + v
		}
	}
	return cluster
}

func (l *Ledger) isProduct(caller string) bool {
	if caller == "" {
		return false
	}
	for _, p := range l.cfg.Principals {
		if prefix, wild := strings.CutSuffix(p, "*"); wild && strings.HasPrefix(caller, prefix) || p == caller {
			return true
		}
	}
	return false
}

// Report returns the judgement so far.
func (l *Ledger) Report() LedgerReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := LedgerReport{Started: l.started, Duplicates: []Duplicate{}, Leaks: map[string][]LedgerEntry{}, ForeignTouched: append([]Touch{}, l.touches...)}
	for _, e := range l.all {
		if !e.Ours || e.Baseline {
			continue
		}
		r.Created++
		if e.DeletedAt != nil {
			r.Deleted++
		}
	}
	for _, e := range l.live {
		if e.Ours {
			r.Leaks[e.Account] = append(r.Leaks[e.Account], *e)
		}
	}
	for _, leaks := range r.Leaks {
		sort.Slice(leaks, func(i, j int) bool { return leaks[i].ID < leaks[j].ID })
	}
	for _, d := range l.dups {
		dup := *d
		for _, e := range l.all {
			if e.Cloud == d.Cloud && containsString(d.IDs, e.ID) {
				dup.Entries = append(dup.Entries, *e)
			}
		}
		r.Duplicates = append(r.Duplicates, dup)
	}
	sort.Slice(r.Duplicates, func(i, j int) bool { return r.Duplicates[i].Owner < r.Duplicates[j].Owner })
	return r
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
