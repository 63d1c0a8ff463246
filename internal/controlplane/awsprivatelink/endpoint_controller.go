package awsprivatelink

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
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
	// DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
	// Events tells people what was created, adopted or deleted and how the
	// condition changed; nil tells nothing.
	Events *events.Recorder
	// Now is the clock of the endpoint's visibility grace; nil is time.Now.
	Now func() time.Time

	initOnce sync.Once
	tracker  *outcome.Tracker

	zonesMu sync.Mutex
	zoneIDs map[string]map[string]string // region → zone name → zone ID
	// refused remembers, per CR, the zone IDs the endpoint service refused
	// subnets in, so that a steady state does not retry a refused subnet.
	refused map[types.UID]refusal

	provenMu sync.Mutex
	// proven remembers, per CR, what recent passes proved (see proven).
	proven map[types.UID]*proven
}

// refusal: the zones a service refused, while it served these zones.
type refusal struct {
	service string
	served  string // the served zone IDs, joined, when the refusal was seen
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
// Services it owns.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	workers := r.MaxConcurrentReconciles
	if workers <= 0 {
		workers = DefaultMaxConcurrentReconciles
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("awsendpoint").
		// Our own status writes do not bring the CR back; the operator's
		// endpointServiceName (a status field) does.
		For(&hcplinkv1beta1.AWSEndpointService{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
				o, okOld := e.ObjectOld.(*hcplinkv1beta1.AWSEndpointService)
				n, okNew := e.ObjectNew.(*hcplinkv1beta1.AWSEndpointService)
				return okOld && okNew && (o.Status.EndpointServiceName != n.Status.EndpointServiceName ||
					o.DeletionTimestamp.IsZero() != n.DeletionTimestamp.IsZero())
			}}))).
		Owns(&corev1.Service{}).
		// Only spec changes of the HostedControlPlane matter; its status
		// (other controllers' conditions) does not.
		Watches(&hcplinkv1beta1.HostedControlPlane{}, handler.EnqueueRequestsFromMapFunc(r.crsOfNamespace),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: workers}).
		Complete(r)
}

func (r *Reconciler) crsOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	return requestsInNamespace(ctx, r.Client, &hcplinkv1beta1.AWSEndpointServiceList{}, obj.GetNamespace())
}

