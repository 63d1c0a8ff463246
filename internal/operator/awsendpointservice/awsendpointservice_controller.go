// Package awsendpointservice is the management operator's AWSEndpointService
// controller. For each AWSEndpointService of a private AWS cluster it
//
//   - writes spec.subnetIDs from the cluster's NodePools (sorted, unique, at
//     most 10; more is a condition, not a refused update);
//   - publishes the control plane's network load balancer as a VPC endpoint
//     service (AcceptanceRequired=false), found again after a restart by
//     its ClientToken and its two tags, never created twice;
//   - allows the control-plane operator's role (without its IAM path) and
//     the cluster's additionalAllowedPrincipals to connect, and keeps the
//     cluster's resource tags on the service, changing only what differs;
//   - on deletion waits for the control-plane operator's cleanup, rejects
//     the remaining connections and deletes the service.
//
// It is quiet at steady state: one batched listing of the account's
// endpoint services and load balancers per drift interval serves every
// object (DescribeCache), permissions are re-read only on drift checks or
// after a change, and nothing is written when nothing changed. A Sweeper
// removes endpoint services tagged for clusters no object references.
package awsendpointservice

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
)

// clientTokenPurpose names the endpoint-service create in its ClientToken.
const clientTokenPurpose = "endpoint-service"

// Intervals. Waiting is a requeue and a reason, never an error.
const (
	// DefaultDriftInterval: how often a healthy service is checked against
	// AWS (and how long the batched listing serves).
	DefaultDriftInterval = 10 * time.Minute
	// loadBalancerPoll: an NLB provisions in a few minutes.
	loadBalancerPoll = 15 * time.Second
	// servicePendingPoll: a new endpoint service is Available in seconds.
	servicePendingPoll = 5 * time.Second
	// controlPlaneCleanupPoll: the CPO's finalizer removal wakes us through
	// the watch; this is the safety net.
	controlPlaneCleanupPoll = 30 * time.Second
	// connectionsPoll: rejected or deleting consumer endpoints leave within
	// seconds.
	connectionsPoll = 5 * time.Second
	// callTimeout bounds one AWS call, so one slow call never holds a worker.
	callTimeout = 20 * time.Second
	// defaultMaxConcurrentReconciles: one slow or throttled cluster never
	// blocks the others.
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
	// Cache batches the Describe calls; nil builds one from EC2, ELB,
	// Clock and DriftInterval. Share it with the Sweeper.
	Cache *DescribeCache
	// Clock tells the time; nil is the real clock.
	Clock Clock
	// DriftInterval is how often a healthy service is checked (zero:
	// DefaultDriftInterval); each check is jittered by ±15 %.
	DriftInterval time.Duration
	// Rand returns numbers in [0, 1) for jitter; nil is math/rand.
	Rand func() float64

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
}

func (r *Reconciler) init() {
	r.once.Do(func() {
		if r.Clock == nil {
			r.Clock = realClock{}
		}
		if r.DriftInterval <= 0 {
			r.DriftInterval = DefaultDriftInterval
		}
		if r.Cache == nil {
			r.Cache = &DescribeCache{EC2: r.EC2, ELB: r.ELB, Clock: r.Clock, TTL: r.DriftInterval}
		}
		r.verified = map[types.UID]verification{}
	})
}

func (r *Reconciler) now() time.Time { return r.Clock.Now() }

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	r.init()
	if opts.MaxConcurrentReconciles == 0 {
		opts.MaxConcurrentReconciles = defaultMaxConcurrentReconciles
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&hcplinkv1beta1.AWSEndpointService{}, builder.WithPredicates(endpointServiceChanged)).
		Watches(&hcplinkv1beta1.NodePool{}, handler.EnqueueRequestsFromMapFunc(r.forNodePool), builder.WithPredicates(nodePoolSubnetChanged)).
		Watches(&hcplinkv1beta1.HostedCluster{}, handler.EnqueueRequestsFromMapFunc(r.forHostedCluster), builder.WithPredicates(hostedClusterChanged)).
		WithOptions(opts).
		Complete(r)
}

