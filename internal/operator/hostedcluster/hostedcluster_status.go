package hostedcluster

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Limits on condition messages. A condition message may hold 32 KiB; ours
// stay readable in kubectl and fit in an event note (1 KiB).
const (
	maxConditionMessage = 2048
	maxEventNote        = 1000
)

// validConfigurationCondition reports the validation result.
func validConfigurationCondition(problems []problem, generation int64) metav1.Condition {
	if len(problems) == 0 {
		return metav1.Condition{Type: hcplinkv1beta1.ValidConfigurationCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage, ObservedGeneration: generation}
	}
	return metav1.Condition{Type: hcplinkv1beta1.ValidConfigurationCondition, Status: metav1.ConditionFalse,
		Reason: problems[0].Reason, Message: bound(joinProblems(problems), maxConditionMessage), ObservedGeneration: generation}
}

// conditionSource is one private-link object as aggregation sees it.
type conditionSource struct {
	name       string
	conditions []metav1.Condition
}

// aggregateCondition folds condType over the private-link objects of kind
// in the control-plane namespace:
//   - the objects could not be listed → Unknown (InternalError);
//   - no object carries the condition (or there is no object) → Unknown
//     (StatusUnknown);
//   - any object says False → False, with "<object>: <message>" of each
//     joined by "; " (bounded); the reason is the objects' reason when they
//     all give the same one, else PrivateLinkUnavailable;
//   - any object says Unknown or has not reported yet → Unknown: one object
//     that works does not make the whole private path available;
//   - else (every object True) → True, "All is well".
func aggregateCondition(condType, kind string, sources []conditionSource, listErr error, generation int64) metav1.Condition {
	c := metav1.Condition{Type: condType, ObservedGeneration: generation}
	if listErr != nil {
		c.Status, c.Reason = metav1.ConditionUnknown, hcplinkv1beta1.InternalErrorReason
		c.Message = bound(fmt.Sprintf("listing the %s objects failed: %v", kind, listErr), maxConditionMessage)
		return c
	}
	sources = append([]conditionSource(nil), sources...)
	sort.Slice(sources, func(i, j int) bool { return sources[i].name < sources[j].name })

	var falses, unknowns []string
	reasons := map[string]bool{}
	reported := 0
	for _, s := range sources {
		sc := findCondition(s.conditions, condType)
		if sc == nil {
			unknowns = append(unknowns, s.name+": not reported yet")
			continue
		}
		reported++
		switch sc.Status {
		case metav1.ConditionFalse:
			falses = append(falses, s.name+": "+messageOrReason(sc))
			reasons[sc.Reason] = true
		case metav1.ConditionTrue:
		default:
			unknowns = append(unknowns, s.name+": "+messageOrReason(sc))
		}
	}
	switch {
	case len(sources) == 0:
		c.Status, c.Reason = metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason
		c.Message = fmt.Sprintf("no %s exists yet; the control-plane operator creates them once the private router's load balancer is provisioned", kind)
	case reported == 0:
		c.Status, c.Reason = metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason
		c.Message = fmt.Sprintf("no %s reports %s yet", kind, condType)
	case len(falses) > 0:
		c.Status, c.Reason = metav1.ConditionFalse, hcplinkv1beta1.PrivateLinkUnavailableReason
		if len(reasons) == 1 {
			for r := range reasons {
				if r != "" {
					c.Reason = r
				}
			}
		}
		c.Message = joinBounded(falses, maxConditionMessage)
	case len(unknowns) > 0:
		c.Status, c.Reason = metav1.ConditionUnknown, hcplinkv1beta1.PrivateLinkStatusUnknownReason
		c.Message = joinBounded(unknowns, maxConditionMessage)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage
	}
	return c
}

// availability is what one pass found that decides the cluster's
// Available condition, in the order availableCondition reads it.
type availability struct {
	generation int64
	// deleting: the cluster is being deleted.
	deleting bool
	// valid: the configuration passed validation.
	valid bool
	// earlierNamespace names the control-plane namespace of an earlier
	// cluster with this name that is still being deleted; "" when none.
	earlierNamespace string
	// placementRefused: no place had room for the cluster's routers.
	placementRefused *platform.PlacementRefused
	// controlPlaneErr: creating or updating the control plane failed.
	controlPlaneErr error
	// hcpExists: the HostedControlPlane exists.
	hcpExists bool
	// privateLink are the aggregated private-link conditions (none for a
	// public cluster).
	privateLink []metav1.Condition
	// credentials and settings are the control-plane operator's verdicts on
	// its cloud credentials and on the cluster's cloud settings; nil when
	// not reported.
	credentials, settings *metav1.Condition
}

