package azureprivatelink

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

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
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
)

// EndpointFieldOwner is the field manager of the endpoint controller's
// writes: its three conditions are applied server-side under this name, so
// the operator's two conditions on the same object are never touched.
const EndpointFieldOwner = "hcplink-azure-endpoint"

// InfraIDAnnotation keeps the cluster's infraID on the CR: it names and
// tags the Private Endpoint and the VNet link, and deletion must find them
// when the HostedControlPlane is gone.
const InfraIDAnnotation = "hcplink.io/infra-id"

// ownedConditions are the condition types this controller writes.
var ownedConditions = []string{
	hcplinkv1beta1.AzurePrivateEndpointAvailableCondition,
	hcplinkv1beta1.AzurePrivateDNSAvailableCondition,
	hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition,
}

// Reconciler is the control-plane operator's endpoint controller: for the
// AzurePrivateLinkService of its namespace it keeps, in the customer's
// subscription, a Private Endpoint connected to the operator's Private
// Link Service, the private zone linked to the customer's VNet with the api
// and *.apps records, and the ExternalName Services of a Private cluster;
// and removes them in order on deletion. It orchestrates and sets
// conditions; the cloud calls are the providers'.
type Reconciler struct {
	Client client.Client
	// Cloud returns the providers acting in one subscription (the
	// customer's, spec.subscriptionID).
	Cloud CloudFactory
	// DriftInterval is how often a healthy private path is checked; zero
	// means DefaultDriftInterval. Each check is jittered by ±15%.
	DriftInterval time.Duration
	// Tracker grows the delays of repeated trouble per CR; nil uses a
	// private one.
	Tracker *outcome.Tracker
	// MaxConcurrentReconciles is the worker count; zero means
	// DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
	// OperationPoll is the first look at a long-running operation this
	// controller started, and the pace of deletion's steps; zero means 5
	// seconds (Azure's network operations take seconds to a minute).
	OperationPoll time.Duration
	// Events tells people what was created or deleted and how the
	// conditions changed; nil tells nothing.
	Events *events.Recorder

	initOnce sync.Once
	tracker  *outcome.Tracker
	// tokens are the resume tokens of long-running operations in flight,
	// per CR and operation: a pass starts an operation and a later one
	// resumes it. A token lost to a restart costs one repeated,
	// idempotent PUT or DELETE.
	tokens sync.Map // tokenKey → string
	// proofs are what recent passes proved (see proven.go).
	proofs sync.Map // proofKey → proof
	// rejections pace the replacement of a rejected or disconnected
	// endpoint, per CR (see endpoint.go).
	rejections sync.Map // types.UID → rejection
}

type tokenKey struct {
	uid types.UID
	op  string
}

func (r *Reconciler) token(cr *hcplinkv1beta1.AzurePrivateLinkService, op string) string {
	v, _ := r.tokens.Load(tokenKey{cr.UID, op})
	s, _ := v.(string)
	return s
}

func (r *Reconciler) keepToken(cr *hcplinkv1beta1.AzurePrivateLinkService, op, token string) {
	if token == "" {
		r.tokens.Delete(tokenKey{cr.UID, op})
		return
	}
	r.tokens.Store(tokenKey{cr.UID, op}, token)
}

func (r *Reconciler) forget(cr *hcplinkv1beta1.AzurePrivateLinkService) {
	r.outcomes().Forget(string(cr.UID))
	r.forgetProofs(cr)
	r.rejections.Delete(cr.UID)
	r.tokens.Range(func(k, _ any) bool {
		if k.(tokenKey).uid == cr.UID {
			r.tokens.Delete(k)
		}
		return true
	})
}

func (r *Reconciler) outcomes() *outcome.Tracker {
	r.initOnce.Do(func() {
		r.tracker = r.Tracker
		if r.tracker == nil {
			r.tracker = &outcome.Tracker{}
		}
	})
	return r.tracker
}

// now is the tracker's clock (a test's manual one), else the wall clock.
func (r *Reconciler) now() time.Time {
	if t := r.outcomes(); t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// capturing is azurecloud.CaptureRetryAfter.
func capturing(ctx context.Context) (context.Context, func() time.Duration) {
	return azurecloud.CaptureRetryAfter(ctx)
}

// operationPoll is the outcome of an operation of ours still running:
// looked at again when Azure's Retry-After says, each time (ARM sends one
// with every answer about a running operation:
// learn.microsoft.com/azure/azure-resource-manager/management/async-operations);
// without one, after the first poll, then less often.
func (r *Reconciler) operationPoll(reason, message string, retryAfter time.Duration) outcome.Outcome {
	if retryAfter > 0 {
		return outcome.Wait(reason, message, retryAfter)
	}
	return outcome.Poll(reason, message, r.poll(), pendingMostPoll)
}

func (r *Reconciler) poll() time.Duration {
	if r.OperationPoll > 0 {
		return r.OperationPoll
	}
	return operationPoll
}

func (r *Reconciler) driftInterval() time.Duration {
	if r.DriftInterval > 0 {
		return r.DriftInterval
	}
	return DefaultDriftInterval
}

// SetupWithManager registers the controller: AzurePrivateLinkServices
// (their spec, deletion and the operator's alias), the HostedControlPlane
// (its spec) and the ExternalName Services it owns.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	workers := r.MaxConcurrentReconciles
	if workers <= 0 {
		workers = DefaultMaxConcurrentReconciles
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("azureendpoint").
		// Our own status writes do not bring the CR back; the operator's
		// status fields (the alias, the endpoint's connection state) do, so
		// that an approval is acted on at once.
		For(&hcplinkv1beta1.AzurePrivateLinkService{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
				o, okOld := e.ObjectOld.(*hcplinkv1beta1.AzurePrivateLinkService)
				n, okNew := e.ObjectNew.(*hcplinkv1beta1.AzurePrivateLinkService)
				return okOld && okNew && (o.Status.PrivateLinkServiceAlias != n.Status.PrivateLinkServiceAlias ||
					o.Status.PrivateEndpointConnectionState != n.Status.PrivateEndpointConnectionState ||
					o.DeletionTimestamp.IsZero() != n.DeletionTimestamp.IsZero())
			}}))).
		Owns(&corev1.Service{}).
		Watches(&hcplinkv1beta1.HostedControlPlane{}, handler.EnqueueRequestsFromMapFunc(r.crsOfNamespace),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: workers}).
		Complete(r)
}

