package awsprivatelink

import (
	"context"
	"fmt"
	"sync"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// EndpointFieldOwner is the field manager of the endpoint controller's
// writes (its condition is applied server-side under this name).
const EndpointFieldOwner = "hcplink-aws-endpoint"

// TokenGenerationAnnotation keeps the generation of the VPC endpoint's
// ClientToken: raised each time the endpoint is deliberately replaced, so
// that the replacement is a new endpoint, and kept so that a retried create
// after a restart is the same one.
const TokenGenerationAnnotation = "hcplink.io/endpoint-token-generation"

// EndpointCreatedAtAnnotation keeps when the VPC endpoint was last created
// (RFC 3339), so that an endpoint EC2 does not show yet is not taken for
// one deleted behind our back.
const EndpointCreatedAtAnnotation = "hcplink.io/endpoint-created-at"

// endpointVisibilityGrace is how long after its creation an endpoint that
// describing by ID says does not exist is waited for rather than replaced:
// EC2's API is eventually consistent, a resource just created may be
// reported missing, and AWS advises describing again with backoff for up
// to a few minutes
// (https://docs.aws.amazon.com/ec2/latest/devguide/eventual-consistency.html).
const endpointVisibilityGrace = 2 * time.Minute

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// endpointVisibilityRecheck is how soon such an endpoint is looked for again.
const endpointVisibilityRecheck = 5 * time.Second

// ResourceTagKeysAnnotation lists the resourceTags keys last put on the
// cloud resources, so that a key removed from resourceTags is removed from
// them too while tags someone else added are never touched.
const ResourceTagKeysAnnotation = "hcplink.io/applied-resource-tag-keys"

// clientTokenPurpose names the VPC endpoint's create in its ClientToken.
const clientTokenPurpose = "vpc-endpoint"

// Reconciler is the control-plane operator's endpoint controller: for each
// AWSEndpointService in its namespace it keeps a VPC endpoint, its security
// group and DNS records in the customer's VPC, and removes them on
// deletion. It orchestrates and sets conditions; the cloud calls are the
// providers' (internal/cloud/aws).
type Reconciler struct {
	Client  client.Client
	EC2     awscloud.EC2API
	Route53 awscloud.Route53API
	// DriftInterval is how often a healthy endpoint is checked; zero means
	// DefaultDriftInterval. Each check is jittered by ±15%.
	DriftInterval time.Duration
	// Tracker grows the delays of repeated trouble per CR; nil uses a
	// private one.
	Tracker *outcome.Tracker
	// MaxConcurrentReconciles is the worker count; zero means
	// platform.DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
	// Events tells people what was created, adopted or deleted and how the
	// condition changed; nil tells nothing.
	Events *events.Recorder
	// Now is the clock of the endpoint's visibility grace; nil is time.Now.
	Now func() time.Time

	initOnce sync.Once

	// shownAtDeletion holds the endpoints a deletion pass saw EC2 show:
	// one of them missing later is gone, not yet to be shown.
	shownAtDeletion sync.Map // endpoint ID → struct{}
	tracker         *outcome.Tracker

	zonesMu sync.Mutex
	zoneIDs map[string]map[string]string // region → zone name → zone ID
	// refused remembers, per CR, the zone IDs the endpoint service refused
	// subnets in, so that a steady state does not retry a refused subnet.
	refused map[types.UID]refusal

	provenMu sync.Mutex
	// proven remembers, per CR, what recent passes proved (see proven).
	proven map[types.UID]*proven
}

func (r *Reconciler) outcomes() *outcome.Tracker {
	r.initOnce.Do(func() { r.tracker = trackerOr(r.Tracker) })
	return r.tracker
}

// trackerOr is the tracker given (shared by the controllers of one
// process), or a private one.
func trackerOr(given *outcome.Tracker) *outcome.Tracker {
	if given != nil {
		return given
	}
	return &outcome.Tracker{}
}

// SetupWithManager registers the controller: AWSEndpointServices, the
// HostedControlPlane (its spec feeds every CR) and the ExternalName
// Services it owns. Our own status writes do not bring a CR back; the
// operator's endpointServiceName (a status field) does.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return reconcilekit.EndpointController{
		Name: "awsendpoint",
		For:  &hcplinkv1beta1.AWSEndpointService{},
		List: &hcplinkv1beta1.AWSEndpointServiceList{},
		StatusChanged: reconcilekit.StatusOf(func(o, n *hcplinkv1beta1.AWSEndpointService) bool {
			return o.Status.EndpointServiceName != n.Status.EndpointServiceName
		}),
		Workers: reconcilekit.WorkersOr(r.MaxConcurrentReconciles, platform.DefaultMaxConcurrentReconciles),
	}.Setup(mgr, r)
}

