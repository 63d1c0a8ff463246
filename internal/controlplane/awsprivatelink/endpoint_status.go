package awsprivatelink

import (
	"fmt"
	"sort"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Intervals. Each is a named constant with the reason for its value; the
// delays of trouble (throttling, errors, waiting on a person) come from the
// shared policy (internal/outcome) and grow per object.
const (
	// DefaultDriftInterval is how often a healthy endpoint is checked
	// against the cloud (records deleted behind our back, tags, rules): the
	// platform's default.
	DefaultDriftInterval = intervals.AWSDrift
	// pendingFirstPoll, pendingMaxPoll: an endpoint becomes available
	// within a minute or two on AWS, within seconds on a quiet one; the
	// first look comes soon and later ones space out (each costs one
	// DescribeVpcEndpoints, see pollPendingEndpoint).
	pendingFirstPoll = 5 * time.Second
	pendingMaxPoll   = 30 * time.Second
	// deletingRequeue: an endpoint being deleted is gone within a minute.
	deletingRequeue = 10 * time.Second
	// notVisibleRequeue: the endpoint service is not visible to the
	// customer account until the operator allows its principal.
	notVisibleRequeue = 30 * time.Second
	// passTimeout bounds one pass's cloud calls (normal and deletion), so
	// that a slow or stuck cloud never holds a worker (the status write
	// after the pass gets its own context).
	passTimeout = 2 * time.Minute
)

// endpointStateOutcome maps the endpoint's state to the condition while
// the endpoint is not usable; Continue means it is available.
func endpointStateOutcome(id string, state ec2types.State) outcome.Outcome {
	switch strings.ToLower(string(state)) {
	case "available":
		return outcome.Continue()
	case "pending":
		return outcome.Poll(hcplinkv1beta1.EndpointPendingReason,
			fmt.Sprintf("VPC endpoint %s is being created", id), pendingFirstPoll, pendingMaxPoll)
	case "pendingacceptance":
		return outcome.WaitOnPerson(hcplinkv1beta1.EndpointPendingAcceptanceReason,
			fmt.Sprintf("VPC endpoint %s waits for the endpoint service to accept it; the operator allows this cluster's role and does not require acceptance, so check the endpoint service's settings", id))
	case "rejected":
		return outcome.WaitOnPerson(hcplinkv1beta1.EndpointRejectedReason,
			fmt.Sprintf("The endpoint service rejected VPC endpoint %s; delete the endpoint in the customer account to have it recreated, or check the endpoint service's allowed principals", id))
	case "failed":
		return outcome.WaitOnPerson(hcplinkv1beta1.EndpointFailedReason,
			fmt.Sprintf("AWS reports VPC endpoint %s failed; delete it in the customer account to have it recreated", id))
	default:
		return outcome.Poll(hcplinkv1beta1.EndpointPendingReason,
			fmt.Sprintf("VPC endpoint %s is %s", id, state), pendingFirstPoll, pendingMaxPoll)
	}
}

// zoneMismatchOutcome: the service serves none of the cluster's zones.
func zoneMismatchOutcome(served, unserved []string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.ZoneMismatchReason, fmt.Sprintf(
		"The endpoint service's load balancer serves only zone IDs %s and does not balance across zones, so none of subnets %s can be used; add subnets in those zones to the NodePools or enable cross-zone load balancing on the load balancer",
		orNone(served), strings.Join(unserved, ", ")))
}

// missingSubnetsOutcome: NodePools name subnets that no longer exist; the
// endpoint serves the rest (said in the message, records kept).
func missingSubnetsOutcome(endpointID string, missing []string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.SubnetNotFoundReason, fmt.Sprintf(
		"Subnets %s named by the cluster's NodePools no longer exist in the customer account; VPC endpoint %s uses the other subnets and its DNS records are kept. Fix or remove those NodePools",
		strings.Join(missing, ", "), endpointID))
}

// otherVPCSubnetsOutcome: NodePools name subnets of another VPC than the
// cluster's; the endpoint, when there is one, serves the rest.
func otherVPCSubnetsOutcome(endpointID, vpc string, subnets []string) outcome.Outcome {
	serving := "no VPC endpoint can be made until a NodePool names a subnet of that VPC"
	if endpointID != "" {
		serving = fmt.Sprintf("VPC endpoint %s uses the other subnets and its DNS records are kept", endpointID)
	}
	return outcome.WaitOnPerson(hcplinkv1beta1.SubnetNotInVPCReason, fmt.Sprintf(
		"Subnets %s named by the cluster's NodePools are not in the cluster's VPC %s (spec.platform.aws.cloudProviderConfig.vpc), so %s. Move those NodePools to subnets of %s",
		strings.Join(subnets, ", "), vpc, serving, vpc))
}

// readyOutcome is the condition of an available endpoint with its records;
// notes say what the endpoint cannot do (zones it does not reach).
func readyOutcome(endpointID string, names []string, notes []string, drift time.Duration) outcome.Outcome {
	msg := fmt.Sprintf("VPC endpoint %s is available", endpointID)
	if len(names) > 0 {
		sorted := append([]string(nil), names...)
		sort.Strings(sorted)
		msg += "; DNS records " + strings.Join(sorted, ", ") + " point at it"
	}
	for _, n := range notes {
		msg += ". " + n
	}
	return outcome.Ready(hcplinkv1beta1.AWSSuccessReason, msg, drift)
}

// unservedNote says which zones the endpoint does not reach.
func unservedNote(unserved, served []string) string {
	if len(unserved) == 0 {
		return ""
	}
	return "It does not reach subnets " + strings.Join(unserved, ", ") +
		": the endpoint service's load balancer serves only zone IDs " + orNone(served) +
		" and does not balance across zones (add those zones to the load balancer or enable cross-zone load balancing)"
}

// withCredentialsCause replaces an AccessDenied outcome by the true cause
// when the HostedControlPlane says the operator's credentials are invalid:
// then no permission is missing, the role itself cannot be used.
func withCredentialsCause(o outcome.Outcome, hcp *hcplinkv1beta1.HostedControlPlane) outcome.Outcome {
	if o.Reason != hcplinkv1beta1.AccessDeniedReason || hcp == nil {
		return o
	}
	c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	if c == nil || c.Status != metav1.ConditionFalse {
		return o
	}
	o.Reason = hcplinkv1beta1.InvalidCredentialsReason
	o.Message = outcome.Bound("The control-plane operator's AWS credentials are invalid, so no call can succeed: " + c.Message)
	return o
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
