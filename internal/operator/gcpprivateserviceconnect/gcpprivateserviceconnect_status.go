package gcpprivateserviceconnect

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/compute/v1"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Delays of states whose length is known.
const (
	// operationPollMin/Max: when Google's wait answered before a Compute
	// Engine operation was done (it holds the call up to the provider's
	// per-call timeout), look again within seconds; the next wait holds
	// again. No growth: the steps of one creation share a reason.
	operationPollMin = 2 * time.Second
	operationPollMax = 5 * time.Second
	// controlPlaneCleanupPoll: the control-plane operator's finalizer
	// removal wakes us through the watch; this is the safety net.
	controlPlaneCleanupPoll = 30 * time.Second
)

// desiredConsumers is the accept list the attachment must carry: the
// HostedCluster's project and additionalAllowedProjects, read from the
// HostedCluster itself so that a change reaches the attachment in the pass
// its update starts (the control-plane operator's copy in
// spec.consumerAcceptList follows later); the spec's list when the
// HostedCluster is gone.
func desiredConsumers(hc *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.GCPPrivateServiceConnect) []gcpcloud.Consumer {
	projects := cr.Spec.ConsumerAcceptList
	if hc != nil && hc.Spec.Platform.GCP != nil {
		projects = hc.Spec.Platform.GCP.AcceptedProjects()
	}
	out := make([]gcpcloud.Consumer, 0, len(projects))
	for _, p := range projects {
		if p != "" && !slices.ContainsFunc(out, func(c gcpcloud.Consumer) bool { return c.Project == p }) {
			out = append(out, gcpcloud.Consumer{Project: p, ConnectionLimit: gcpcloud.DefaultConnectionLimit})
		}
	}
	return out
}

func projectsOf(cs []gcpcloud.Consumer) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Project)
	}
	return out
}

// allowedNATSubnets are the subnetworks a new attachment may take: the one
// named given (when set), among those the operator may use (allowed; none:
// all).
func allowedNATSubnets(subnets []*compute.Subnetwork, given string, allowed []string) []*compute.Subnetwork {
	var out []*compute.Subnetwork
	for _, s := range subnets {
		if given != "" && s.Name != given {
			continue
		}
		if given == "" && len(allowed) > 0 && !slices.Contains(allowed, s.Name) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// lastSegments are the names at the end of links.
func lastSegments(links []string) []string {
	var out []string
	for _, l := range links {
		out = append(out, l[strings.LastIndex(l, "/")+1:])
	}
	return out
}

// natClaims reserves NAT subnetworks for objects whose attachment is being
// created, and then for as long as the shared listing of attachments is
// older than the attachment: a listing does not show one whose insert is
// still running, nor one made after it was listed.
type natClaims struct {
	mu     sync.Mutex
	claims map[string]natClaim // subnetwork's relative name → its claim
}

// natClaim is one object's hold on a NAT subnetwork. made is when its
// attachment was known to exist (zero while it is being created): a
// listing made after that shows the attachment itself, and the claim goes.
type natClaim struct {
	uid  types.UID
	made time.Time
}

// choose picks, under the lock, the subnetwork FreeNATSubnet gives for
// uid's attachment name, counting other objects' claims as taken, and
// claims it. attachments were listed at listedAt: claims whose attachment
// the listing shows are dropped.
func (c *natClaims) choose(uid types.UID, subnets []*compute.Subnetwork, attachments []*compute.ServiceAttachment, listedAt time.Time, name string) (*compute.Subnetwork, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for link, claim := range c.claims {
		if !claim.made.IsZero() && claim.made.Before(listedAt) {
			delete(c.claims, link)
			continue
		}
		if claim.uid != uid {
			attachments = append(attachments, &compute.ServiceAttachment{Name: "claimed-by-" + string(claim.uid), NatSubnets: []string{link}})
		}
	}
	nat, err := gcpcloud.FreeNATSubnet(subnets, attachments, name)
	if err != nil {
		return nil, err
	}
	if c.claims == nil {
		c.claims = map[string]natClaim{}
	}
	c.claims[gcpcloud.RelativeName(nat.SelfLink)] = natClaim{uid: uid}
	return nat, nil
}

// made marks uid's claims as made at now: its attachment exists, and the
// claim holds until a listing younger than now shows it.
func (c *natClaims) made(uid types.UID, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for link, claim := range c.claims {
		if claim.uid == uid && claim.made.IsZero() {
			c.claims[link] = natClaim{uid: uid, made: now}
		}
	}
}

// release drops uid's claims: its creation failed, or the object goes.
func (c *natClaims) release(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for link, claim := range c.claims {
		if claim.uid == uid {
			delete(c.claims, link)
		}
	}
}

// operationRunning: a change is under way; the next pass waits on it.
func operationRunning(doing string) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForServiceAttachmentReason, upperFirst(doing)+".", outcome.Between(operationPollMin, operationPollMax))
}