// finisher ends the controller's passes with AWSEndpointAvailable, under this
// controller's field owner (the only type it writes on the kind), so the
// operator's AWSEndpointServiceAvailable on the same object is never
// touched.
func (r *Reconciler) finisher() reconcilekit.Finisher {
	return reconcilekit.Finisher{Tracker: r.outcomes(), Writer: conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner,
		Types: []string{hcplinkv1beta1.AWSEndpointAvailableCondition}, Events: r.Events}, Type: hcplinkv1beta1.AWSEndpointAvailableCondition}
}

func (r *Reconciler) driftInterval() time.Duration {
	if r.DriftInterval > 0 {
		return r.DriftInterval
	}
	return DefaultDriftInterval
}

// Reconcile drives one AWSEndpointService toward a usable VPC endpoint.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	hcp, err := r.hostedControlPlane(ctx, cr)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := r.newScope(cr, hcp)
	if !cr.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if hcp == nil || !hcp.DeletionTimestamp.IsZero() || hcp.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform || hcp.Spec.Platform.AWS == nil {
		// Nothing to build for; the operator deletes the CR in order.
		return ctrl.Result{}, nil
	}

	if added, err := reconcilekit.EnsureFinalizer(ctx, r.Client, cr, hcplinkv1beta1.ControlPlaneFinalizer, nil); err != nil {
		return ctrl.Result{}, err
	} else if added {
		s.base = cr.DeepCopy()
	}

	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		return r.finisher().Finish(ctx, s.target(), outcome.Unknown(hcplinkv1beta1.ReconciliationPausedReason,
			"Reconciliation is paused by the cluster's pausedUntil; the VPC endpoint is left as it is", remaining))
	}

	// What cleanup needs, kept before anything is created.
	aws := hcp.Spec.Platform.AWS
	cr.Status.Region, cr.Status.InfraID = aws.Region, hcp.Spec.InfraID
	if aws.CloudProviderConfig != nil {
		cr.Status.VPCID = aws.CloudProviderConfig.VPC
	}
	r.useRegion(s)

	// A slow or stuck cloud never holds a worker for long.
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	o := r.reconcileNormal(passCtx, s)
	o = withCredentialsCause(o, hcp)
	t := s.target()
	if o.Status == metav1.ConditionTrue && s.cr.DeletionTimestamp.IsZero() {
		// Available means EC2 has shown the endpoint: the created-at mark
		// has served. Dropped after the status write, so that the answer
		// to this patch cannot overwrite status not yet written.
		t.Persist = func(ctx context.Context) error {
			if err := s.persist(ctx); err != nil {
				return err
			}
			return s.patchAnnotation(ctx, EndpointCreatedAtAnnotation, "")
		}
	}
	return r.finisher().Finish(ctx, t, o)
}

// reconcileNormal runs the phases in order; the first that cannot finish
// decides the condition. A phase whose result a recent pass proved (see
// proven) is not asked of the cloud again.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) outcome.Outcome {
	cr := s.cr
	if cr.Status.EndpointServiceName == "" {
		return outcome.WaitForEvent(hcplinkv1beta1.WaitingForEndpointServiceReason,
			"Waiting for the operator to create the VPC endpoint service for load balancer "+cr.Spec.NetworkLoadBalancerName)
	}
	if cr.Status.VPCID == "" {
		return outcome.WaitOnPerson(hcplinkv1beta1.InvalidParameterReason, "The cluster names no VPC (spec.platform.aws.cloudProviderConfig.vpc)")
	}
	wanted := WantedSubnetIDs(cr, s.hcp)
	if len(wanted) == 0 {
		return outcome.WaitForEvent(hcplinkv1beta1.WaitingForSubnetsReason, "Waiting for the operator to list the NodePools' subnets in spec.subnetIDs")
	}
	now := time.Now()
	p := r.recall(s, now)
	o := r.runPhases(ctx, s, p, wanted, now)
	if o.Status == metav1.ConditionTrue {
		p.forgetPassFacts()
	}
	r.remember(s, p)
	return o
}

