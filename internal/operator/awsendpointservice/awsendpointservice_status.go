package awsendpointservice

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Reasons this controller adds to those in api/v1beta1.
const (
	// WaitingForControlPlaneCleanupReason: deletion waits for the
	// control-plane operator to remove the VPC endpoint (its finalizer).
	WaitingForControlPlaneCleanupReason = "WaitingForControlPlaneCleanup"
	// EndpointServicePendingReason: the endpoint service was just created
	// and AWS reports it Pending.
	EndpointServicePendingReason = "EndpointServicePending"
	// EndpointServiceDeletedReason: AWS reports the endpoint service
	// Deleting or Deleted; it will be recreated.
	EndpointServiceDeletedReason = "EndpointServiceDeleted"
	// HostedClusterNotFoundReason: the HostedCluster named by the
	// hcplink.io/cluster annotation does not exist.
	HostedClusterNotFoundReason = "HostedClusterNotFound"
	// ConnectionsPendingReason: deletion waits for consumer endpoints to be
	// rejected or go away.
	ConnectionsPendingReason = "ConnectionsPending"
)

// maxSubnets is the API maximum of spec.subnetIDs.
const maxSubnets = 10

// maxMessage bounds condition messages.
const maxMessage = awscloud.MaxMessageLength

// outcome is what one phase decided: the condition it asks for (empty
// reason: nothing to say, go on) and how soon to look again.
type outcome struct {
	status  metav1.ConditionStatus
	reason  string
	message string
	requeue time.Duration
	// err is an unexpected (non-cloud) error to hand to controller-runtime.
	err error
}

func (o outcome) done() bool { return o.reason == "" && o.err == nil }

func waiting(reason, message string, requeue time.Duration) outcome {
	return outcome{status: metav1.ConditionFalse, reason: reason, message: awscloud.Bound(message, maxMessage), requeue: requeue}
}

// cloudError marks an error as coming from an AWS call, with what the
// controller was doing.
type cloudError struct {
	doing string
	err   error
}

func (e *cloudError) Error() string { return e.doing + ": " + e.err.Error() }
func (e *cloudError) Unwrap() error { return e.err }

func cloud(doing string, err error) error {
	if err == nil {
		return nil
	}
	return &cloudError{doing: doing, err: err}
}

// backoff are the requeue delays per error class.
type backoff struct {
	throttledMin, throttledMax time.Duration
	transientMin, transientMax time.Duration
	permanent                  time.Duration
}

// defaultBackoff: throttling spreads retries over 10–30 s so that many
// controllers throttled at once do not retry together; transient failures
// retry within seconds; permanent ones (a permission, a bad value) rarely,
// since only a human fixes them.
var defaultBackoff = backoff{
	throttledMin: 10 * time.Second, throttledMax: 30 * time.Second,
	transientMin: 5 * time.Second, transientMax: 15 * time.Second,
	permanent: 10 * time.Minute,
}

