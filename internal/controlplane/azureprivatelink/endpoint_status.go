package azureprivatelink

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Delays of the endpoint controller, each with its reason.
const (
	// DefaultDriftInterval is how often a healthy private path is checked
	// against the cloud (the platform's default), jittered.
	DefaultDriftInterval = intervals.AzureDrift
	// pendingFirstPoll and pendingMostPoll bound the polls of an endpoint
	// whose connection waits for approval or whose creation runs.
	pendingFirstPoll = 5 * time.Second
	pendingMostPoll  = 2 * time.Minute
	// unknownServiceMostPoll bounds the retries of an endpoint whose
	// service Azure does not know yet: its alias propagates in seconds.
	unknownServiceMostPoll = 30 * time.Second
	// operationPoll is the first look at a long-running operation we
	// started; Azure's network operations take seconds to a minute.
	operationPoll = 5 * time.Second
	// passTimeout bounds one pass; each call inside it has its own shorter
	// timeout in the providers.
	passTimeout = 2 * time.Minute
)

// Connection states of a Private Endpoint's connection, as Azure spells
// them.
const (
	connectionApproved     = "Approved"
	connectionRejected     = "Rejected"
	connectionDisconnected = "Disconnected"
)

// endpointView is what the controller needs of a Private Endpoint.
type endpointView struct {
	ID                string
	ProvisioningState string // Succeeded, Updating, Deleting, Failed
	ConnectionStatus  string // Approved, Pending, Rejected, Disconnected
	// ServiceRef is the connection's privateLinkServiceId as written: the
	// alias we connected to.
	ServiceRef string
	IP         string
}

// EndpointOutcome is what the Private Endpoint named name, as ep shows
// it, means for the pass: Continue when it is provisioned, approved and
// has an address.
func EndpointOutcome(name string, ep endpointView) outcome.Outcome {
	switch {
	case strings.EqualFold(ep.ProvisioningState, "Failed"):
		return outcome.WaitOnPerson(hcplinkv1beta1.PrivateEndpointFailedReason,
			"Azure reports Private Endpoint "+name+" failed; it is being replaced")
	case strings.EqualFold(ep.ProvisioningState, "Deleting"):
		return outcome.Poll(hcplinkv1beta1.PrivateEndpointPendingReason, "Waiting for Private Endpoint "+name+" to finish deleting", pendingFirstPoll, pendingMostPoll)
	case strings.EqualFold(ep.ConnectionStatus, connectionRejected), strings.EqualFold(ep.ConnectionStatus, connectionDisconnected):
		return outcome.WaitOnPerson(hcplinkv1beta1.PrivateEndpointRejectedReason,
			"The Private Link Service "+strings.ToLower(ep.ConnectionStatus)+" the connection of Private Endpoint "+name+
				"; the cluster's subscription must be allowed on the Private Link Service. A refused connection cannot be approved again, so the endpoint is replaced at growing intervals until the service approves it")
	case !strings.EqualFold(ep.ProvisioningState, "Succeeded"):
		return outcome.Poll(hcplinkv1beta1.PrivateEndpointPendingReason, "Waiting for Private Endpoint "+name+" to be provisioned", pendingFirstPoll, pendingMostPoll)
	case !strings.EqualFold(ep.ConnectionStatus, connectionApproved):
		// Approval waits on the management side (it approves connections
		// from the subscriptions the cluster allows) or on a person; the
		// management side's report of the approval brings the CR back at
		// once, so the rechecks may grow like any wait on a person.
		return outcome.WaitOnPerson(hcplinkv1beta1.PrivateEndpointPendingReason,
			"Waiting for the Private Link Service to approve the connection of Private Endpoint "+name+
				"; the operator approves connections from the cluster's allowed subscriptions, or the service's owner approves it")
	case ep.IP == "":
		return outcome.Poll(hcplinkv1beta1.PrivateEndpointPendingReason, "Waiting for Private Endpoint "+name+" to get an address", pendingFirstPoll, pendingMostPoll)
	}
	return outcome.Continue()
}

// conditionsOf turns the pass's outcomes into the three conditions the
// control-plane operator writes. endpoint is the endpoint phase's outcome,
// dns the DNS phase's (not run when the endpoint phase did not finish),
// overall the pass's.
func conditionsOf(endpoint, dns, overall outcome.Outcome, endpointName, ip, zone string, dnsRan bool) []metav1.Condition {
	epCond := endpoint.Condition(hcplinkv1beta1.AzurePrivateEndpointAvailableCondition)
	if endpoint.Done() {
		epCond = metav1.Condition{Type: hcplinkv1beta1.AzurePrivateEndpointAvailableCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.AzureSuccessReason, Message: "Private Endpoint " + endpointName + " is approved and has address " + ip}
	}
	var dnsCond metav1.Condition
	switch {
	case !dnsRan:
		dnsCond = metav1.Condition{Type: hcplinkv1beta1.AzurePrivateDNSAvailableCondition, Status: metav1.ConditionFalse,
			Reason: epCond.Reason, Message: "Waiting for the Private Endpoint's address before the DNS records"}
	case dns.Done():
		dnsCond = metav1.Condition{Type: hcplinkv1beta1.AzurePrivateDNSAvailableCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.AzureSuccessReason, Message: "Private DNS zone " + zone + " is linked to the cluster's VNet with records api and *.apps for " + ip}
	default:
		dnsCond = dns.Condition(hcplinkv1beta1.AzurePrivateDNSAvailableCondition)
	}
	return []metav1.Condition{epCond, dnsCond, overall.Condition(hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)}
}
