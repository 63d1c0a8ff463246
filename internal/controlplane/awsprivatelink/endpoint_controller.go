package awsprivatelink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
)

// EndpointFieldOwner is the field manager of the endpoint controller's
// writes (its condition is applied server-side under this name).
const EndpointFieldOwner = "hcplink-aws-endpoint"

// TokenGenerationAnnotation keeps the generation of the VPC endpoint's
// ClientToken: raised each time the endpoint is deliberately replaced, so
// that the replacement is a new endpoint, and kept so that a retried create
// after a restart is the same one.
const TokenGenerationAnnotation = "hcplink.io/endpoint-token-generation"

// ResourceTagKeysAnnotation lists the resourceTags keys last put on the
// cloud resources, so that a key removed from resourceTags is removed from
// them too while tags someone else added are never touched.
const ResourceTagKeysAnnotation = "hcplink.io/applied-resource-tag-keys"

// clientTokenPurpose names the VPC endpoint's create in its ClientToken.
const clientTokenPurpose = "vpc-endpoint"

// Reconciler is the control-plane operator's endpoint controller: for each
// AWSEndpointService in its namespace it keeps a VPC endpoint, its security
// group and DNS records in the customer's VPC, and removes them on
// deletion.
type Reconciler struct {
	Client  client.Client
	EC2     awscloud.EC2API
	Route53 awscloud.Route53API
	// DriftInterval is how often a healthy endpoint is checked; zero means
	// DefaultDriftInterval. Each check is jittered by 10–20%.
	DriftInterval time.Duration

	zonesMu sync.Mutex
	zoneIDs map[string]map[string]string // region → zone name → zone ID
}

// SetupWithManager registers the controller: AWSEndpointServices, the
// HostedControlPlane (its spec feeds every CR) and the ExternalName
// Services it owns.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
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
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: 2}).
		Complete(r)
}

func (r *Reconciler) crsOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	var list hcplinkv1beta1.AWSEndpointServiceList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, cr := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&cr)})
	}
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
	// region overrides the clients' region per call: cleanup uses the
	// region kept in status.
	ec2Region func(*ec2.Options)
}

func (s *scope) infraID() string { return s.cr.Status.InfraID }
func (s *scope) vpcID() string   { return s.cr.Status.VPCID }

// ownTags are the tags that find a resource again: cluster + CR name.
func (s *scope) ownTags() map[string]string {
	return map[string]string{
		hcplinkv1beta1.ClusterTagKey(s.infraID()): hcplinkv1beta1.ClusterTagValueOwned,
		hcplinkv1beta1.EndpointServiceTagKey:      s.cr.Name,
	}
}

// desiredTags are resourceTags plus the ownership tags.
func (s *scope) desiredTags() map[string]string {
	tags := map[string]string{}
	for _, t := range s.cr.Spec.ResourceTags {
		tags[t.Key] = t.Value
	}
	for k, v := range s.ownTags() {
		tags[k] = v
	}
	return tags
}

// managedTag says whether we may remove a tag key: ours, or a resourceTags
// key we put there earlier.
func (s *scope) managedTag(key string) bool {
	if _, ok := s.ownTags()[key]; ok {
		return true
	}
	for _, k := range strings.Split(s.cr.Annotations[ResourceTagKeysAnnotation], ",") {
		if k != "" && k == key {
			return true
		}
	}
	return false
}

func ownFilters(s *scope) []ec2types.Filter {
	f := []ec2types.Filter{
		{Name: aws.String("tag:" + hcplinkv1beta1.ClusterTagKey(s.infraID())), Values: []string{hcplinkv1beta1.ClusterTagValueOwned}},
		{Name: aws.String("tag:" + hcplinkv1beta1.EndpointServiceTagKey), Values: []string{s.cr.Name}},
	}
	if s.vpcID() != "" {
		f = append(f, ec2types.Filter{Name: aws.String("vpc-id"), Values: []string{s.vpcID()}})
	}
	return f
}

// Reconcile drives one AWSEndpointService toward a usable VPC endpoint.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	hcp, err := r.hostedControlPlane(ctx, cr)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cr: cr, base: cr.DeepCopy(), hcp: hcp}
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

	var out outcome
	defer func() {
		if err := r.persist(ctx, s); err != nil {
			reterr = errors.Join(reterr, err)
			return
		}
		if err := r.applyCondition(ctx, cr, out.condition()); err != nil {
			reterr = errors.Join(reterr, err)
		}
	}()

	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		out = outcome{status: metav1.ConditionUnknown, reason: hcplinkv1beta1.ReconciliationPausedReason,
			message: "Reconciliation is paused by the cluster's pausedUntil; the VPC endpoint is left as it is", requeue: remaining}
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}

	// What cleanup needs, kept before anything is created.
	aws := hcp.Spec.Platform.AWS
	cr.Status.Region, cr.Status.InfraID = aws.Region, hcp.Spec.InfraID
	if aws.CloudProviderConfig != nil {
		cr.Status.VPCID = aws.CloudProviderConfig.VPC
	}
	s.ec2Region = regionOption(cr.Status.Region)

	// A slow or stuck cloud never holds a worker for long.
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	out = r.reconcileNormal(passCtx, s)
	return ctrl.Result{RequeueAfter: out.requeue}, nil
}

