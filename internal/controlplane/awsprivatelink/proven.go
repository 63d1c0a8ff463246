package awsprivatelink

import (
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/types"
)

// How long facts proved by a pass are reused by the passes that follow.
// Short-lived facts (the security group, the endpoint, the records) serve
// only the passes of one create or repair: a pass that finishes Ready
// forgets them, so every drift check looks at the cloud again. Subnet zones
// never change and a service's zones change only with its load balancer,
// so those last longer.
const (
	subnetFactsFor  = 6 * time.Hour
	serviceFactsFor = time.Hour
)

// passInputs are what every remembered fact rests on: when one changes
// (a spec, the service, the endpoint or group we point at) nothing is
// reused.
type passInputs struct {
	crGeneration, hcpGeneration  int64
	service, endpointID, groupID string
}

func inputsOf(s *scope) passInputs {
	return passInputs{crGeneration: s.cr.Generation, hcpGeneration: s.hcp.Generation, service: s.cr.Status.EndpointServiceName,
		endpointID: s.cr.Status.EndpointID, groupID: s.cr.Status.SecurityGroupID}
}

// proven is what recent passes of one CR proved about the cloud, so that a
// pass that failed at the records (Route 53 throttled) starts again at the
// records, and a poll of a pending endpoint describes only the endpoint.
type proven struct {
	inputs passInputs

	groupAt time.Time // the security group's rules and tags were made right

	subnets         []ec2types.Subnet // one per zone
	missingSubnets  []string
	otherVPCSubnets []string
	subnetsAt       time.Time

	service   *serviceInfo
	serviceAt time.Time

	endpoint   *ec2types.VpcEndpoint // as last described or created
	notes      []string              // what the ready message adds about the endpoint's zones
	endpointAt time.Time

	recordsFor string // the endpoint DNS name the records were made right for
	recordsAt  time.Time
}

// within says whether a fact proved at t is still usable after d.
func within(t, now time.Time, d time.Duration) bool { return !t.IsZero() && now.Sub(t) < d }

// recall returns what is still usable for this pass's inputs (empty when
// they changed). Short-lived facts are usable for half a drift interval.
func (r *Reconciler) recall(s *scope, now time.Time) *proven {
	r.provenMu.Lock()
	p, ok := r.proven[s.cr.UID]
	r.provenMu.Unlock()
	if !ok || p.inputs != inputsOf(s) {
		return &proven{}
	}
	fresh := r.driftInterval() / 2
	out := &proven{inputs: p.inputs}
	if within(p.groupAt, now, fresh) {
		out.groupAt = p.groupAt
	}
	if within(p.subnetsAt, now, subnetFactsFor) {
		out.subnets, out.missingSubnets, out.otherVPCSubnets, out.subnetsAt = p.subnets, p.missingSubnets, p.otherVPCSubnets, p.subnetsAt
	}
	if within(p.serviceAt, now, serviceFactsFor) {
		out.service, out.serviceAt = p.service, p.serviceAt
	}
	if within(p.endpointAt, now, fresh) {
		out.endpoint, out.notes, out.endpointAt = p.endpoint, p.notes, p.endpointAt
	}
	if within(p.recordsAt, now, fresh) {
		out.recordsFor, out.recordsAt = p.recordsFor, p.recordsAt
	}
	return out
}

// remember keeps what this pass proved, under the inputs as they are now
// (a pass may have written the endpoint or group ID).
func (r *Reconciler) remember(s *scope, p *proven) {
	p.inputs = inputsOf(s)
	r.provenMu.Lock()
	defer r.provenMu.Unlock()
	if r.proven == nil {
		r.proven = map[types.UID]*proven{}
	}
	r.proven[s.cr.UID] = p
}

// forgetPassFacts drops the short-lived facts after a pass that finished:
// the next pass is a drift check and looks again.
func (p *proven) forgetPassFacts() {
	p.groupAt, p.endpoint, p.notes, p.endpointAt, p.recordsFor, p.recordsAt = time.Time{}, nil, nil, time.Time{}, "", time.Time{}
}

// forget drops everything remembered of a CR.
func (r *Reconciler) forget(uid types.UID) {
	r.provenMu.Lock()
	defer r.provenMu.Unlock()
	delete(r.proven, uid)
}