// endpointServiceChanged skips the status writes (ours and the CPO's)
// and passes what matters: spec, deletion, finalizers (the CPO's going
// away unblocks deletion), annotations.
var endpointServiceChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetGeneration() != n.GetGeneration() ||
			!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
			!slices.Equal(o.GetFinalizers(), n.GetFinalizers()) ||
			o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] != n.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation]
	},
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

// hostedClusterChanged passes the changes that alter what the controller
// writes: principals, role, resource tags, pause, endpoint access, deletion.
var hostedClusterChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*hcplinkv1beta1.HostedCluster)
		n, ok2 := e.ObjectNew.(*hcplinkv1beta1.HostedCluster)
		if !ok1 || !ok2 {
			return true
		}
		return !equality.Semantic.DeepEqual(o.Spec.Platform.AWS, n.Spec.Platform.AWS) ||
			!equality.Semantic.DeepEqual(o.Spec.PausedUntil, n.Spec.PausedUntil) ||
			!o.DeletionTimestamp.Equal(n.DeletionTimestamp)
	},
}

func (r *Reconciler) forNodePool(ctx context.Context, o client.Object) []reconcile.Request {
	np, ok := o.(*hcplinkv1beta1.NodePool)
	if !ok || np.Spec.ClusterName == "" {
		return nil
	}
	return r.inNamespace(ctx, hcplinkv1beta1.HostedControlPlaneNamespace(np.Namespace, np.Spec.ClusterName))
}

func (r *Reconciler) forHostedCluster(ctx context.Context, o client.Object) []reconcile.Request {
	return r.inNamespace(ctx, hcplinkv1beta1.HostedControlPlaneNamespace(o.GetNamespace(), o.GetName()))
}

func (r *Reconciler) inNamespace(ctx context.Context, namespace string) []reconcile.Request {
	list := &hcplinkv1beta1.AWSEndpointServiceList{}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing AWSEndpointServices to enqueue", "namespace", namespace)
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, cr := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&cr)})
	}
	return out
}

// Reconcile publishes one AWSEndpointService's load balancer as an
// endpoint service, or removes the service when the object is deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.init()
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("awsEndpointService", req.NamespacedName)
	ctx = ctrl.LoggerInto(ctx, log)

	hc, err := r.hostedCluster(ctx, cr)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !cr.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, cr, hc)
	}
	if hc == nil {
		if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) {
			// Never served; nothing of ours to report on or clean up.
			return ctrl.Result{}, nil
		}
		return r.finish(ctx, cr, waiting(HostedClusterNotFoundReason,
			"The HostedCluster named by the "+hcplinkv1beta1.ClusterAnnotation+" annotation does not exist.", 0))
	}
	if !served(hc) {
		return ctrl.Result{}, nil
	}
	if paused, remaining := hcplinkv1beta1.PausedFor(hc.Spec.PausedUntil, r.now()); paused {
		log.V(1).Info("reconciliation paused", "pausedUntil", *hc.Spec.PausedUntil)
		return ctrl.Result{RequeueAfter: remaining}, nil
	}
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) {
		if err := r.patchFinalizers(ctx, cr, func() { controllerutil.AddFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
			return ctrl.Result{}, err
		}
	}
	return r.finish(ctx, cr, r.reconcileNormal(ctx, cr, hc))
}

// served: AWS clusters that are not Public.
func served(hc *hcplinkv1beta1.HostedCluster) bool {
	return hc.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform && hc.Spec.Platform.IsPrivate()
}