// reconcileNormal runs the phases in order; the first that cannot finish
// decides the condition.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) outcome {
	cr := s.cr
	if cr.Status.EndpointServiceName == "" {
		return *waiting(hcplinkv1beta1.WaitingForEndpointServiceReason,
			"Waiting for the operator to create the VPC endpoint service for load balancer "+cr.Spec.NetworkLoadBalancerName, 0)
	}
	if cr.Status.VPCID == "" {
		return outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.InvalidParameterReason,
			message: "The cluster names no VPC (spec.platform.aws.cloudProviderConfig.vpc)", requeue: jitter(permanentRequeue)}
	}
	if len(cr.Spec.SubnetIDs) == 0 {
		return *waiting(hcplinkv1beta1.WaitingForSubnetsReason, "Waiting for the operator to list the NodePools' subnets in spec.subnetIDs", 0)
	}

	if err := r.reconcileSecurityGroup(ctx, s); err != nil {
		return errorOutcome(fmt.Errorf("security group: %w", err))
	}
	subnets, err := r.selectSubnets(ctx, s)
	if err != nil {
		return errorOutcome(fmt.Errorf("subnets: %w", err))
	}
	svc, o, err := r.serviceZones(ctx, s)
	if o != nil {
		return *o
	}
	if err != nil {
		return errorOutcome(fmt.Errorf("endpoint service: %w", err))
	}
	ep, err := r.reconcileEndpoint(ctx, s, subnets, svc)
	if err != nil {
		return errorOutcome(fmt.Errorf("VPC endpoint: %w", err))
	}
	if err := r.recordTagKeys(ctx, s); err != nil {
		return errorOutcome(err)
	}
	state := endpointStateOutcome(cr.Status.EndpointID, ep.State)
	if state != nil && !stateIs(ep.State, "pending") {
		return *state // rejected, failed...: no records to a dead endpoint
	}

	target := endpointDNSName(ep)
	if target == "" {
		return *waiting(hcplinkv1beta1.EndpointPendingReason, "Waiting for VPC endpoint "+cr.Status.EndpointID+" to get DNS names", pendingRequeue)
	}
	// Records are written while the endpoint is still pending: nodes that
	// ask early should not cache a negative answer.
	if o, err := r.reconcileDNS(ctx, s, target); err != nil {
		return errorOutcome(fmt.Errorf("DNS records: %w", err))
	} else if o != nil {
		return *o
	}
	if err := r.reconcileExternalNames(ctx, s, target); err != nil {
		return outcome{status: metav1.ConditionUnknown, reason: hcplinkv1beta1.InternalErrorReason,
			message: "Writing the ExternalName Services failed; retrying", requeue: jitter(transientRequeue)}
	}
	if state != nil {
		return *state
	}
	return readyOutcome(cr.Status.EndpointID, cr.Status.DNSNames, r.driftInterval())
}

func regionOption(region string) func(*ec2.Options) {
	return func(o *ec2.Options) {
		if region != "" {
			o.Region = region
		}
	}
}

// hostedControlPlane returns the CR's HostedControlPlane (its owner, or
// the one in the namespace), nil when there is none.
func (r *Reconciler) hostedControlPlane(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) (*hcplinkv1beta1.HostedControlPlane, error) {
	return findHostedControlPlane(ctx, r.Client, cr.Namespace, cr.OwnerReferences)
}