// availableCondition is the cluster's Available condition, the one place
// that decides it. True when the configuration is valid, the
// HostedControlPlane exists and, for a cluster that is not public, every
// aggregated private-link condition is True. Otherwise False with the
// first thing missing as the reason: deletion; an invalid configuration;
// an earlier cluster's namespace still going; no room for the routers; the
// control plane not made; cloud settings the control-plane operator found
// invalid (nothing private is made for them: that, not the missing private
// path, is what the user must fix); then the private path. When the
// private path is not all True and the control plane reports invalid cloud
// credentials (credentials False), that is the cause named first
// (InvalidCredentials), not the cloud call the credentials failed.
func availableCondition(in availability) metav1.Condition {
	c := metav1.Condition{Type: hcplinkv1beta1.AvailableCondition, Status: metav1.ConditionFalse, ObservedGeneration: in.generation}
	switch {
	case in.deleting:
		c.Reason, c.Message = hcplinkv1beta1.DeletingReason, "the cluster is being deleted"
		return c
	case !in.valid:
		c.Reason, c.Message = hcplinkv1beta1.InvalidConfigurationReason, "the configuration is not valid; see the ValidConfiguration condition"
		return c
	case in.earlierNamespace != "":
		c.Reason = hcplinkv1beta1.WaitingForNamespaceReason
		c.Message = fmt.Sprintf("the control-plane namespace %s of an earlier cluster with this name is still being deleted", in.earlierNamespace)
		return c
	case in.placementRefused != nil:
		c.Reason, c.Message = in.placementRefused.Reason, bound(in.placementRefused.Message, maxConditionMessage)
		return c
	case in.controlPlaneErr != nil:
		c.Reason = hcplinkv1beta1.WaitingForControlPlaneReason
		c.Message = bound("creating the control plane failed and will be retried: "+in.controlPlaneErr.Error(), maxConditionMessage)
		return c
	case !in.hcpExists:
		c.Reason, c.Message = hcplinkv1beta1.WaitingForControlPlaneReason, "the HostedControlPlane does not exist yet"
		return c
	case in.settings != nil && in.settings.Status == metav1.ConditionFalse:
		c.Reason = hcplinkv1beta1.InvalidConfigurationReason
		c.Message = bound("the cloud settings are not valid: "+messageOrReason(in.settings), maxConditionMessage)
		return c
	}
	privateLink, credentials := in.privateLink, in.credentials
	var falses, unknowns []string
	for _, pl := range privateLink {
		switch pl.Status {
		case metav1.ConditionTrue:
		case metav1.ConditionFalse:
			falses = append(falses, pl.Type+": "+messageOrReason(&pl))
		default:
			unknowns = append(unknowns, pl.Type)
		}
	}
	credentialsInvalid := credentials != nil && credentials.Status == metav1.ConditionFalse
	switch {
	case (len(falses) > 0 || len(unknowns) > 0) && credentialsInvalid:
		msg := "the control-plane operator cannot use its cloud credentials: " + messageOrReason(credentials)
		if len(falses) > 0 {
			msg += "; private connectivity is unavailable: " + strings.Join(falses, "; ")
		}
		c.Reason, c.Message = hcplinkv1beta1.InvalidCredentialsReason, bound(msg, maxConditionMessage)
	case len(falses) > 0:
		c.Reason, c.Message = hcplinkv1beta1.PrivateLinkUnavailableReason, bound("private connectivity is unavailable: "+strings.Join(falses, "; "), maxConditionMessage)
	case len(unknowns) > 0:
		c.Reason, c.Message = hcplinkv1beta1.PrivateLinkStatusUnknownReason, "waiting for private connectivity: "+strings.Join(unknowns, ", ")+" not True yet"
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage
	}
	return c
}

// privateLinkCleanupPoll is how often deletion looks at the private-link
// objects and the final sweep without an event; their changes wake the
// controller earlier.
const privateLinkCleanupPoll = 30 * time.Second

// requeueFor is when to look again while waiting: the poll interval, or
// earlier when a deadline comes first.
func requeueFor(now time.Time, deadlines ...time.Time) time.Duration {
	wait := privateLinkCleanupPoll
	for _, d := range deadlines {
		if !d.IsZero() && d.Sub(now) < wait {
			wait = max(d.Sub(now), time.Second)
		}
	}
	return wait
}

// conditionChange is what one pass wants of the owned conditions: set
// these, remove those; types in neither are left as they are.
type conditionChange struct {
	set    []metav1.Condition
	remove []string
}

func (c *conditionChange) setCondition(cond metav1.Condition) {
	for i := range c.set {
		if c.set[i].Type == cond.Type {
			c.set[i] = cond
			return
		}
	}
	c.set = append(c.set, cond)
	c.remove = without(c.remove, cond.Type)
}

func (c *conditionChange) removeCondition(types ...string) {
	for _, t := range types {
		kept := c.set[:0]
		for _, s := range c.set {
			if s.Type != t {
				kept = append(kept, s)
			}
		}
		c.set = kept
		if !contains(c.remove, t) {
			c.remove = append(c.remove, t)
		}
	}
}

// patchOp is one RFC 6902 operation.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// placementWrite is a placement of the cluster's routers to record in its
// status: the value, the status field (JSON name) that records it, and
// what that field holds now. The zero value records nothing.
type placementWrite struct{ field, value, recorded string }

