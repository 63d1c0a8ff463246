// Package awsendpointservice is the management operator's AWSEndpointService
// controller. For each AWSEndpointService of a private AWS cluster it
//
//   - writes spec.subnetIDs from the cluster's NodePools (sorted, unique, at
//     most 10, capped per availability zone from status.subnetZoneIDs;
//     more is a condition, not a refused update);
//   - publishes the control plane's network load balancer as a VPC endpoint
//     service (AcceptanceRequired=false), found again after a restart by
//     its ClientToken and its two tags (on that load balancer only), never
//     created twice, and replaced when the load balancer is;
//   - allows the control-plane operator's role (without its IAM path) and
//     the cluster's additionalAllowedPrincipals to connect, and keeps the
//     cluster's resource tags on the service, changing only what differs;
//   - on deletion waits for the control-plane operator's cleanup, rejects
//     the remaining connections and deletes the service.
//
// Every service it creates carries hcplink.io/management-cluster=<ID of
// this management cluster>, adopted onto services that lack it; a service
// tagged for another management cluster is never adopted, changed or
// deleted, so several management clusters share one account and region.
//
// It is quiet at steady state: one batched listing of the account's
// endpoint services and load balancers per drift interval serves every
// object (DescribeCache), permissions are re-read only on drift checks or
// after a change, and nothing is written when nothing changed. Trouble
// that repeats (throttling, a refused permission, a missing load balancer,
// connections that hold a deletion) is looked at again after delays that
// grow per object (internal/outcome). Every AWS call goes through
// awscloud.EndpointServiceProvider. A Sweeper removes this management
// cluster's endpoint services tagged for objects that no longer exist.
package awsendpointservice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ControllerName names the controller (logs, metrics).
const ControllerName = "awsendpointservice"

// FieldOwner is the server-side-apply field manager of the
// AWSEndpointServiceAvailable condition; the control-plane operator applies
// AWSEndpointAvailable under its own, so neither clobbers the other.
const FieldOwner = "hcplink-operator-awsendpointservice"

// Annotations the controller keeps on an AWSEndpointService.
const (
	// GenerationAnnotation counts deliberate replacements of the endpoint
	// service; it is part of the create's ClientToken, so that after the
	// service was deleted behind hcplink's back, idempotency does not hand
	// back the deleted one.
	GenerationAnnotation = "hcplink.io/endpoint-service-generation"
	// AppliedTagKeysAnnotation lists (newline-separated) the resource-tag
	// keys last applied to the service, so that a key removed from the
	// cluster is removed from the service, and a customer's own tags never.
	AppliedTagKeysAnnotation = "hcplink.io/endpoint-service-tag-keys"
	// ServiceCreatedAtAnnotation keeps when the controller last asked EC2
	// to create the endpoint service (RFC 3339, written before the call, so
	// that a crash between the create and the status write still leaves
	// it): for serviceVisibilityGrace after it, a service that describes do
	// not show is waited for, never taken for gone.
	ServiceCreatedAtAnnotation = "hcplink.io/endpoint-service-created-at"
	// ServiceInfraIDAnnotation keeps the infraID the service was created
	// (and tagged) for, written with ServiceCreatedAtAnnotation: a
	// deletion after the HostedCluster is gone, before the control-plane
	// operator wrote status.infraID and before status named the service,
	// still finds the service by its tags.
	ServiceInfraIDAnnotation = "hcplink.io/endpoint-service-infra-id"
)

// serviceVisibilityGrace is how long after a create an endpoint service
// that neither a describe by name nor a tag listing shows is waited for,
// rather than replaced (normal pass) or taken for never made (deletion):
// EC2's API is eventually consistent, a resource just created may be
// reported missing, and AWS advises describing again with backoff for up
// to a few minutes
// (https://docs.aws.amazon.com/ec2/latest/devguide/eventual-consistency.html).
// Past it, nothing shown means nothing there.
const serviceVisibilityGrace = 2 * time.Minute

// serviceVisibilityRecheck is how soon such a service is looked for again.
const serviceVisibilityRecheck = 5 * time.Second