func findHostedControlPlane(ctx context.Context, c client.Client, namespace string, refs []metav1.OwnerReference) (*hcplinkv1beta1.HostedControlPlane, error) {
	for _, ref := range refs {
		if ref.Kind != "HostedControlPlane" {
			continue
		}
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, hcp)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading HostedControlPlane %s: %w", ref.Name, err)
		}
		return hcp, nil
	}
	var list hcplinkv1beta1.HostedControlPlaneList
	if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing HostedControlPlanes: %w", err)
	}
	if len(list.Items) != 1 {
		return nil, nil
	}
	return &list.Items[0], nil
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
	patch := map[string]any{"status": map[string]any{
		"endpointID":      nullIfEmpty(want.EndpointID),
		"dnsNames":        want.DNSNames,
		"dnsZoneID":       nullIfEmpty(want.DNSZoneID),
		"securityGroupID": nullIfEmpty(want.SecurityGroupID),
		"region":          nullIfEmpty(want.Region),
		"infraID":         nullIfEmpty(want.InfraID),
		"vpcID":           nullIfEmpty(want.VPCID),
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

// applyCondition sets AWSEndpointAvailable alone, server-side, under this
// controller's field owner, when it reads differently: the operator's
// AWSEndpointServiceAvailable on the same object is never touched.
func (r *Reconciler) applyCondition(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, cond metav1.Condition) error {
	_, err := conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner}.Apply(ctx, cr, &cr.Status.Conditions, cond)
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

// selectSubnets describes spec.subnetIDs and keeps one per zone ID.
func (r *Reconciler) selectSubnets(ctx context.Context, s *scope) ([]ec2types.Subnet, error) {
	out, err := r.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: s.cr.Spec.SubnetIDs}, s.ec2Region)
	if err != nil {
		return nil, fmt.Errorf("describing subnets %s: %w", strings.Join(s.cr.Spec.SubnetIDs, ", "), err)
	}
	return SubnetsPerZone(out.Subnets), nil
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
	zoneIDs []string // zone IDs the service's load balancer serves; nil when unknown
}

// serviceZones describes the endpoint service as the customer sees it and
// turns its zones into zone IDs.
func (r *Reconciler) serviceZones(ctx context.Context, s *scope) (serviceInfo, *outcome, error) {
	name := s.cr.Status.EndpointServiceName
	out, err := r.EC2.DescribeVpcEndpointServices(ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{name}}, s.ec2Region)
	if awscloud.ErrorCode(err) == "InvalidServiceName" {
		return serviceInfo{}, waiting(hcplinkv1beta1.WaitingForEndpointServiceReason,
			"The endpoint service "+name+" is not visible to this cluster's AWS account yet: the operator allows the cluster's control-plane operator role on it; waiting", jitter(notVisibleRequeue)), nil
	}
	if err != nil {
		return serviceInfo{}, nil, fmt.Errorf("describing endpoint service %s: %w", name, err)
	}
	for _, d := range out.ServiceDetails {
		if aws.ToString(d.ServiceName) != name {
			continue
		}
		if len(d.AvailabilityZoneIds) > 0 {
			return serviceInfo{zoneIDs: d.AvailabilityZoneIds}, nil, nil
		}
		ids, err := r.zoneIDsOf(ctx, s, d.AvailabilityZones)
		return serviceInfo{zoneIDs: ids}, nil, err
	}
	return serviceInfo{}, waiting(hcplinkv1beta1.WaitingForEndpointServiceReason,
		"The endpoint service "+name+" is not visible to this cluster's AWS account yet; waiting", jitter(notVisibleRequeue)), nil
}

// zoneIDsOf maps this account's zone names to zone IDs, from a per-region
// cache: the mapping of an account never changes.
func (r *Reconciler) zoneIDsOf(ctx context.Context, s *scope, names []string) ([]string, error) {
	region := s.cr.Status.Region
	r.zonesMu.Lock()
	m := r.zoneIDs[region]
	r.zonesMu.Unlock()
	if m == nil {
		out, err := r.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{}, s.ec2Region)
		if err != nil {
			return nil, fmt.Errorf("describing availability zones: %w", err)
		}
		m = map[string]string{}
		for _, z := range out.AvailabilityZones {
			m[aws.ToString(z.ZoneName)] = aws.ToString(z.ZoneId)
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

// zoneError turns an InvalidParameter answer to a create or modify into a
// zoneMismatchError when some subnets lie outside the served zones: the
// service refused them (its load balancer does not balance across zones,
// which the customer account cannot see beforehand).
func zoneError(err error, subnets []ec2types.Subnet, svc serviceInfo) error {
	if awscloud.ErrorCode(err) != "InvalidParameter" {
		return err
	}
	unserved := UnservedSubnets(subnets, svc.zoneIDs)
	if len(unserved) == 0 {
		return err
	}
	served := append([]string(nil), svc.zoneIDs...)
	sort.Strings(served)
	return &zoneMismatchError{served: served, unserved: unserved, cause: err}
}

func endpointDNSName(ep *ec2types.VpcEndpoint) string {
	if ep == nil || len(ep.DnsEntries) == 0 {
		return ""
	}
	return strings.TrimSuffix(aws.ToString(ep.DnsEntries[0].DnsName), ".")
}
