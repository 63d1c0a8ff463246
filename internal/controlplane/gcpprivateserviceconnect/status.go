package gcpprivateserviceconnect

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Delays of the endpoint controller.
const (
	// DefaultDriftInterval is how often a healthy private path is checked
	// against the cloud (the platform's default), jittered.
	DefaultDriftInterval = intervals.GCPDrift
	// DefaultMaxConcurrentReconciles: one hung call never holds the others.
	DefaultMaxConcurrentReconciles = 2
	// operationPoll and mostPoll bound the looks at an operation of ours
	// still running, or at a connection the attachment has not accepted
	// yet; Compute Engine's operations take seconds.
	operationPoll = 5 * time.Second
	mostPoll      = 2 * time.Minute
	// attachmentFirstPoll and attachmentMostPoll pace the looks at an
	// attachment that is gone: the operator makes it again within a pass
	// of its own, or waits on a person.
	attachmentFirstPoll = 30 * time.Second
	attachmentMostPoll  = 10 * time.Minute
	// passTimeout bounds one pass; each call inside it has its own shorter
	// timeout in the providers.
	passTimeout = 2 * time.Minute
)

// Reasons local to the control-plane operator (the API's name no wait on
// an operation and no foreign resource of our name).
const (
	// ProvisioningReason: Compute Engine is making or removing the address
	// or the forwarding rule.
	ProvisioningReason = "PSCEndpointProvisioning"
	// NotOursReason: a resource of the name hcplink gives this cluster's
	// exists without this cluster's labels; hcplink neither uses nor
	// deletes it.
	NotOursReason = "ResourceNotOurs"
)

const identityNotConfiguredMessage = "The control-plane operator has no GCP workload identity, and uses no other: set " +
	"spec.platform.gcp.workloadIdentity.poolProvider and serviceAccountsEmails.controlPlaneOperator on the HostedCluster"

// passResult is what a pass found, phase by phase.
type passResult struct {
	ip                          string
	endpointOutcome, dnsOutcome outcome.Outcome
	dnsRan                      bool
	overall                     outcome.Outcome
}

func (p passResult) conditions(s *scope) []metav1.Condition {
	return conditionsOf(p.endpointOutcome, p.dnsOutcome, p.overall, s.cr.Status.EndpointName, p.ip, s.cr.Status.DNSZoneName, p.dnsRan)
}

// conditionsOf turns the pass's outcomes into the three conditions the
// control-plane operator writes.
func conditionsOf(endpoint, dns, overall outcome.Outcome, endpointName, ip, zone string, dnsRan bool) []metav1.Condition {
	epCond := endpoint.Condition(hcplinkv1beta1.GCPEndpointAvailableCondition)
	if endpoint.Done() {
		epCond = metav1.Condition{Type: hcplinkv1beta1.GCPEndpointAvailableCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.GCPSuccessReason, Message: "Private Service Connect endpoint " + endpointName + " is accepted at " + ip}
	}
	var dnsCond metav1.Condition
	switch {
	case !dnsRan:
		dnsCond = metav1.Condition{Type: hcplinkv1beta1.GCPDNSAvailableCondition, Status: metav1.ConditionFalse,
			Reason: epCond.Reason, Message: "Waiting for the endpoint's address before the DNS records"}
	case dns.Done():
		dnsCond = metav1.Condition{Type: hcplinkv1beta1.GCPDNSAvailableCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.GCPSuccessReason, Message: "Private DNS zone " + zone + " resolves api and *.apps to " + ip + " in the cluster's network"}
	default:
		dnsCond = dns.Condition(hcplinkv1beta1.GCPDNSAvailableCondition)
	}
	return []metav1.Condition{epCond, dnsCond, overall.Condition(hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)}
}