func (r *Reconciler) crsOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	var list hcplinkv1beta1.AzurePrivateLinkServiceList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// scope is what one pass works with.
type scope struct {
	cr   *hcplinkv1beta1.AzurePrivateLinkService
	base *hcplinkv1beta1.AzurePrivateLinkService // status as last written
	hcp  *hcplinkv1beta1.HostedControlPlane      // nil when gone (deletion only)
	// The providers, in the customer's subscription.
	endpoints Endpoints
	dns       DNS
	// infraID names the cluster's resources; kept in the ownership tags.
	infraID string
}

// Reconcile builds or removes the customer side of the private path.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	hcp, err := hcpref.Find(ctx, r.Client, cr.Namespace, cr.OwnerReferences)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cr: cr, base: cr.DeepCopy(), hcp: hcp}
	if !cr.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if !PrivateConfigured(hcp) || !hcp.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // nothing to build for; the operator deletes the CR in order
	}
	// What deletion needs, kept before anything is created: the finalizer
	// and the infraID that names and tags the resources (the
	// HostedControlPlane may be gone by then).
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) || cr.Annotations[InfraIDAnnotation] != hcp.Spec.InfraID {
		patch := client.MergeFrom(cr.DeepCopy())
		controllerutil.AddFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer)
		if cr.Annotations == nil {
			cr.Annotations = map[string]string{}
		}
		cr.Annotations[InfraIDAnnotation] = hcp.Spec.InfraID
		if err := r.Client.Patch(ctx, cr, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer: %w", err)
		}
		s.base = cr.DeepCopy()
	}
	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		o := outcome.Unknown(hcplinkv1beta1.ReconciliationPausedReason,
			"Reconciliation is paused by the cluster's pausedUntil; the Private Endpoint and DNS are left as they are", remaining)
		return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)}, o)
	}
	cr.Status.DNSZoneName = azurecloud.PrivateDNSZoneName(hcp.Name)
	s.infraID = hcp.Spec.InfraID
	if s.endpoints, s.dns, err = r.Cloud.For(cr.Spec.SubscriptionID); err != nil {
		// A missing or broken identity configuration is said in the
		// condition, not only in the log.
		o := outcome.FromError(fmt.Errorf("building the Azure clients: %w", err))
		return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)}, o)
	}
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	res := r.reconcileNormal(passCtx, s)
	return r.finish(ctx, s, res.conditions(s), res.overall)
}

// finish resolves the pass's outcome (growing repeated trouble), writes the
// status and the conditions, and asks for the next look.
func (r *Reconciler) finish(ctx context.Context, s *scope, conds []metav1.Condition, o outcome.Outcome) (ctrl.Result, error) {
	resolved := r.outcomes().Resolve(string(s.cr.UID), o)
	for i := range conds {
		if conds[i].Reason == o.Reason && conds[i].Message == o.Message {
			conds[i].Message = resolved.Message // the "Next check at" wording
		}
	}
	if err := r.persist(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	w := conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner, Types: ownedConditions, Events: r.Events}
	if _, err := w.Apply(ctx, s.cr, &s.cr.Status.Conditions, conds...); err != nil {
		return ctrl.Result{}, err
	}
	if resolved.Err != nil {
		return ctrl.Result{}, resolved.Err
	}
	return ctrl.Result{RequeueAfter: resolved.After}, nil
}

// persist writes the status fields this controller owns (not conditions,
// not the operator's) when they changed since the last write.
func (r *Reconciler) persist(ctx context.Context, s *scope) error {
	want, have := s.cr.Status, s.base.Status
	if want.PrivateEndpointID == have.PrivateEndpointID && want.PrivateEndpointIP == have.PrivateEndpointIP &&
		want.PrivateDNSZoneID == have.PrivateDNSZoneID && want.DNSZoneName == have.DNSZoneName {
		return nil
	}
	patch := map[string]any{"status": map[string]any{
		"privateEndpointID": nullIfEmpty(want.PrivateEndpointID),
		"privateEndpointIP": nullIfEmpty(want.PrivateEndpointIP),
		"privateDNSZoneID":  nullIfEmpty(want.PrivateDNSZoneID),
		"dnsZoneName":       nullIfEmpty(want.DNSZoneName),
	}}
	raw, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Patch(ctx, s.cr, client.RawPatch(types.MergePatchType, raw)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing the status of AzurePrivateLinkService %s: %w", s.cr.Name, err)
	}
	conds := s.base.Status.Conditions
	s.base = s.cr.DeepCopy()
	s.base.Status.Conditions = conds
	if !equality.Semantic.DeepEqual(s.cr.Status.Conditions, conds) {
		s.cr.Status.Conditions = conds
	}
	return nil
}

func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}