// reconcileNormal runs the phases in order: subnets, endpoint service,
// permissions, tags. The first that is not done decides the condition.
func (r *Reconciler) reconcileNormal(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) outcome {
	wanted, err := r.ensureSubnets(ctx, cr, hc)
	if err != nil {
		return errorOutcome(err, defaultBackoff, r.Rand)
	}
	svc, o := r.ensureService(ctx, cr, hc)
	if !o.done() {
		return o
	}
	if o := r.ensurePermissions(ctx, cr, hc, svc); !o.done() {
		return o
	}
	if o := r.ensureTags(ctx, cr, hc, svc); !o.done() {
		return o
	}
	o = availableCondition(wanted)
	o.requeue = jittered(r.DriftInterval, r.Rand)
	return o
}

// finish writes the condition an outcome asks for and turns the outcome
// into a result.
func (r *Reconciler) finish(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, o outcome) (ctrl.Result, error) {
	if o.reason != "" {
		cond := metav1.Condition{Type: hcplinkv1beta1.AWSEndpointServiceAvailableCondition, Status: o.status, Reason: o.reason, Message: o.message}
		if _, err := r.applyCondition(ctx, cr, cond); err != nil {
			if o.err == nil {
				o.err = err
			}
		}
	}
	if o.err != nil {
		if apierrors.IsConflict(o.err) {
			return ctrl.Result{RequeueAfter: time.Second}, nil
		}
		return ctrl.Result{}, o.err
	}
	if o.reason != "" && o.status != metav1.ConditionTrue {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting", "reason", o.reason, "message", o.message, "requeueAfter", o.requeue)
	}
	return ctrl.Result{RequeueAfter: o.requeue}, nil
}

// hostedCluster finds the object's HostedCluster through the
// hcplink.io/cluster annotation (writing it when missing, from the
// namespace's annotation or by matching control-plane namespaces); nil
// when there is none.
func (r *Reconciler) hostedCluster(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService) (*hcplinkv1beta1.HostedCluster, error) {
	value, ok := cr.Annotations[hcplinkv1beta1.ClusterAnnotation]
	if !ok {
		ns := &corev1.Namespace{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: cr.Namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading namespace %s: %w", cr.Namespace, err)
		}
		value, ok = ns.Annotations[hcplinkv1beta1.ClusterAnnotation]
		if !ok {
			list := &hcplinkv1beta1.HostedClusterList{}
			if err := r.Client.List(ctx, list); err != nil {
				return nil, fmt.Errorf("listing HostedClusters: %w", err)
			}
			for _, hc := range list.Items {
				if hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name) == cr.Namespace {
					value, ok = hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name), true
					break
				}
			}
		}
		if !ok {
			return nil, nil
		}
		if err := r.patchAnnotations(ctx, cr, map[string]*string{hcplinkv1beta1.ClusterAnnotation: &value}); err != nil {
			return nil, err
		}
	}
	namespace, name, ok := hcplinkv1beta1.ParseClusterAnnotation(value)
	if !ok {
		return nil, nil
	}
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, hc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading HostedCluster %s: %w", value, err)
	}
	return hc, nil
}