// runPhases is reconcileNormal's work, recording in p what it proves.
func (r *Reconciler) runPhases(ctx context.Context, s *scope, p *proven, wanted []string, now time.Time) outcome.Outcome {
	cr := s.cr
	if p.groupAt.IsZero() {
		if o := r.reconcileSecurityGroup(ctx, s); !o.Done() {
			return o
		}
		p.groupAt = now
	}
	if p.subnetsAt.IsZero() {
		subnets, o := r.selectSubnets(ctx, s, wanted)
		if !o.Done() {
			return o
		}
		p.subnets, p.missingSubnets, p.otherVPCSubnets, p.subnetsAt = subnets, s.missingSubnets, s.otherVPCSubnets, now
	}
	s.missingSubnets, s.otherVPCSubnets = p.missingSubnets, p.otherVPCSubnets
	if p.serviceAt.IsZero() {
		svc, o := r.serviceZones(ctx, s)
		if !o.Done() {
			return o
		}
		p.service, p.serviceAt = &svc, now
	}
	ep, o := r.endpointOf(ctx, s, p, now)
	if !o.Done() {
		return o
	}
	state := endpointStateOutcome(cr.Status.EndpointID, ep.State)
	if !state.Done() && !awscloud.EndpointStateIs(ep.State, "pending") {
		return state // rejected, failed...: no records to a dead endpoint
	}

	target := awscloud.EndpointDNSName(ep)
	if target == "" {
		return outcome.Wait(hcplinkv1beta1.EndpointPendingReason, "Waiting for VPC endpoint "+cr.Status.EndpointID+" to get DNS names", pendingFirstPoll)
	}
	// Records are written while the endpoint is still pending: nodes that
	// ask early should not cache a negative answer.
	if p.recordsFor != target || p.recordsAt.IsZero() {
		if o := r.reconcileDNS(ctx, s, target); !o.Done() {
			return o
		}
		if err := s.externalNames(ctx, target); err != nil {
			return outcome.FromError(fmt.Errorf("writing the ExternalName Services: %w", err))
		}
		p.recordsFor, p.recordsAt = target, now
	}
	if !state.Done() {
		return state
	}
	if len(s.otherVPCSubnets) > 0 {
		return otherVPCSubnetsOutcome(cr.Status.EndpointID, s.vpcID(), s.otherVPCSubnets)
	}
	if len(s.missingSubnets) > 0 {
		return missingSubnetsOutcome(cr.Status.EndpointID, s.missingSubnets)
	}
	return readyOutcome(cr.Status.EndpointID, cr.Status.DNSNames, s.notes, r.driftInterval())
}

// endpointOf returns the endpoint: made right by this pass, or, when a
// recent pass already did (same inputs), as that pass left it — described
// again only while it is not yet available.
func (r *Reconciler) endpointOf(ctx context.Context, s *scope, p *proven, now time.Time) (*ec2types.VpcEndpoint, outcome.Outcome) {
	if p.endpoint != nil && s.cr.Status.EndpointID != "" {
		s.notes = p.notes
		if awscloud.EndpointStateIs(p.endpoint.State, "available") {
			return p.endpoint, outcome.Continue()
		}
		ep, err := s.endpoints.Get(ctx, s.cr.Status.EndpointID)
		if err != nil {
			return nil, outcome.FromError(fmt.Errorf("VPC endpoint: %w", err))
		}
		if ep != nil && (awscloud.EndpointStateIs(ep.State, "pending") || awscloud.EndpointStateIs(ep.State, "available")) {
			p.endpoint, p.endpointAt = ep, now
			return ep, outcome.Continue()
		}
		// Rejected, failed or gone: the full phase decides.
	}
	s.notes = nil
	ep, o := r.reconcileEndpoint(ctx, s, p.subnets, *p.service)
	if !o.Done() {
		return nil, o
	}
	if err := s.recordTagKeys(ctx); err != nil {
		return nil, outcome.FromError(err)
	}
	p.endpoint, p.notes, p.endpointAt = ep, s.notes, now
	return ep, outcome.Continue()
}

// hostedControlPlane returns the CR's HostedControlPlane (its owner, or
// the one in the namespace), nil when there is none.
func (r *Reconciler) hostedControlPlane(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) (*hcplinkv1beta1.HostedControlPlane, error) {
	return hcpref.Find(ctx, r.Client, cr.Namespace, cr.OwnerReferences)
}
