package soak

import (
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// hotLoopPerObjectMinute is the most reconciles of one object per minute
// a controller may make on a settled fleet: its drift checks (one every
// driftInterval, jittered) and the odd change it watches; four times the
// drift checks is a loop.
const hotLoopPerObjectMinute = 4 * float64(time.Minute/driftInterval)

// reconcileLine is the line controller-runtime logs, at V(5), as it hands
// one request to a reconciler; it carries the controller's name and the
// object's namespace and name (the builder's log constructor). Its
// metrics count by controller only, so this line is where a reconcile
// names its object.
const reconcileLine = "Reconciling"

// reconcileLevel is the verbosity of reconcileLine.
const reconcileLevel = 5

// objectReconciles counts reconciles by controller and object.
type objectReconciles struct {
	mu     sync.Mutex
	counts map[reconciledObject]int
}

// reconciledObject is one object as one controller reconciles it.
type reconciledObject struct {
	Controller string
	Object     string // namespace/name, or name
}

func newObjectReconciles() *objectReconciles {
	return &objectReconciles{counts: map[reconciledObject]int{}}
}

// snapshot copies the counts.
func (o *objectReconciles) snapshot() map[reconciledObject]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[reconciledObject]int, len(o.counts))
	for k, v := range o.counts {
		out[k] = v
	}
	return out
}

func (o *objectReconciles) add(values []any) {
	var controller, namespace, name string
	for i := 0; i+1 < len(values); i += 2 {
		key, _ := values[i].(string)
		value, _ := values[i+1].(string)
		switch key {
		case "controller":
			controller = value
		case "namespace":
			namespace = value
		case "name":
			name = value
		}
	}
	if controller == "" || name == "" {
		return
	}
	object := name
	if namespace != "" {
		object = namespace + "/" + name
	}
	o.mu.Lock()
	o.counts[reconciledObject{Controller: controller, Object: object}]++
	o.mu.Unlock()
}

// logger wraps next: every reconcileLine is counted, and next receives
// what it is enabled for (nothing more than before).
func (o *objectReconciles) logger(next logr.Logger) logr.Logger {
	return logr.New(&countingSink{counts: o, next: next.GetSink()})
}

// countingSink is a logr sink that counts reconcileLine and passes every
// line on to next when next wants it.
type countingSink struct {
	counts *objectReconciles
	next   logr.LogSink // nil: count only
	values []any
}

func (s *countingSink) Init(info logr.RuntimeInfo) {
	if s.next != nil {
		s.next.Init(info)
	}
}

// Enabled is true at every level: the counted line is at V(5).
func (s *countingSink) Enabled(int) bool { return true }

func (s *countingSink) Info(level int, msg string, keysAndValues ...any) {
	if level == reconcileLevel && msg == reconcileLine {
		s.counts.add(append(append([]any(nil), s.values...), keysAndValues...))
	}
	if s.next != nil && s.next.Enabled(level) {
		s.next.Info(level, msg, keysAndValues...)
	}
}

func (s *countingSink) Error(err error, msg string, keysAndValues ...any) {
	if s.next != nil {
		s.next.Error(err, msg, keysAndValues...)
	}
}

func (s *countingSink) WithValues(keysAndValues ...any) logr.LogSink {
	c := *s
	c.values = append(append([]any(nil), s.values...), keysAndValues...)
	if s.next != nil {
		c.next = s.next.WithValues(keysAndValues...)
	}
	return &c
}

func (s *countingSink) WithName(name string) logr.LogSink {
	c := *s
	if s.next != nil {
		c.next = s.next.WithName(name)
	}
	return &c
}

// objectHotLoops names the objects reconciled more than the policy allows
// between two readings window apart. A window shorter than a minute is
// judged as a minute: a drift check and a watched change or two are
// several reconciles in a few seconds, not a loop.
func objectHotLoops(before, after map[reconciledObject]int, window time.Duration) []HotLoop {
	loops := []HotLoop{}
	minutes := max(window.Minutes(), 1)
	for obj, n := range after {
		rate := float64(n-before[obj]) / minutes
		if rate > hotLoopPerObjectMinute && !standIns[obj.Controller] {
			loops = append(loops, HotLoop{Controller: obj.Controller, Object: obj.Object, ReconcilesPerObjectMin: rate, Policy: hotLoopPerObjectMinute})
		}
	}
	sort.Slice(loops, func(i, j int) bool {
		if loops[i].Controller != loops[j].Controller {
			return loops[i].Controller < loops[j].Controller
		}
		return loops[i].Object < loops[j].Object
	})
	return loops
}