// ensureSubnets writes spec.subnetIDs from the cluster's NodePools when it
// differs, and returns how many subnets the NodePools use.
func (r *Reconciler) ensureSubnets(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (int, error) {
	pools := &hcplinkv1beta1.NodePoolList{}
	if err := r.Client.List(ctx, pools, client.InNamespace(hc.Namespace)); err != nil {
		return 0, fmt.Errorf("listing NodePools: %w", err)
	}
	var ids []string
	for i := range pools.Items {
		np := &pools.Items[i]
		if np.Spec.ClusterName == hc.Name && np.DeletionTimestamp.IsZero() {
			ids = append(ids, nodePoolSubnet(np))
		}
	}
	subnets, wanted := subnetUnion(ids)
	if slices.Equal(subnets, cr.Spec.SubnetIDs) {
		return wanted, nil
	}
	var value any = subnets
	if len(subnets) == 0 {
		value = nil
	}
	if err := r.mergePatch(ctx, cr, false, map[string]any{"spec": map[string]any{"subnetIDs": value}}); err != nil {
		return 0, fmt.Errorf("writing spec.subnetIDs: %w", err)
	}
	return wanted, nil
}

// generation is the object's endpoint-service generation (see
// GenerationAnnotation).
func generation(cr *hcplinkv1beta1.AWSEndpointService) int64 {
	g, _ := strconv.ParseInt(cr.Annotations[GenerationAnnotation], 10, 64)
	return g
}

// ensureService finds, adopts or creates the endpoint service and records
// its name in status.
func (r *Reconciler) ensureService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (*ec2types.ServiceConfiguration, outcome) {
	log := ctrl.LoggerFrom(ctx)
	infraID := hc.Spec.InfraID
	if name := cr.Status.EndpointServiceName; name != "" {
		svc, err := r.Cache.Service(ctx, name)
		if err != nil {
			return nil, errorOutcome(cloud("describing endpoint service "+name, err), defaultBackoff, r.Rand)
		}
		if svc != nil {
			if o, gone := serviceStateOutcome(svc, servicePendingPoll, r.DriftInterval); !gone {
				if o.done() {
					o = r.checkLoadBalancer(ctx, cr, svc)
				}
				return svc, o
			}
		}
		// Gone (or deleted behind our back): a new generation, so that the
		// ClientToken does not return the deleted service; then create.
		log.Info("the endpoint service recorded in status no longer exists; creating another", "endpointServiceName", name)
		next := strconv.FormatInt(generation(cr)+1, 10)
		if err := r.patchAnnotations(ctx, cr, map[string]*string{GenerationAnnotation: &next}); err != nil {
			return nil, errorOutcome(err, defaultBackoff, r.Rand)
		}
		if err := r.setServiceName(ctx, cr, ""); err != nil {
			return nil, errorOutcome(err, defaultBackoff, r.Rand)
		}
		r.forgetVerification(cr.UID)
	}

	lbName := cr.Spec.NetworkLoadBalancerName
	lb, err := r.Cache.LoadBalancer(ctx, lbName)
	if err != nil {
		return nil, errorOutcome(cloud("describing load balancer "+lbName, err), defaultBackoff, r.Rand)
	}
	if lb == nil {
		return nil, waiting(hcplinkv1beta1.LoadBalancerNotFoundReason, "Network load balancer "+lbName+" does not exist yet.", loadBalancerPoll)
	}
	if lb.State == nil || lb.State.Code != "active" {
		state := "unknown"
		if lb.State != nil {
			state = string(lb.State.Code)
		}
		return nil, waiting(hcplinkv1beta1.LoadBalancerNotActiveReason, "Network load balancer "+lbName+" is "+state+", not active yet.", loadBalancerPoll)
	}
	lbARN := awssdk.ToString(lb.LoadBalancerArn)

	svc, err := r.Cache.ServiceByTags(ctx, infraID, cr.Name)
	if err != nil {
		return nil, errorOutcome(cloud("listing endpoint services", err), defaultBackoff, r.Rand)
	}
	if svc != nil {
		log.Info("adopting the endpoint service tagged for this object", "endpointServiceName", awssdk.ToString(svc.ServiceName))
	} else {
		svc, err = r.createService(ctx, cr, hc, lbARN)
		if err != nil {
			return nil, errorOutcome(err, defaultBackoff, r.Rand)
		}
	}
	// Allow the control-plane operator's principal before publishing the
	// name: it acts on the name at once, and until it is allowed the service
	// is invisible to it (it would back off for nothing).
	if o := r.ensurePermissions(ctx, cr, hc, svc); !o.done() {
		return nil, o
	}
	// Record the name at once: a restart from here adopts, never duplicates.
	if err := r.setServiceName(ctx, cr, awssdk.ToString(svc.ServiceName)); err != nil {
		return nil, errorOutcome(err, defaultBackoff, r.Rand)
	}
	o, _ := serviceStateOutcome(svc, servicePendingPoll, r.DriftInterval)
	return svc, o
}

// checkLoadBalancer reports a service whose network load balancer is gone.
// The check reads the batched listing: no call at steady state.
func (r *Reconciler) checkLoadBalancer(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, svc *ec2types.ServiceConfiguration) outcome {
	lbName := cr.Spec.NetworkLoadBalancerName
	lb, err := r.Cache.LoadBalancer(ctx, lbName)
	if err != nil {
		return errorOutcome(cloud("describing load balancer "+lbName, err), defaultBackoff, r.Rand)
	}
	if lb == nil {
		return waiting(hcplinkv1beta1.LoadBalancerNotFoundReason, "Network load balancer "+lbName+" of endpoint service "+
			awssdk.ToString(svc.ServiceName)+" no longer exists; the control plane's load balancer Service must be restored.", loadBalancerPoll)
	}
	return outcome{}
}

// createService creates the endpoint service on the NLB, or adopts the one
// AWS says the NLB already has.
func (r *Reconciler) createService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, lbARN string) (*ec2types.ServiceConfiguration, error) {
	log := ctrl.LoggerFrom(ctx)
	tags := desiredTags(hc.Spec.InfraID, cr.Name, hc.Spec.Platform.AWS.ResourceTags)
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := r.EC2.CreateVpcEndpointServiceConfiguration(cctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired:      awssdk.Bool(false),
		NetworkLoadBalancerArns: []string{lbARN},
		ClientToken:             awssdk.String(awscloud.ClientToken(clientTokenPurpose, string(cr.UID), generation(cr))),
		TagSpecifications:       awscloud.TagSpecifications(ec2types.ResourceTypeVpcEndpointService, tags),
	})
	if awscloud.ErrorCode(err) == awscloud.CodeInvalidParameter {
		// The NLB may already back a service (ours, created before a lost
		// status): adopt it.
		existing, lerr := r.Cache.ServiceByLoadBalancer(ctx, lbARN)
		if lerr != nil {
			return nil, cloud("listing endpoint services", lerr)
		}
		if existing != nil {
			log.Info("adopting the endpoint service already on the load balancer", "endpointServiceName", awssdk.ToString(existing.ServiceName))
			return existing, nil
		}
	}
	if err != nil {
		return nil, cloud("creating the endpoint service", err)
	}
	if out.ServiceConfiguration == nil {
		return nil, cloud("creating the endpoint service", fmt.Errorf("AWS returned no service configuration"))
	}
	log.Info("created the endpoint service", "endpointServiceName", awssdk.ToString(out.ServiceConfiguration.ServiceName), "loadBalancer", lbARN)
	r.Cache.PutService(*out.ServiceConfiguration)
	return out.ServiceConfiguration, nil
}