// errorOutcome turns an error into a condition and a requeue by class.
// Cloud errors get a sanitised message; anything else is unexpected:
// Unknown / InternalError, and the error goes to controller-runtime.
func errorOutcome(err error, b backoff, rnd func() float64) outcome {
	var ce *cloudError
	if !errors.As(err, &ce) {
		return outcome{status: metav1.ConditionUnknown, reason: hcplinkv1beta1.InternalErrorReason,
			message: awscloud.Bound("Unexpected error: "+awscloud.Scrub(err.Error()), maxMessage), err: err}
	}
	msg := awscloud.Bound(upperFirst(ce.doing)+": "+awscloud.ErrorMessage(ce.err), maxMessage)
	o := outcome{status: metav1.ConditionFalse, message: msg}
	switch awscloud.Classify(ce.err) {
	case awscloud.ClassThrottled:
		o.reason, o.requeue = hcplinkv1beta1.ThrottledReason, between(b.throttledMin, b.throttledMax, rnd)
	case awscloud.ClassAccessDenied:
		o.reason, o.requeue = hcplinkv1beta1.AccessDeniedReason, b.permanent
	case awscloud.ClassClientError:
		o.reason, o.requeue = hcplinkv1beta1.CloudErrorReason, b.permanent
		if strings.HasPrefix(awscloud.ErrorCode(ce.err), "Invalid") {
			o.reason = hcplinkv1beta1.InvalidParameterReason
		}
	case awscloud.ClassNotFound, awscloud.ClassServerError:
		o.reason, o.requeue = hcplinkv1beta1.CloudErrorReason, between(b.transientMin, b.transientMax, rnd)
	default:
		o.status, o.reason, o.requeue = metav1.ConditionUnknown, hcplinkv1beta1.InternalErrorReason, between(b.transientMin, b.transientMax, rnd)
	}
	return o
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// between returns a duration uniformly in [lo, hi].
func between(lo, hi time.Duration, rnd func() float64) time.Duration {
	if rnd == nil {
		rnd = rand.Float64
	}
	return lo + time.Duration(rnd()*float64(hi-lo))
}

// jittered spreads a periodic check by ±15 % so that many objects created
// together do not check together.
func jittered(d time.Duration, rnd func() float64) time.Duration {
	return between(d*85/100, d*115/100, rnd)
}

// availableCondition is the condition of a pass whose phases all
// succeeded, unless subnets were capped (the service works; the cluster
// asks for more zones than the endpoint can use).
func availableCondition(subnetsWanted int) outcome {
	if subnetsWanted > maxSubnets {
		return waiting(hcplinkv1beta1.TooManySubnetsReason, fmt.Sprintf(
			"The cluster's NodePools use %d subnets; a VPC endpoint takes at most %d, so only the first %d (sorted) are used. Move NodePools into fewer subnets.",
			subnetsWanted, maxSubnets, maxSubnets), 0)
	}
	return outcome{status: metav1.ConditionTrue, reason: hcplinkv1beta1.AWSSuccessReason, message: hcplinkv1beta1.AllIsWellMessage}
}

// serviceStateOutcome says what a service's state means: Available (and
// states AWS may add) → go on; Pending → wait; Failed → its own reason,
// checked again at the drift interval (a human looks at the NLB; nothing
// is deleted on a guess); Deleting / Deleted → gone, so it is recreated.
func serviceStateOutcome(svc *ec2types.ServiceConfiguration, pendingPoll, drift time.Duration) (o outcome, gone bool) {
	name := deref(svc.ServiceName)
	switch string(svc.ServiceState) {
	case awscloud.ServiceStatePending:
		return waiting(EndpointServicePendingReason, "Endpoint service "+name+" is being created.", pendingPoll), false
	case awscloud.ServiceStateFailed:
		return waiting(hcplinkv1beta1.EndpointServiceFailedReason,
			"AWS reports endpoint service "+name+" Failed; check its network load balancer, or delete the service so that hcplink creates it again.", drift), false
	case awscloud.ServiceStateDeleting, awscloud.ServiceStateDeleted:
		return waiting(EndpointServiceDeletedReason, "Endpoint service "+name+" was deleted outside hcplink; it is created again.", pendingPoll), true
	}
	return outcome{}, false
}

// subnetUnion is the sorted, deduplicated union of the NodePools' subnet
// IDs (empty IDs skipped), capped at maxSubnets; wanted is how many there
// were before the cap.
func subnetUnion(subnetIDs []string) (subnets []string, wanted int) {
	seen := map[string]bool{}
	for _, s := range subnetIDs {
		if s != "" && !seen[s] {
			seen[s] = true
			subnets = append(subnets, s)
		}
	}
	sort.Strings(subnets)
	wanted = len(subnets)
	if wanted > maxSubnets {
		subnets = subnets[:maxSubnets]
	}
	return subnets, wanted
}

// nodePoolSubnet is the subnet of an AWS NodePool ("" without one).
func nodePoolSubnet(np *hcplinkv1beta1.NodePool) string {
	if np.Spec.Platform.AWS == nil || np.Spec.Platform.AWS.Subnet == nil {
		return ""
	}
	return np.Spec.Platform.AWS.Subnet.ID
}

// desiredPrincipals: the control-plane operator's role without its IAM
// path, and the cluster's additional principals; sorted and unique.
func desiredPrincipals(roleARN string, additional []string) []string {
	set := map[string]bool{}
	if roleARN != "" {
		set[awscloud.PrincipalWithoutPath(roleARN)] = true
	}
	for _, p := range additional {
		if p != "" {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// principalDiff returns what to add and to remove to turn actual into
// desired, both sorted.
func principalDiff(desired, actual []string) (add, remove []string) {
	for _, p := range desired {
		if !slices.Contains(actual, p) {
			add = append(add, p)
		}
	}
	for _, p := range actual {
		if !slices.Contains(desired, p) {
			remove = append(remove, p)
		}
	}
	sort.Strings(add)
	sort.Strings(remove)
	return add, remove
}

// desiredTags are the tags of the endpoint service: the cluster's resource
// tags, then the two tags hcplink finds it by (which win on a clash).
func desiredTags(infraID, crName string, resourceTags []hcplinkv1beta1.AWSResourceTag) map[string]string {
	tags := map[string]string{}
	for _, t := range resourceTags {
		tags[t.Key] = t.Value
	}
	tags[hcplinkv1beta1.ClusterTagKey(infraID)] = hcplinkv1beta1.ClusterTagValueOwned
	tags[hcplinkv1beta1.EndpointServiceTagKey] = crName
	return tags
}

// userTagKeys are the keys of the cluster's resource tags, sorted.
func userTagKeys(resourceTags []hcplinkv1beta1.AWSResourceTag) []string {
	keys := make([]string, 0, len(resourceTags))
	for _, t := range resourceTags {
		keys = append(keys, t.Key)
	}
	sort.Strings(keys)
	return slices.Compact(keys)
}

// managedTagKey says which tag keys hcplink owns on the service: its two
// keys, and the user keys applied now or before (so removed ones are
// deleted); every other tag is the customer's and left alone.
func managedTagKey(infraID string, currentKeys, previousKeys []string) func(string) bool {
	return func(key string) bool {
		return key == hcplinkv1beta1.EndpointServiceTagKey || key == hcplinkv1beta1.ClusterTagKey(infraID) ||
			slices.Contains(currentKeys, key) || slices.Contains(previousKeys, key)
	}
}

// parseKeys reads the applied-keys annotation (keys joined by newlines: tag
// keys may contain commas? they may not, but newlines are never allowed).
func parseKeys(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, "\n")
}

func formatKeys(keys []string) string { return strings.Join(keys, "\n") }

// ownedBy reports whether a service carries the pair of tags hcplink finds
// it by.
func ownedBy(tags []ec2types.Tag, infraID, crName string) bool {
	m := awscloud.TagMap(tags)
	return m[hcplinkv1beta1.ClusterTagKey(infraID)] == hcplinkv1beta1.ClusterTagValueOwned && m[hcplinkv1beta1.EndpointServiceTagKey] == crName
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// minRequeue returns the smallest positive delay (0 when none).
func minRequeue(ds ...time.Duration) time.Duration {
	var out time.Duration
	for _, d := range ds {
		if d > 0 && (out == 0 || d < out) {
			out = d
		}
	}
	return out
}