// requestsInNamespace lists the kind of list in namespace (from the
// cache) and returns a request for each object; none when it cannot list.
func requestsInNamespace(ctx context.Context, c client.Reader, list client.ObjectList, namespace string) []reconcile.Request {
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	_ = apimeta.EachListItem(list, func(o runtime.Object) error {
		if obj, ok := o.(client.Object); ok {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
		return nil
	})
	return out
}

func (r *Reconciler) driftInterval() time.Duration {
	if r.DriftInterval > 0 {
		return r.DriftInterval
	}
	return DefaultDriftInterval
}

// scope is what one pass works with.
type scope struct {
	cr   *hcplinkv1beta1.AWSEndpointService
	base *hcplinkv1beta1.AWSEndpointService // status as last written
	hcp  *hcplinkv1beta1.HostedControlPlane // nil when gone (deletion only)

	// The providers, in the region kept in status.
	groups    awscloud.SecurityGroups
	endpoints awscloud.VPCEndpoints
	records   awscloud.Records

	// notes are what the ready message must add (zones not reached).
	notes []string
	// missingSubnets are NodePool subnets that no longer exist.
	missingSubnets []string
	// otherVPCSubnets are NodePool subnets of another VPC than the
	// cluster's: an endpoint cannot have a network interface there.
	otherVPCSubnets []string
}

func (s *scope) infraID() string { return s.cr.Status.InfraID }
func (s *scope) vpcID() string   { return s.cr.Status.VPCID }

// desiredTags are resourceTags plus the ownership tags.
func (s *scope) desiredTags(extra map[string]string) map[string]string {
	return awscloud.ResourceTags(s.cr.Spec.ResourceTags, s.infraID(), s.cr.Name, extra)
}

// managedTag says whether we may remove a tag key: ours, or a resourceTags
// key we put there earlier.
func (s *scope) managedTag(key string) bool {
	if _, ok := awscloud.OwnershipTags(s.infraID(), s.cr.Name)[key]; ok {
		return true
	}
	for _, k := range strings.Split(s.cr.Annotations[ResourceTagKeysAnnotation], ",") {
		if k != "" && k == key {
			return true
		}
	}
	return false
}

// ownFilters select this CR's resources: the ownership pair, in the VPC.
func ownFilters(s *scope) []ec2types.Filter {
	f := awscloud.OwnershipFilters(s.infraID(), s.cr.Name)
	if s.vpcID() != "" {
		f = append(f, awscloud.Filter("vpc-id", s.vpcID()))
	}
	return f
}

func (r *Reconciler) newScope(cr *hcplinkv1beta1.AWSEndpointService, hcp *hcplinkv1beta1.HostedControlPlane) *scope {
	return &scope{cr: cr, base: cr.DeepCopy(), hcp: hcp}
}

// useRegion points the providers at the region kept in status.
func (r *Reconciler) useRegion(s *scope) {
	s.groups = awscloud.SecurityGroups{EC2: r.EC2, Region: s.cr.Status.Region}
	s.endpoints = awscloud.VPCEndpoints{EC2: r.EC2, Region: s.cr.Status.Region}
	s.records = awscloud.Records{Route53: r.Route53}
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

	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		patch := client.MergeFrom(cr.DeepCopy())
		controllerutil.AddFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer)
		if err := r.Client.Patch(ctx, cr, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer: %w", err)
		}
		s.base = cr.DeepCopy()
	}

	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		return r.finish(ctx, s, outcome.Unknown(hcplinkv1beta1.ReconciliationPausedReason,
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
	return r.finish(ctx, s, withCredentialsCause(o, hcp))
}

// finish resolves the pass's outcome (growing repeated trouble), writes
// the status and the condition, and asks for the next look.
func (r *Reconciler) finish(ctx context.Context, s *scope, o outcome.Outcome) (ctrl.Result, error) {
	o = r.outcomes().Resolve(string(s.cr.UID), o)
	if err := r.persist(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	// Available means EC2 has shown the endpoint: the created-at mark has
	// served. Dropped after the status write, so that the answer to this
	// patch cannot overwrite status not yet written.
	if o.Status == metav1.ConditionTrue && s.cr.DeletionTimestamp.IsZero() {
		if err := r.patchAnnotation(ctx, s.cr, EndpointCreatedAtAnnotation, ""); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.applyCondition(ctx, s.cr, o.Condition(hcplinkv1beta1.AWSEndpointAvailableCondition)); err != nil {
		return ctrl.Result{}, err
	}
	if o.Err != nil {
		return ctrl.Result{}, o.Err
	}
	return ctrl.Result{RequeueAfter: o.After}, nil
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
		if err := r.reconcileExternalNames(ctx, s, target); err != nil {
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
	if err := r.recordTagKeys(ctx, s); err != nil {
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

// persist writes the status fields this controller owns (not conditions)
// when they changed since the last write.
func (r *Reconciler) persist(ctx context.Context, s *scope) error {
	want, have := s.cr.Status.DeepCopy(), s.base.Status.DeepCopy()
	want.Conditions, have.Conditions = nil, nil
	want.EndpointServiceName, have.EndpointServiceName = "", ""
	if equality.Semantic.DeepEqual(want, have) {
		return nil
	}
	// A merge patch merges maps: keys no longer wanted are sent as null.
	zones := map[string]any{}
	for k := range have.SubnetZoneIDs {
		zones[k] = nil
	}
	for k, v := range want.SubnetZoneIDs {
		zones[k] = v
	}
	patch := map[string]any{"status": map[string]any{
		"endpointID":      nullIfEmpty(want.EndpointID),
		"dnsNames":        want.DNSNames,
		"dnsZoneID":       nullIfEmpty(want.DNSZoneID),
		"securityGroupID": nullIfEmpty(want.SecurityGroupID),
		"region":          nullIfEmpty(want.Region),
		"infraID":         nullIfEmpty(want.InfraID),
		"vpcID":           nullIfEmpty(want.VPCID),
		"subnetZoneIDs":   zones,
	}}
	raw, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Patch(ctx, s.cr, client.RawPatch(types.MergePatchType, raw)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing the status of AWSEndpointService %s: %w", s.cr.Name, err)
	}
	conds := s.base.Status.Conditions
	s.base = s.cr.DeepCopy()
	s.base.Status.Conditions = conds
	s.cr.Status.Conditions = conds
	return nil
}

func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// applyCondition sets AWSEndpointAvailable, server-side, under this
// controller's field owner (the only type it writes on the kind), when it
// reads differently: the operator's AWSEndpointServiceAvailable on the same
// object is never touched.
func (r *Reconciler) applyCondition(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, cond metav1.Condition) error {
	_, err := conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner,
		Types: []string{hcplinkv1beta1.AWSEndpointAvailableCondition}, Events: r.Events}.Apply(ctx, cr, &cr.Status.Conditions, cond)
	return err
}

// patchAnnotation sets (or removes, when value is "") one annotation.
func (r *Reconciler) patchAnnotation(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, key, value string) error {
	if cr.Annotations[key] == value {
		return nil
	}
	var v any = value
	if value == "" {
		v = nil
	}
	raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if err := r.Client.Patch(ctx, cr, client.RawPatch(types.MergePatchType, raw)); err != nil {
		return fmt.Errorf("writing annotation %s: %w", key, err)
	}
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	if value == "" {
		delete(cr.Annotations, key)
	} else {
		cr.Annotations[key] = value
	}
	return nil
}

// recordTagKeys remembers the resourceTags keys now on the resources.
func (r *Reconciler) recordTagKeys(ctx context.Context, s *scope) error {
	keys := make([]string, 0, len(s.cr.Spec.ResourceTags))
	for _, t := range s.cr.Spec.ResourceTags {
		keys = append(keys, t.Key)
	}
	sort.Strings(keys)
	return r.patchAnnotation(ctx, s.cr, ResourceTagKeysAnnotation, strings.Join(keys, ","))
}

func tokenGeneration(cr *hcplinkv1beta1.AWSEndpointService) int64 {
	g, _ := strconv.ParseInt(cr.Annotations[TokenGenerationAnnotation], 10, 64)
	return g
}

// --- subnets ---

// WantedSubnetIDs are the subnets the endpoint may use: spec.subnetIDs (the
// operator's list, capped) and every NodePool's subnet, sorted, once each.
func WantedSubnetIDs(cr *hcplinkv1beta1.AWSEndpointService, hcp *hcplinkv1beta1.HostedControlPlane) []string {
	ids := append([]string(nil), cr.Spec.SubnetIDs...)
	if hcp != nil {
		for _, np := range hcp.Spec.NodePools {
			if strings.HasPrefix(np.SubnetID, "subnet-") {
				ids = append(ids, np.SubnetID)
			}
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// selectSubnets describes the wanted subnets, records each one's zone ID in
// status (the operator caps spec.subnetIDs per zone with it), drops the
// ones that no longer exist (kept in s.missingSubnets) and those of another
// VPC (kept in s.otherVPCSubnets: no endpoint call may name them, so a
// wrong NodePool never moves or breaks the endpoint; it and its records go
// on with the rest) and keeps one per zone ID.
func (r *Reconciler) selectSubnets(ctx context.Context, s *scope, wanted []string) ([]ec2types.Subnet, outcome.Outcome) {
	described, missing, err := s.endpoints.Subnets(ctx, wanted)
	if err != nil {
		return nil, outcome.FromError(err)
	}
	found, otherVPC := SubnetsOfVPC(described, s.vpcID())
	zones := map[string]string{}
	for _, sn := range found {
		zones[aws.ToString(sn.SubnetId)] = aws.ToString(sn.AvailabilityZoneId)
	}
	if len(zones) > maxSubnetZoneIDs {
		zones = firstKeys(zones, maxSubnetZoneIDs)
	}
	if len(zones) == 0 {
		zones = nil
	}
	s.cr.Status.SubnetZoneIDs = zones
	s.missingSubnets, s.otherVPCSubnets = missing, otherVPC
	switch {
	case len(found) == 0 && len(otherVPC) > 0:
		return nil, otherVPCSubnetsOutcome("", s.vpcID(), append(otherVPC, missing...))
	case len(found) == 0:
		return nil, outcome.WaitOnPerson(hcplinkv1beta1.SubnetNotFoundReason, fmt.Sprintf(
			"None of the subnets the cluster's NodePools name exist in the customer account (%s); fix the NodePools' subnets", strings.Join(missing, ", ")))
	}
	return SubnetsPerZone(found), outcome.Continue()
}

// SubnetsOfVPC splits subnets into those of vpc and the IDs of the others.
func SubnetsOfVPC(subnets []ec2types.Subnet, vpc string) (in []ec2types.Subnet, otherIDs []string) {
	for _, sn := range subnets {
		if aws.ToString(sn.VpcId) == vpc {
			in = append(in, sn)
		} else {
			otherIDs = append(otherIDs, aws.ToString(sn.SubnetId))
		}
	}
	return in, otherIDs
}

// maxSubnetZoneIDs is the API's bound on status.subnetZoneIDs.
const maxSubnetZoneIDs = 100

func firstKeys(m map[string]string, n int) map[string]string {
	keys := slices.Sorted(maps.Keys(m))
	out := map[string]string{}
	for _, k := range keys[:n] {
		out[k] = m[k]
	}
	return out
}

// SubnetsPerZone keeps one subnet per availability-zone ID, the one with
// the lexicographically smallest subnet ID, sorted by subnet ID. Zone IDs,
// not names: names are per-account aliases.
func SubnetsPerZone(subnets []ec2types.Subnet) []ec2types.Subnet {
	best := map[string]ec2types.Subnet{}
	for _, sn := range subnets {
		zone := aws.ToString(sn.AvailabilityZoneId)
		if zone == "" {
			zone = "name:" + aws.ToString(sn.AvailabilityZone)
		}
		if cur, ok := best[zone]; !ok || aws.ToString(sn.SubnetId) < aws.ToString(cur.SubnetId) {
			best[zone] = sn
		}
	}
	out := make([]ec2types.Subnet, 0, len(best))
	for _, sn := range best {
		out = append(out, sn)
	}
	sort.Slice(out, func(i, j int) bool { return aws.ToString(out[i].SubnetId) < aws.ToString(out[j].SubnetId) })
	return out
}

func subnetIDs(subnets []ec2types.Subnet) []string {
	ids := make([]string, 0, len(subnets))
	for _, sn := range subnets {
		ids = append(ids, aws.ToString(sn.SubnetId))
	}
	return ids
}

// serviceInfo is what the customer account sees of the endpoint service.
type serviceInfo struct {
	name    string
	zoneIDs []string // zone IDs the service's load balancer serves; nil when unknown
}

// serviceZones describes the endpoint service as the customer sees it and
// turns its zones into zone IDs.
func (r *Reconciler) serviceZones(ctx context.Context, s *scope) (serviceInfo, outcome.Outcome) {
	name := s.cr.Status.EndpointServiceName
	zones, byName, visible, err := s.endpoints.ServiceZones(ctx, name)
	if err != nil {
		return serviceInfo{}, outcome.FromError(err)
	}
	if !visible {
		return serviceInfo{}, outcome.Wait(hcplinkv1beta1.WaitingForEndpointServiceReason,
			"The endpoint service "+name+" is not visible to this cluster's AWS account yet: the operator allows the cluster's control-plane operator role on it; waiting", outcome.Jitter(notVisibleRequeue))
	}
	if byName {
		if zones, err = r.zoneIDsOf(ctx, s, zones); err != nil {
			return serviceInfo{}, outcome.FromError(err)
		}
	}
	sorted := append([]string{}, zones...)
	sort.Strings(sorted)
	return serviceInfo{name: name, zoneIDs: sorted}, outcome.Continue()
}

// zoneIDsOf maps this account's zone names to zone IDs, from a per-region
// cache: the mapping of an account never changes.
func (r *Reconciler) zoneIDsOf(ctx context.Context, s *scope, names []string) ([]string, error) {
	region := s.cr.Status.Region
	r.zonesMu.Lock()
	m := r.zoneIDs[region]
	r.zonesMu.Unlock()
	if m == nil {
		var err error
		if m, err = s.endpoints.ZoneIDsByName(ctx); err != nil {
			return nil, err
		}
		r.zonesMu.Lock()
		if r.zoneIDs == nil {
			r.zoneIDs = map[string]map[string]string{}
		}
		r.zoneIDs[region] = m
		r.zonesMu.Unlock()
	}
	ids := make([]string, 0, len(names))
	for _, n := range names {
		if id, ok := m[n]; ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// UnservedSubnets lists the subnets ("subnet (zone ID)") whose zone ID the
// service does not serve; nil when served is unknown.
func UnservedSubnets(subnets []ec2types.Subnet, served []string) []string {
	if served == nil {
		return nil
	}
	var out []string
	for _, sn := range subnets {
		if z := aws.ToString(sn.AvailabilityZoneId); !slices.Contains(served, z) {
			out = append(out, fmt.Sprintf("%s (%s)", aws.ToString(sn.SubnetId), z))
		}
	}
	return out
}

// ServedSubnets keeps the subnets in zones the service serves; all of them
// when served is unknown.
func ServedSubnets(subnets []ec2types.Subnet, served []string) []ec2types.Subnet {
	if served == nil {
		return subnets
	}
	var out []ec2types.Subnet
	for _, sn := range subnets {
		if slices.Contains(served, aws.ToString(sn.AvailabilityZoneId)) {
			out = append(out, sn)
		}
	}
	return out
}

// zoneRefusal reports whether err is the service refusing subnets outside
// the zones it serves (InvalidParameter while some subnets lie there): its
// load balancer does not balance across zones, which the customer account
// cannot see beforehand.
func zoneRefusal(err error, subnets []ec2types.Subnet, svc serviceInfo) bool {
	return awscloud.ErrorCode(err) == awscloud.CodeInvalidParameter && len(UnservedSubnets(subnets, svc.zoneIDs)) > 0
}

// usableSubnets are the subnets to give the endpoint: all of them, minus
// those in zones the service refused before (while it serves the same
// zones).
func (r *Reconciler) usableSubnets(s *scope, subnets []ec2types.Subnet, svc serviceInfo) []ec2types.Subnet {
	r.zonesMu.Lock()
	ref, ok := r.refused[s.cr.UID]
	r.zonesMu.Unlock()
	if !ok || ref.service != svc.name || ref.served != strings.Join(svc.zoneIDs, ",") {
		return subnets
	}
	return ServedSubnets(subnets, svc.zoneIDs)
}

// rememberRefusal notes that the service refused the unserved zones.
func (r *Reconciler) rememberRefusal(s *scope, svc serviceInfo) {
	r.zonesMu.Lock()
	defer r.zonesMu.Unlock()
	if r.refused == nil {
		r.refused = map[types.UID]refusal{}
	}
	r.refused[s.cr.UID] = refusal{service: svc.name, served: strings.Join(svc.zoneIDs, ",")}
}