// ensurePermissions makes the service's allowed principals the desired
// ones, re-reading them only on drift checks or when the desired set or
// the service changed.
func (r *Reconciler) ensurePermissions(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, svc *ec2types.ServiceConfiguration) outcome {
	aws := hc.Spec.Platform.AWS
	role := ""
	if aws.RolesRef != nil {
		role = aws.RolesRef.ControlPlaneOperatorARN
	}
	if role == "" {
		return waiting(hcplinkv1beta1.ControlPlaneOperatorRoleMissingReason,
			"The HostedCluster names no spec.platform.aws.rolesRef.controlPlaneOperatorARN to allow on the endpoint service.", 0)
	}
	desired := desiredPrincipals(role, aws.AdditionalAllowedPrincipals)
	key, name, id := strings.Join(desired, ","), awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	if r.verifiedRecently(cr.UID, name, key) {
		return outcome{}
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	actual, err := awscloud.ListAllowedPrincipals(cctx, r.EC2, id)
	if err != nil {
		return errorOutcome(cloud("reading the allowed principals of endpoint service "+name, err), defaultBackoff, r.Rand)
	}
	add, remove := principalDiff(desired, actual)
	if len(add) > 0 || len(remove) > 0 {
		in := &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: awssdk.String(id)}
		if len(add) > 0 {
			in.AddAllowedPrincipals = add
		}
		if len(remove) > 0 {
			in.RemoveAllowedPrincipals = remove
		}
		if _, err := r.EC2.ModifyVpcEndpointServicePermissions(cctx, in); err != nil {
			return errorOutcome(cloud("changing the allowed principals of endpoint service "+name, err), defaultBackoff, r.Rand)
		}
		ctrl.LoggerFrom(ctx).Info("changed the allowed principals of the endpoint service", "endpointServiceName", name, "added", add, "removed", remove)
	}
	r.markVerified(cr.UID, name, key)
	return outcome{}
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

func (r *Reconciler) forgetVerification(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.verified, uid)
}