// clientTokenPurpose names the endpoint-service create in its ClientToken.
const clientTokenPurpose = "endpoint-service"

// Intervals. Waiting is a requeue and a reason, never an error; the
// delays of each state are in awsendpointservice_status.go.
const (
	// DefaultDriftInterval: how often a healthy service is checked against
	// AWS (and how long the batched listing serves); the platform's default,
	// shared with the control-plane operator.
	DefaultDriftInterval = intervals.AWSDrift
	// defaultMaxConcurrentReconciles: one slow or throttled cluster never
	// blocks the others (controller.Options.MaxConcurrentReconciles
	// overrides it).
	defaultMaxConcurrentReconciles = 4
)

// Reconciler reconciles AWSEndpointServices.
//
// +kubebuilder:rbac:groups=hcplink.io,resources=awsendpointservices,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=awsendpointservices/status;awsendpointservices/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters;nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
type Reconciler struct {
	// Client reads (through the manager's cache) and writes.
	Client client.Client
	// EC2 and ELB are the management account's clients.
	EC2 awscloud.EC2API
	ELB awscloud.ELBV2API
	// Provider makes every AWS call; nil builds one from EC2 and ELB.
	Provider *awscloud.EndpointServiceProvider
	// Cache batches the Describe calls; nil builds one from Provider,
	// Clock and DriftInterval. Share it with the Sweeper.
	Cache *DescribeCache
	// Clock tells the time; nil is the real clock.
	Clock Clock
	// DriftInterval is how often a healthy service is checked (zero:
	// DefaultDriftInterval); each check is jittered by ±15 %.
	DriftInterval time.Duration
	// ManagementClusterID names this management cluster on the services it
	// creates (tag hcplink.io/management-cluster) and adopts. Empty means
	// unknown: services are created without the tag, and only services
	// without one are adopted.
	ManagementClusterID string
	// Tracker grows the delays of repeated trouble per object; nil is a
	// private one.
	Tracker *outcome.Tracker
	// Events tells people what was created, adopted or deleted and how the
	// condition changed; nil records nothing.
	Events *events.Recorder

	once     sync.Once
	mu       sync.Mutex
	verified map[types.UID]verification
}

// verification records the last time an object's permissions were read
// and found (or made) right, so that they are re-read only on drift checks
// or after the desired set changed.
type verification struct {
	service    string
	principals string
	at         time.Time
	// noPrincipals: this process created the service and has not allowed
	// anyone on it yet, so there is nothing to read (trust the create).
	noPrincipals bool
}

func (r *Reconciler) init() {
	r.once.Do(func() {
		if r.Clock == nil {
			r.Clock = realClock{}
		}
		if r.DriftInterval <= 0 {
			r.DriftInterval = DefaultDriftInterval
		}
		if r.Provider == nil {
			r.Provider = awscloud.NewEndpointServiceProvider(r.EC2, r.ELB)
		}
		if r.Cache == nil {
			r.Cache = &DescribeCache{Provider: r.Provider, Clock: r.Clock, TTL: r.DriftInterval}
		}
		if r.Tracker == nil {
			r.Tracker = &outcome.Tracker{Now: r.Clock.Now}
		}
		r.verified = map[types.UID]verification{}
	})
}

func (r *Reconciler) now() time.Time { return r.Clock.Now() }

// registration is how the controller is registered: beyond the kit's
// service controller, the subnets' zones the CPO reports bring an object
// back (they decide the per-zone subnet cap), and so do its cluster's
// NodePools' subnets.
var registration = reconcilekit.ServiceController{
	Name:        ControllerName,
	Kind:        "AWSEndpointService",
	For:         &hcplinkv1beta1.AWSEndpointService{},
	List:        &hcplinkv1beta1.AWSEndpointServiceList{},
	AlsoChanged: func(o, n client.Object) bool { return !maps.Equal(subnetZones(o), subnetZones(n)) },
	Platform:    func(hc *hcplinkv1beta1.HostedCluster) any { return hc.Spec.Platform.AWS },
	Workers:     defaultMaxConcurrentReconciles,
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	r.init()
	reg := registration
	reg.Watching = func(b *builder.Builder) *builder.Builder {
		return b.Watches(&hcplinkv1beta1.NodePool{}, handler.EnqueueRequestsFromMapFunc(r.forNodePool), builder.WithPredicates(nodePoolSubnetChanged))
	}
	return reg.Setup(mgr, opts, r)
}

