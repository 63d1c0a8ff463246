package awsprivatelink

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Intervals. Each is a named constant with the reason for its value.
const (
	// DefaultDriftInterval is how often a healthy endpoint is checked
	// against the cloud (records deleted behind our back, tags, rules).
	DefaultDriftInterval = 10 * time.Minute
	// pendingRequeue: an endpoint becomes available within a minute or two.
	pendingRequeue = 15 * time.Second
	// waitRequeue: an endpoint or a security group being deleted, or a
	// cloud dependency (DependencyViolation) that clears within seconds.
	waitRequeue = 5 * time.Second
	// throttleMin/Max: throttled callers spread their retries over this
	// window so that many clusters do not retry in lockstep.
	throttleMin, throttleMax = 10 * time.Second, 30 * time.Second
	// transientRequeue: AWS failed or did not answer; retry soon.
	transientRequeue = 10 * time.Second
	// permanentRequeue: a refusal (permissions, user input, zones) that a
	// person must fix; retrying often only burns API quota.
	permanentRequeue = 5 * time.Minute
	// notVisibleRequeue: the endpoint service is not visible to the
	// customer account until the operator allows its principal.
	notVisibleRequeue = 30 * time.Second
	// passTimeout bounds one pass's cloud calls, so that a slow or stuck
	// cloud never holds a worker (the deferred status write gets its own
	// context).
	passTimeout = 2 * time.Minute
	// zoneMissingRequeue: the private hosted zone is created by a person or
	// the infrastructure CLI.
	zoneMissingRequeue = 2 * time.Minute
)

// jitter returns d increased by a random 10–20%, so that periodic checks
// of many clusters spread out.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((0.1+0.1*rand.Float64())*float64(d))
}

// between returns a random duration in [lo, hi].
func between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rand.Float64()*float64(hi-lo))
}

// outcome is what a phase decided when the pass cannot go on (waiting or
// failing) or what the pass ends with: the state of AWSEndpointAvailable
// and when to look again.
type outcome struct {
	status  metav1.ConditionStatus
	reason  string
	message string
	requeue time.Duration
}

func (o outcome) condition() metav1.Condition {
	return metav1.Condition{Type: hcplinkv1beta1.AWSEndpointAvailableCondition, Status: o.status, Reason: o.reason, Message: o.message}
}

func waiting(reason, message string, requeue time.Duration) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: reason, message: message, requeue: requeue}
}

// endpointStateOutcome maps the endpoint's state to the condition while
// the endpoint is not usable; nil means the endpoint is available.
func endpointStateOutcome(id string, state ec2types.State) *outcome {
	switch strings.ToLower(string(state)) {
	case "available":
		return nil
	case "pending":
		return waiting(hcplinkv1beta1.EndpointPendingReason,
			fmt.Sprintf("VPC endpoint %s is being created", id), pendingRequeue)
	case "pendingacceptance":
		return waiting(hcplinkv1beta1.EndpointPendingAcceptanceReason,
			fmt.Sprintf("VPC endpoint %s waits for the endpoint service to accept it; the operator allows this cluster's role and does not require acceptance, so check the endpoint service's settings", id), permanentRequeue)
	case "rejected":
		return waiting(hcplinkv1beta1.EndpointRejectedReason,
			fmt.Sprintf("The endpoint service rejected VPC endpoint %s; delete the endpoint in the customer account to have it recreated, or check the endpoint service's allowed principals", id), permanentRequeue)
	case "failed":
		return waiting(hcplinkv1beta1.EndpointFailedReason,
			fmt.Sprintf("AWS reports VPC endpoint %s failed; delete it in the customer account to have it recreated", id), permanentRequeue)
	default:
		return waiting(hcplinkv1beta1.EndpointPendingReason,
			fmt.Sprintf("VPC endpoint %s is %s", id, state), pendingRequeue)
	}
}

// zoneMismatchError: the endpoint service refused subnets in zones its load
// balancer does not serve.
type zoneMismatchError struct {
	served   []string // zone IDs the service serves
	unserved []string // "subnet (zone ID)" the service does not serve
	cause    error
}

func (e *zoneMismatchError) Error() string {
	return fmt.Sprintf("subnets %s are in zones the endpoint service does not serve (%s): %v",
		strings.Join(e.unserved, ", "), strings.Join(e.served, ", "), e.cause)
}

func (e *zoneMismatchError) Unwrap() error { return e.cause }

// errorOutcome classifies err into the condition and the requeue. Typed
// errors decide; messages are sanitised.
func errorOutcome(err error) outcome {
	var zm *zoneMismatchError
	if errors.As(err, &zm) {
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.ZoneMismatchReason,
			message: awscloud.Bound(fmt.Sprintf("The endpoint service's load balancer serves only zone IDs %s and does not balance across zones, so subnets %s cannot be used; add subnets in those zones to the NodePools or enable cross-zone load balancing on the load balancer",
				strings.Join(zm.served, ", "), strings.Join(zm.unserved, ", ")), awscloud.MaxMessageLength*2),
			requeue: jitter(permanentRequeue)}
	}
	msg := awscloud.ErrorMessage(err)
	switch awscloud.Classify(err) {
	case awscloud.ClassThrottled:
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.ThrottledReason, message: msg, requeue: between(throttleMin, throttleMax)}
	case awscloud.ClassAccessDenied:
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.AccessDeniedReason, message: msg, requeue: jitter(permanentRequeue)}
	case awscloud.ClassServerError:
		if awscloud.ErrorCode(err) == "" {
			// Not an AWS answer at all: ours to explain, not AWS's.
			return outcome{status: metav1.ConditionUnknown, reason: hcplinkv1beta1.InternalErrorReason,
				message: "An unexpected error occurred; retrying soon: " + awscloud.Bound(awscloud.Scrub(err.Error()), 200), requeue: jitter(transientRequeue)}
		}
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.CloudErrorReason, message: msg, requeue: jitter(transientRequeue)}
	case awscloud.ClassNotFound, awscloud.ClassClientError:
		if isInvalidInput(awscloud.ErrorCode(err)) {
			return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.InvalidParameterReason, message: msg, requeue: jitter(permanentRequeue)}
		}
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.CloudErrorReason, message: msg, requeue: jitter(permanentRequeue)}
	}
	return outcome{status: metav1.ConditionUnknown, reason: hcplinkv1beta1.InternalErrorReason,
		message: "An unexpected error occurred; retrying soon", requeue: jitter(transientRequeue)}
}

// isInvalidInput reports whether an AWS code says a value from the
// cluster's configuration (subnets, VPC, CIDRs) is wrong.
func isInvalidInput(code string) bool {
	return strings.HasPrefix(code, "InvalidParameter") || strings.HasPrefix(code, "InvalidSubnet") ||
		strings.HasPrefix(code, "InvalidVpcID") || code == "DuplicateSubnetsInSameZone" || code == "InvalidInput"
}

// readyOutcome is the condition of an available endpoint with its records.
func readyOutcome(endpointID string, names []string, drift time.Duration) outcome {
	msg := fmt.Sprintf("VPC endpoint %s is available", endpointID)
	if len(names) > 0 {
		sorted := append([]string(nil), names...)
		sort.Strings(sorted)
		msg += "; DNS records " + strings.Join(sorted, ", ") + " point at it"
	}
	return outcome{status: metav1.ConditionTrue, reason: hcplinkv1beta1.AWSSuccessReason, message: msg, requeue: jitter(drift)}
}