// statusPatch computes a JSON patch that brings the HostedCluster's status
// to what change wants, touching only the conditions of the types it names
// (each guarded by a test of the entry's type, so a concurrent writer's
// reordering fails the patch instead of overwriting the wrong entry) and
// controlPlaneNamespace when cpNamespace is not empty, and the placement's
// field when it has a value (both are written once and kept). A condition whose
// status, reason, message and observedGeneration are unchanged is left
// alone; lastTransitionTime changes only with the status. It returns nil
// when nothing changed.
func statusPatch(hc *hcplinkv1beta1.HostedCluster, change conditionChange, cpNamespace string, placement placementWrite, now metav1.Time) []patchOp {
	current := hc.Status.Conditions
	var replaces, removes, adds []patchOp
	var added []metav1.Condition
	for _, want := range change.set {
		i := indexOf(current, want.Type)
		if i < 0 {
			want.LastTransitionTime = now
			added = append(added, want)
			adds = append(adds, patchOp{Op: "add", Path: "/status/conditions/-", Value: want})
			continue
		}
		have := current[i]
		if have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message && have.ObservedGeneration == want.ObservedGeneration {
			continue
		}
		want.LastTransitionTime = have.LastTransitionTime
		if have.Status != want.Status || want.LastTransitionTime.IsZero() {
			want.LastTransitionTime = now
		}
		path := fmt.Sprintf("/status/conditions/%d", i)
		replaces = append(replaces, patchOp{Op: "test", Path: path + "/type", Value: want.Type}, patchOp{Op: "replace", Path: path, Value: want})
	}
	var removeIdx []int
	for _, t := range change.remove {
		if i := indexOf(current, t); i >= 0 {
			removeIdx = append(removeIdx, i)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(removeIdx))) // later entries first keep earlier indexes valid
	for _, i := range removeIdx {
		path := fmt.Sprintf("/status/conditions/%d", i)
		removes = append(removes, patchOp{Op: "test", Path: path + "/type", Value: current[i].Type}, patchOp{Op: "remove", Path: path})
	}

	setNamespace := cpNamespace != "" && hc.Status.ControlPlaneNamespace != cpNamespace
	setPlacement := placement.value != "" && placement.recorded != placement.value
	if len(replaces)+len(removes)+len(adds) == 0 && !setNamespace && !setPlacement {
		return nil
	}
	if equality.Semantic.DeepEqual(hc.Status, hcplinkv1beta1.HostedClusterStatus{}) {
		// No status yet: create it whole, guarded by the resourceVersion so
		// that it cannot replace a status someone wrote meanwhile.
		status := map[string]any{}
		if len(added) > 0 {
			status["conditions"] = added
		}
		if cpNamespace != "" {
			status["controlPlaneNamespace"] = cpNamespace
		}
		if placement.value != "" {
			status[placement.field] = placement.value
		}
		return []patchOp{
			{Op: "test", Path: "/metadata/resourceVersion", Value: hc.ResourceVersion},
			{Op: "add", Path: "/status", Value: status},
		}
	}
	ops := append(append([]patchOp{}, replaces...), removes...)
	if len(current) == 0 && len(added) > 0 {
		// The list does not exist yet (the status has only the namespace).
		ops = append(ops, patchOp{Op: "test", Path: "/metadata/resourceVersion", Value: hc.ResourceVersion},
			patchOp{Op: "add", Path: "/status/conditions", Value: added})
	} else {
		ops = append(ops, adds...)
	}
	if setNamespace {
		ops = append(ops, patchOp{Op: "add", Path: "/status/controlPlaneNamespace", Value: cpNamespace})
	}
	if setPlacement {
		ops = append(ops, patchOp{Op: "add", Path: "/status/" + placement.field, Value: placement.value})
	}
	return ops
}

// findCondition returns the condition of type t, or nil.
func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	if i := indexOf(conds, t); i >= 0 {
		return &conds[i]
	}
	return nil
}

func indexOf(conds []metav1.Condition, t string) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}

func messageOrReason(c *metav1.Condition) string {
	if c.Message != "" {
		return c.Message
	}
	if c.Reason != "" {
		return c.Reason
	}
	return string(c.Status)
}

// joinBounded joins parts with "; "; when that exceeds limit it keeps as
// many leading parts as fit and says how many it left out.
func joinBounded(parts []string, limit int) string {
	full := strings.Join(parts, "; ")
	if len(full) <= limit {
		return full
	}
	for k := len(parts) - 1; k >= 1; k-- {
		s := strings.Join(parts[:k], "; ") + fmt.Sprintf("; and %d more", len(parts)-k)
		if len(s) <= limit {
			return s
		}
	}
	return bound(full, limit)
}

// bound cuts s to at most limit bytes on a rune boundary, marking the cut.
func bound(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const mark = "…"
	cut := limit - len(mark)
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func without(list []string, s string) []string {
	out := list[:0]
	for _, l := range list {
		if l != s {
			out = append(out, l)
		}
	}
	return out
}