// endpointServiceChanged skips the status writes (ours and the CPO's)
// and passes what matters: spec (a replaced load balancer's new name
// included), deletion, finalizers (the CPO's going away unblocks
// deletion), the cluster annotation, and the subnets' zones the CPO
// reports.
var endpointServiceChanged = reconcilekit.ObjectChanged(registration.AlsoChanged)

func subnetZones(o client.Object) map[string]string {
	if cr, ok := o.(*hcplinkv1beta1.AWSEndpointService); ok {
		return cr.Status.SubnetZoneIDs
	}
	return nil
}

// nodePoolSubnetChanged passes creations, deletions and subnet changes,
// to and from empty included.
var nodePoolSubnetChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*hcplinkv1beta1.NodePool)
		n, ok2 := e.ObjectNew.(*hcplinkv1beta1.NodePool)
		return !ok1 || !ok2 || nodePoolSubnet(o) != nodePoolSubnet(n)
	},
}

func (r *Reconciler) forNodePool(ctx context.Context, o client.Object) []reconcile.Request {
	np, ok := o.(*hcplinkv1beta1.NodePool)
	if !ok || np.Spec.ClusterName == "" {
		return nil
	}
	return registration.InControlPlaneNamespace(ctx, r.Client, np.Namespace, np.Spec.ClusterName)
}

// Reconcile publishes one AWSEndpointService's load balancer as an
// endpoint service, or removes the service when the object is deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.init()
	cr := &hcplinkv1beta1.AWSEndpointService{}
	start := registration.Start(ctx, r.Client, req.NamespacedName, cr, func(hc *hcplinkv1beta1.HostedCluster) bool {
		// A going cluster's operator deletes this object next: creating a
		// service now would only leave one to clean up (or leak, should
		// the deletion not find it).
		going := !hc.DeletionTimestamp.IsZero() && cr.Status.EndpointServiceName == "" && cr.Annotations[ServiceCreatedAtAnnotation] == ""
		return served(hc) && !going
	}, r.now())
	ctx = start.Ctx
	switch start.Step {
	case reconcilekit.StepDelete:
		return r.reconcileDelete(ctx, cr, start.HostedCluster)
	case reconcilekit.StepClusterMissing:
		return r.finish(ctx, cr, reconcilekit.ClusterMissing())
	case reconcilekit.StepReconcile:
		return r.finish(ctx, cr, r.reconcileNormal(ctx, cr, start.HostedCluster))
	}
	return start.Result, start.Err
}

// served: AWS clusters that are not Public.
func served(hc *hcplinkv1beta1.HostedCluster) bool {
	return hc.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform && hc.Spec.Platform.IsPrivate()
}

// reconcileNormal runs the phases in order: subnets, endpoint service,
// permissions, tags. The first that is not done decides the condition.
func (r *Reconciler) reconcileNormal(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) outcome.Outcome {
	subnets, err := r.ensureSubnets(ctx, cr, hc)
	if err != nil {
		return outcome.FromError(err)
	}
	svc, o := r.ensureService(ctx, cr, hc)
	if !o.Done() {
		return o
	}
	if o := r.ensurePermissions(ctx, cr, hc, svc); !o.Done() {
		return o
	}
	if o := r.ensureTags(ctx, cr, hc, svc); !o.Done() {
		return o
	}
	return availableOutcome(subnets, r.DriftInterval)
}