// ensureTags brings the tags hcplink manages on the service to the desired
// ones, leaving every other tag alone, and records the applied user keys.
// The service's tags come from the batched listing: no extra read.
func (r *Reconciler) ensureTags(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster, svc *ec2types.ServiceConfiguration) outcome {
	resourceTags := hc.Spec.Platform.AWS.ResourceTags
	infraID, name, id := hc.Spec.InfraID, awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	current := userTagKeys(resourceTags)
	previous := parseKeys(cr.Annotations[AppliedTagKeysAnnotation])
	set, remove := awscloud.TagDiff(desiredTags(infraID, cr.Name, resourceTags), awscloud.TagMap(svc.Tags), managedTagKey(infraID, current, previous))
	if len(set) > 0 || len(remove) > 0 {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		r.Cache.InvalidateService(name)
		if len(set) > 0 {
			if _, err := r.EC2.CreateTags(cctx, &ec2.CreateTagsInput{Resources: []string{id}, Tags: awscloud.EC2Tags(set)}); err != nil {
				return errorOutcome(cloud("tagging endpoint service "+name, err), defaultBackoff, r.Rand)
			}
		}
		if len(remove) > 0 {
			keys := make([]ec2types.Tag, 0, len(remove))
			for _, k := range remove {
				keys = append(keys, ec2types.Tag{Key: awssdk.String(k)})
			}
			if _, err := r.EC2.DeleteTags(cctx, &ec2.DeleteTagsInput{Resources: []string{id}, Tags: keys}); err != nil {
				return errorOutcome(cloud("removing tags from endpoint service "+name, err), defaultBackoff, r.Rand)
			}
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
			return errorOutcome(err, defaultBackoff, r.Rand)
		}
	}
	return outcome{}
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
	if err := r.mergePatch(ctx, cr, true, map[string]any{"status": map[string]any{"endpointServiceName": value}}); err != nil {
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
	if err := r.mergePatch(ctx, cr, false, map[string]any{"metadata": map[string]any{"annotations": annotations}}); err != nil {
		return fmt.Errorf("writing annotations: %w", err)
	}
	return nil
}

// mergePatch sends a JSON merge patch of only the given fields (to the
// status subresource when status is true), guarded by the object's UID so
// that it never lands on a successor of the same name; cr is updated from
// the answer.
func (r *Reconciler) mergePatch(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, status bool, patch map[string]any) error {
	md, _ := patch["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		patch["metadata"] = md
	}
	md["uid"] = string(cr.UID)
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if status {
		return r.Client.Status().Patch(ctx, cr, client.RawPatch(types.MergePatchType, data))
	}
	return r.Client.Patch(ctx, cr, client.RawPatch(types.MergePatchType, data))
}

// patchFinalizers changes the finalizers with an optimistic lock, so that
// a finalizer the control-plane operator added meanwhile is never dropped.
func (r *Reconciler) patchFinalizers(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, mutate func()) error {
	base := cr.DeepCopy()
	mutate()
	if err := r.Client.Patch(ctx, cr, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("writing the finalizers: %w", err)
	}
	return nil
}

// applyCondition sets the AWSEndpointServiceAvailable condition by
// server-side apply of that one entry under FieldOwner; nothing is written
// when it already reads the same.
func (r *Reconciler) applyCondition(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, cond metav1.Condition) (bool, error) {
	return conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Now: r.now}.Apply(ctx, cr, &cr.Status.Conditions, cond)
}