// waitingForIP: the control-plane operator has not reported the router's
// internal load balancer address yet; its spec write wakes us.
func waitingForIP() outcome.Outcome {
	return outcome.WaitForEvent(hcplinkv1beta1.WaitingForLoadBalancerIPReason,
		"Waiting for the control-plane operator to report the private router's internal load balancer address (spec.loadBalancerIP).")
}

// ruleNotFound: no internal forwarding rule of the management network
// holds the address; the cloud provider may still be making it, so look
// again soon, then rarely.
func ruleNotFound(ip, network, region string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.ForwardingRuleNotFoundReason, fmt.Sprintf(
		"No internal forwarding rule of the management network %s in %s holds address %s (spec.loadBalancerIP); the private router's Service must have an internal load balancer in that network, and the operator's --gcp-network must name the management cluster's network.",
		orUnnamed(network), orUnnamed(region), ip))
}

// natSubnetNotFound: spec.natSubnet names no Private Service Connect
// subnetwork of the management network.
func natSubnetNotFound(name, network, region string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetNotFoundReason, fmt.Sprintf(
		"NAT subnetwork %s (natSubnet) is not a subnetwork of purpose %s in the management network %s in %s; create it there, or remove natSubnet from the cluster so that hcplink picks one.",
		name, gcpcloud.PurposePrivateServiceConnect, orUnnamed(network), orUnnamed(region)))
}

// natSubnetTaken: the NAT subnetwork spec.natSubnet names already serves
// another attachment.
func natSubnetTaken(name string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetsExhaustedReason, fmt.Sprintf(
		"NAT subnetwork %s (natSubnet) already serves another service attachment, and GCP lets a NAT subnetwork serve only one; give the cluster a free one.", name))
}

// natSubnetsExhausted: every Private Service Connect subnetwork the fleet
// may take serves an attachment
// (https://cloud.google.com/vpc/docs/about-vpc-hosted-services#psc-subnets:
// a NAT subnetwork serves one service attachment).
func natSubnetsExhausted(n int, network, region string) outcome.Outcome {
	if n == 0 {
		return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetsExhaustedReason, fmt.Sprintf(
			"The management network %s has no subnetwork of purpose %s in %s that the operator may take; add one there (and to --gcp-nat-subnets when it is set): each service attachment needs its own.",
			orUnnamed(network), gcpcloud.PurposePrivateServiceConnect, orUnnamed(region)))
	}
	return outcome.WaitOnPerson(hcplinkv1beta1.NATSubnetsExhaustedReason, fmt.Sprintf(
		"Each of the %d NAT subnetworks of purpose %s in the management network %s in %s already serves a service attachment, and GCP lets one serve only one; add a subnetwork of purpose %s to that network in that region (and to --gcp-nat-subnets when it is set).",
		n, gcpcloud.PurposePrivateServiceConnect, orUnnamed(network), orUnnamed(region), gcpcloud.PurposePrivateServiceConnect))
}

// notOurs: an attachment with the object's name that hcplink did not make
// for this cluster and management cluster is never adopted, changed or
// deleted.
func notOurs(name, why string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.OwnedByAnotherManagementClusterReason,
		"Service attachment "+name+" exists but "+why+"; hcplink leaves it alone. Delete or rename it, or remove the cluster from the management cluster that made it.")
}

// waitingForControlPlane: deletion waits for the control-plane operator's
// cleanup of the customer side.
func waitingForControlPlane() outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForControlPlaneCleanupReason,
		"Deleting: waiting for the control-plane operator to remove the Private Service Connect endpoint and the private DNS zone (finalizer "+
			hcplinkv1beta1.ControlPlaneFinalizer+") before the service attachment is deleted.", controlPlaneCleanupPoll)
}

// deleting: a deletion step is under way; the next pass waits on it.
func deleting(what string) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.DeletingReason, "Deleting: "+what+".", outcome.Between(operationPollMin, operationPollMax))
}

// readyMessage is the condition's message when the attachment is as it
// must be.
func readyMessage(name, rule string, projects int) string {
	return fmt.Sprintf("Service attachment %s publishes forwarding rule %s; %d projects may connect.", name, rule, projects)
}

func orUnnamed(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return gcpcloud.RelativeName(s)[strings.LastIndex(gcpcloud.RelativeName(s), "/")+1:]
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