// finish ends a pass through the shared kit: the outcome resolved (delays
// of repeated trouble grow), the condition it asks for (none when it has no
// reason), and when to look again. A conflict (another writer was first)
// is looked at again in a second.
func (r *Reconciler) finish(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, o outcome.Outcome) (ctrl.Result, error) {
	f := reconcilekit.Finisher{Tracker: r.Tracker, Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, ConflictAfter: time.Second,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Types: []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition}, Now: r.now, Events: r.Events}}
	res, err := f.Finish(ctx, reconcilekit.Target{Object: cr, Conditions: &cr.Status.Conditions, Key: string(cr.UID)}, o)
	if err == nil && o.Reason != "" && o.Status != metav1.ConditionTrue {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting", "reason", o.Reason, "message", o.Message, "requeueAfter", res.RequeueAfter)
	}
	return res, err
}

// ensureSubnets writes spec.subnetIDs from the cluster's NodePools when it
// differs (capped per zone, see subnetUnion), and returns the choice.
func (r *Reconciler) ensureSubnets(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (subnetChoice, error) {
	pools := &hcplinkv1beta1.NodePoolList{}
	if err := r.Client.List(ctx, pools, client.InNamespace(hc.Namespace)); err != nil {
		return subnetChoice{}, fmt.Errorf("listing NodePools: %w", err)
	}
	var ids []string
	for i := range pools.Items {
		np := &pools.Items[i]
		if np.Spec.ClusterName == hc.Name && np.DeletionTimestamp.IsZero() {
			ids = append(ids, nodePoolSubnet(np))
		}
	}
	choice := subnetUnion(ids, cr.Status.SubnetZoneIDs)
	if slices.Equal(choice.subnets, cr.Spec.SubnetIDs) {
		return choice, nil
	}
	var value any = choice.subnets
	if len(choice.subnets) == 0 {
		value = nil
	}
	if err := kubepatch.Merge(ctx, r.Client, cr, false, map[string]any{"spec": map[string]any{"subnetIDs": value}}); err != nil {
		return subnetChoice{}, fmt.Errorf("writing spec.subnetIDs: %w", err)
	}
	return choice, nil
}

// generation is the object's endpoint-service generation (see
// GenerationAnnotation).
func generation(cr *hcplinkv1beta1.AWSEndpointService) int64 {
	g, _ := strconv.ParseInt(cr.Annotations[GenerationAnnotation], 10, 64)
	return g
}

// ensureService keeps the endpoint service in status while it exists on
// the load balancer now named; otherwise it replaces it, adopts the one
// tagged for the object on that load balancer, or creates one, and records
// its name in status.
func (r *Reconciler) ensureService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (*ec2types.ServiceConfiguration, outcome.Outcome) {
	if cr.Status.EndpointServiceName != "" {
		svc, o, keep := r.recordedService(ctx, cr)
		if keep || !o.Done() {
			return svc, o
		}
		// Gone, or retired: a new generation, so that the ClientToken does
		// not return the old service; then adopt or create.
		if o := r.forgetService(ctx, cr); !o.Done() {
			return nil, o
		}
	}
	lbARN, o := r.activeLoadBalancer(ctx, cr)
	if !o.Done() {
		return nil, o
	}
	svc, o := r.adoptOrCreate(ctx, cr, hc, lbARN)
	if !o.Done() {
		return nil, o
	}
	// Allow the control-plane operator's principal before publishing the
	// name: it acts on the name at once, and until it is allowed the service
	// is invisible to it (it would back off for nothing).
	if o := r.ensurePermissions(ctx, cr, hc, svc); !o.Done() {
		return nil, o
	}
	// Record the name at once: a restart from here adopts, never duplicates.
	if err := r.setServiceName(ctx, cr, awssdk.ToString(svc.ServiceName)); err != nil {
		return nil, outcome.FromError(err)
	}
	o, _ = serviceStateOutcome(svc)
	return svc, o
}

// recordedService checks the service in status. keep: it stands (o says
// whether to go on). Not keep and o done: it is gone (confirmed by a
// targeted describe, never from a listing alone) or was retired because
// its load balancer was replaced.
func (r *Reconciler) recordedService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) (svc *ec2types.ServiceConfiguration, o outcome.Outcome, keep bool) {
	name := cr.Status.EndpointServiceName
	svc, err := r.Cache.Service(ctx, name)
	if err != nil {
		return nil, outcome.FromError(err), true
	}
	if svc == nil && serviceJustCreated(cr, r.now()) {
		return nil, serviceNotShownYet(name), true
	}
	if svc == nil {
		ctrl.LoggerFrom(ctx).Info("the endpoint service recorded in status no longer exists; creating another", "endpointServiceName", name)
		return nil, outcome.Continue(), false
	}
	if r.ManagementClusterID != "" && managementClaim(svc.Tags, r.ManagementClusterID) == claimedByAnother {
		return nil, outcome.WaitOnPerson(hcplinkv1beta1.OwnedByAnotherManagementClusterReason, fmt.Sprintf(
			"Endpoint service %s is tagged %s=%s, another management cluster's (this one is %s); hcplink leaves it alone. Remove the AWSEndpointService from one of the two management clusters.",
			name, hcplinkv1beta1.ManagementClusterTagKey, managementClusterOf(svc), r.ManagementClusterID)), true
	}
	o, gone := serviceStateOutcome(svc)
	if gone {
		ctrl.LoggerFrom(ctx).Info("the endpoint service recorded in status is being deleted; creating another", "endpointServiceName", name)
		return nil, outcome.Continue(), false
	}
	if !o.Done() {
		return svc, o, true
	}
	lbName := cr.Spec.NetworkLoadBalancerName
	lb, err := r.Cache.LoadBalancer(ctx, lbName)
	if err != nil {
		return nil, outcome.FromError(err), true
	}
	if lb == nil {
		return nil, outcome.WaitOnPerson(hcplinkv1beta1.LoadBalancerNotFoundReason, "Network load balancer "+lbName+" of endpoint service "+
			name+" does not exist; the control plane's load balancer Service must be restored."), true
	}
	if awscloud.ServiceOnLoadBalancer(svc, awssdk.ToString(lb.LoadBalancerArn)) {
		return svc, outcome.Continue(), true
	}
	// The load balancer was replaced (spec.networkLoadBalancerName names
	// another): consumers of the old service reach nothing; replace it.
	ctrl.LoggerFrom(ctx).Info("the endpoint service is on another load balancer than the one now named; replacing it",
		"endpointServiceName", name, "loadBalancer", lbName)
	if o := r.retireService(ctx, cr, svc, "Replacing the endpoint service of a replaced load balancer"); !o.Done() {
		return nil, o, true
	}
	return nil, outcome.Continue(), false
}

