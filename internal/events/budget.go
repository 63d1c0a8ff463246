package events

import (
	"sync"
	"time"
)

// The per-object budget: a burst of events, then one per refill period;
// the same note for the same object at most once per repeat window. An
// object that flaps between two states therefore costs a few events, not
// one per pass. The burst covers a cluster's creation: its HostedCluster
// alone sees about ten transitions on the way to Available.
const (
	burst        = 25
	refillPeriod = time.Minute
	repeatWindow = 10 * time.Minute
	// forgetAfter drops an object's bookkeeping once it has been quiet
	// this long, so memory follows the live objects, not every object ever.
	forgetAfter = time.Hour
)

type budget struct {
	now     func() time.Time
	mu      sync.Mutex
	objects map[string]*objectBudget
	swept   time.Time
}

type objectBudget struct {
	tokens   float64
	last     time.Time
	lastSeen map[string]time.Time // note → when it was last emitted
}

func newBudget(now func() time.Time) *budget {
	return &budget{now: now, objects: map[string]*objectBudget{}}
}

// allow reports whether object uid may emit key now, and spends a token if so.
func (b *budget) allow(uid, key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.forgetQuiet(now)
	ob := b.objects[uid]
	if ob == nil {
		ob = &objectBudget{tokens: burst, last: now, lastSeen: map[string]time.Time{}}
		b.objects[uid] = ob
	}
	ob.tokens = min(burst, ob.tokens+float64(now.Sub(ob.last))/float64(refillPeriod))
	ob.last = now
	if seen, ok := ob.lastSeen[key]; ok && now.Sub(seen) < repeatWindow {
		return false
	}
	if ob.tokens < 1 {
		return false
	}
	ob.tokens--
	ob.lastSeen[key] = now
	for k, seen := range ob.lastSeen {
		if now.Sub(seen) >= repeatWindow {
			delete(ob.lastSeen, k)
		}
	}
	return true
}

// forgetQuiet runs at most once per forgetAfter: a sweep over every object
// is cheap at that rate.
func (b *budget) forgetQuiet(now time.Time) {
	if now.Sub(b.swept) < forgetAfter {
		return
	}
	b.swept = now
	for uid, ob := range b.objects {
		if now.Sub(ob.last) >= forgetAfter {
			delete(b.objects, uid)
		}
	}
}