// markCreateAttempt writes ServiceCreatedAtAnnotation before a create
// (unless it already says this second: a retried create in the same
// second writes nothing).
func (r *Reconciler) markCreateAttempt(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, infraID string) error {
	at := r.now().UTC().Format(time.RFC3339)
	if cr.Annotations[ServiceCreatedAtAnnotation] == at && cr.Annotations[ServiceInfraIDAnnotation] == infraID {
		return nil
	}
	return r.patchAnnotations(ctx, cr, map[string]*string{ServiceCreatedAtAnnotation: &at, ServiceInfraIDAnnotation: &infraID})
}

// serviceJustCreated: the controller asked EC2 to create the service less
// than serviceVisibilityGrace ago, so describes may not show it yet.
func serviceJustCreated(cr *hcplinkv1beta1.AWSEndpointService, now time.Time) bool {
	at, err := time.Parse(time.RFC3339, cr.Annotations[ServiceCreatedAtAnnotation])
	return err == nil && now.Sub(at) < serviceVisibilityGrace
}

// serviceNotShownYet is the outcome of a pass that cannot see a service
// created moments ago.
func serviceNotShownYet(name string) outcome.Outcome {
	what := "The endpoint service"
	if name != "" {
		what += " " + name
	}
	return outcome.Wait(hcplinkv1beta1.EndpointServicePendingReason,
		what+" was just created and EC2 does not show it yet; looking again shortly.", serviceVisibilityRecheck)
}

// forgetService raises the generation and clears the service from status.
func (r *Reconciler) forgetService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) outcome.Outcome {
	next := strconv.FormatInt(generation(cr)+1, 10)
	if err := r.patchAnnotations(ctx, cr, map[string]*string{GenerationAnnotation: &next}); err != nil {
		return outcome.FromError(err)
	}
	if err := r.setServiceName(ctx, cr, ""); err != nil {
		return outcome.FromError(err)
	}
	r.forgetVerification(cr.UID)
	return outcome.Continue()
}

// retireService deletes a service of ours that no longer serves (its
// consumer connections rejected first); done when it is gone.
func (r *Reconciler) retireService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, svc *ec2types.ServiceConfiguration, doing string) outcome.Outcome {
	name, id := awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	gone, connections, err := r.Provider.DeleteService(ctx, id)
	if err != nil {
		return outcome.FromError(err)
	}
	if !gone {
		return connectionsPending(name, connections, doing)
	}
	r.Cache.ForgetService(name)
	ctrl.LoggerFrom(ctx).Info("deleted the endpoint service", "endpointServiceName", name)
	r.Events.Deleted(cr, "endpoint service", name)
	return outcome.Continue()
}

// activeLoadBalancer returns the ARN of the load balancer now named, once
// it is active. Its known state schedules the next look: provisioning
// takes minutes, so every 10–15 s; a load balancer that does not exist
// waits on the control plane's Service (or a person), so the looks grow
// from 15 s to 10 min — and the control-plane operator's observer rewrites
// spec.networkLoadBalancerName when the Service gets its load balancer,
// which wakes this object at once (a generation change).
func (r *Reconciler) activeLoadBalancer(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) (string, outcome.Outcome) {
	lbName := cr.Spec.NetworkLoadBalancerName
	lb, err := r.Cache.LoadBalancer(ctx, lbName)
	if err != nil {
		return "", outcome.FromError(err)
	}
	if lb == nil {
		return "", outcome.WaitOnPerson(hcplinkv1beta1.LoadBalancerNotFoundReason, "Network load balancer "+lbName+" does not exist yet.")
	}
	state := elbState(lb.State)
	switch state {
	case "active":
		return awssdk.ToString(lb.LoadBalancerArn), outcome.Continue()
	case "provisioning":
		return "", outcome.Wait(hcplinkv1beta1.LoadBalancerNotActiveReason, "Network load balancer "+lbName+" is provisioning, not active yet.",
			outcome.Between(loadBalancerProvisioningMin, loadBalancerProvisioningMax))
	}
	return "", outcome.WaitOnPerson(hcplinkv1beta1.LoadBalancerNotActiveReason, "Network load balancer "+lbName+" is "+state+", not active.")
}

// adoptOrCreate returns the service of the object on the load balancer
// lbARN: the one tagged for it, or one created. A service tagged for the
// object but on another load balancer is stale (the load balancer was
// replaced while status was lost): nothing else refers to it and the
// sweeper never takes it (the object exists), so it is deleted here. A
// service tagged for another management cluster is never adopted or
// deleted.
func (r *Reconciler) adoptOrCreate(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, lbARN string) (*ec2types.ServiceConfiguration, outcome.Outcome) {
	log := ctrl.LoggerFrom(ctx)
	tagged, err := r.Cache.ServicesByTags(ctx, hc.Spec.InfraID, cr.Name)
	if err != nil {
		return nil, outcome.FromError(err)
	}
	var adopt *ec2types.ServiceConfiguration
	for i := range tagged {
		svc := &tagged[i]
		if managementClaim(svc.Tags, r.ManagementClusterID) == claimedByAnother {
			log.Info("not adopting an endpoint service tagged for another management cluster", "endpointServiceName", awssdk.ToString(svc.ServiceName),
				"managementCluster", managementClusterOf(svc))
			continue
		}
		if awscloud.ServiceOnLoadBalancer(svc, lbARN) {
			if adopt == nil {
				adopt = svc
			}
			continue
		}
		log.Info("deleting a stale endpoint service tagged for this object on another load balancer", "endpointServiceName", awssdk.ToString(svc.ServiceName))
		if o := r.retireService(ctx, cr, svc, "Deleting a stale endpoint service on another load balancer"); !o.Done() {
			return nil, o
		}
	}
	if adopt != nil {
		log.Info("adopting the endpoint service tagged for this object", "endpointServiceName", awssdk.ToString(adopt.ServiceName))
		r.Events.Adopted(cr, "endpoint service", awssdk.ToString(adopt.ServiceName))
		return adopt, outcome.Continue()
	}
	return r.createService(ctx, cr, hc, lbARN)
}

// createService creates the endpoint service on the NLB, or adopts the one
// AWS says the NLB already has (created before a lost status, or by hand),
// unless another management cluster's.
func (r *Reconciler) createService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, lbARN string) (*ec2types.ServiceConfiguration, outcome.Outcome) {
	log := ctrl.LoggerFrom(ctx)
	tags := desiredTags(hc.Spec.InfraID, cr.Name, r.ManagementClusterID, hc.Spec.Platform.AWS.ResourceTags)
	token := awscloud.ClientToken(clientTokenPurpose, string(cr.UID), generation(cr))
	if err := r.markCreateAttempt(ctx, cr, hc.Spec.InfraID); err != nil {
		return nil, outcome.FromError(err)
	}
	svc, err := r.Provider.CreateService(ctx, lbARN, token, tags)
	if awscloud.IsLoadBalancerInUse(err) {
		existing, lerr := r.Cache.ServiceByLoadBalancer(ctx, lbARN)
		if lerr != nil {
			return nil, outcome.FromError(lerr)
		}
		if existing != nil {
			name := awssdk.ToString(existing.ServiceName)
			if managementClaim(existing.Tags, r.ManagementClusterID) == claimedByAnother {
				return nil, outcome.WaitOnPerson(hcplinkv1beta1.OwnedByAnotherManagementClusterReason, fmt.Sprintf(
					"Network load balancer %s already backs endpoint service %s, tagged %s=%s (another management cluster's); hcplink leaves it alone.",
					cr.Spec.NetworkLoadBalancerName, name, hcplinkv1beta1.ManagementClusterTagKey, managementClusterOf(existing)))
			}
			log.Info("adopting the endpoint service already on the load balancer", "endpointServiceName", name)
			r.Events.Adopted(cr, "endpoint service", name)
			return existing, outcome.Continue()
		}
		// EC2 says the load balancer has a service that its listing does
		// not show yet (eventual consistency): look again, not a refusal.
		return nil, serviceNotShownYet("")
	}
	if err != nil {
		return nil, outcome.FromError(err)
	}
	log.Info("created the endpoint service", "endpointServiceName", awssdk.ToString(svc.ServiceName), "loadBalancer", lbARN)
	r.markCreated(cr.UID, awssdk.ToString(svc.ServiceName))
	r.Events.Created(cr, "endpoint service", awssdk.ToString(svc.ServiceName))
	r.Cache.PutService(*svc)
	return svc, outcome.Continue()
}

// ensurePermissions makes the service's allowed principals the desired
// ones, re-reading them only on drift checks or when the desired set or
// the service changed.
func (r *Reconciler) ensurePermissions(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, svc *ec2types.ServiceConfiguration) outcome.Outcome {
	aws := hc.Spec.Platform.AWS
	role := ""
	if aws.RolesRef != nil {
		role = aws.RolesRef.ControlPlaneOperatorARN
	}
	if role == "" {
		// The HostedCluster watch brings the fix.
		return outcome.WaitForEvent(hcplinkv1beta1.ControlPlaneOperatorRoleMissingReason,
			"The HostedCluster names no spec.platform.aws.rolesRef.controlPlaneOperatorARN to allow on the endpoint service.")
	}
	desired := desiredPrincipals(role, aws.AdditionalAllowedPrincipals)
	key, name, id := strings.Join(desired, ","), awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	if r.verifiedRecently(cr.UID, name, key) {
		return outcome.Continue()
	}
	var actual []string
	if !r.createdWithoutPrincipals(cr.UID, name) {
		var err error
		if actual, err = r.Provider.AllowedPrincipals(ctx, id); err != nil {
			return outcome.FromError(err)
		}
	}
	add, remove := principalDiff(desired, actual)
	if err := r.Provider.SetPrincipals(ctx, id, add, remove); err != nil {
		return outcome.FromError(err)
	}
	if len(add) > 0 || len(remove) > 0 {
		ctrl.LoggerFrom(ctx).Info("changed the allowed principals of the endpoint service", "endpointServiceName", name, "added", add, "removed", remove)
	}
	r.markVerified(cr.UID, name, key)
	return outcome.Continue()
}

func (r *Reconciler) verifiedRecently(uid types.UID, service, principals string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.verified[uid]
	return ok && v.service == service && v.principals == principals && r.now().Sub(v.at) < r.DriftInterval
}

func (r *Reconciler) markVerified(uid types.UID, service, principals string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verified[uid] = verification{service: service, principals: principals, at: r.now()}
}

// markCreated records that this process just created the service: it has
// no allowed principals yet.
func (r *Reconciler) markCreated(uid types.UID, service string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verified[uid] = verification{service: service, noPrincipals: true}
}

func (r *Reconciler) createdWithoutPrincipals(uid types.UID, service string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.verified[uid]
	return ok && v.noPrincipals && v.service == service
}

func (r *Reconciler) forgetVerification(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.verified, uid)
}

// ensureTags brings the tags hcplink manages on the service to the desired
// ones (the management cluster's tag included: adopted onto a service that
// lacks it), leaving every other tag alone, and records the applied user
// keys. The service's tags come from the batched listing: no extra read.
func (r *Reconciler) ensureTags(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, svc *ec2types.ServiceConfiguration) outcome.Outcome {
	resourceTags := hc.Spec.Platform.AWS.ResourceTags
	infraID, name, id := hc.Spec.InfraID, awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	current := userTagKeys(resourceTags)
	previous := parseKeys(cr.Annotations[AppliedTagKeysAnnotation])
	set, remove := awscloud.TagDiff(desiredTags(infraID, cr.Name, r.ManagementClusterID, resourceTags), awscloud.TagMap(svc.Tags),
		managedTagKey(infraID, r.ManagementClusterID, current, previous))
	if len(set) > 0 || len(remove) > 0 {
		r.Cache.InvalidateService(name)
		if err := r.Provider.SetTags(ctx, id, set, remove); err != nil {
			return outcome.FromError(err)
		}
		ctrl.LoggerFrom(ctx).Info("changed the tags of the endpoint service", "endpointServiceName", name, "set", len(set), "removed", remove)
	}
	if formatKeys(current) != formatKeys(previous) {
		var value *string
		if len(current) > 0 {
			v := formatKeys(current)
			value = &v
		}
		if err := r.patchAnnotations(ctx, cr, map[string]*string{AppliedTagKeysAnnotation: value}); err != nil {
			return outcome.FromError(err)
		}
	}
	return outcome.Continue()
}

// elbState is a load balancer's state code ("unknown" without one).
func elbState(s *elbv2types.LoadBalancerState) string {
	if s == nil || s.Code == "" {
		return "unknown"
	}
	return string(s.Code)
}

// setServiceName writes status.endpointServiceName when it differs
// ("" removes it).
func (r *Reconciler) setServiceName(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, name string) error {
	if cr.Status.EndpointServiceName == name {
		return nil
	}
	var value any = name
	if name == "" {
		value = nil
	}
	if err := kubepatch.Merge(ctx, r.Client, cr, true, map[string]any{"status": map[string]any{"endpointServiceName": value}}); err != nil {
		return fmt.Errorf("writing status.endpointServiceName: %w", err)
	}
	return nil
}

// patchAnnotations sets (nil: removes) annotations by merge patch.
func (r *Reconciler) patchAnnotations(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, values map[string]*string) error {
	annotations := map[string]any{}
	for k, v := range values {
		if v == nil {
			annotations[k] = nil
		} else {
			annotations[k] = *v
		}
	}
	if err := kubepatch.Merge(ctx, r.Client, cr, false, map[string]any{"metadata": map[string]any{"annotations": annotations}}); err != nil {
		return fmt.Errorf("writing annotations: %w", err)
	}
	return nil
}
