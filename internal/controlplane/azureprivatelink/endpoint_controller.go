package azureprivatelink

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
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
	// platform.DefaultMaxConcurrentReconciles.
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
	// reportTrust is how long after a read of the endpoint the management
	// side's report is taken instead (zero: defaultReportTrust); tests
	// shorten it.
	reportTrust time.Duration
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
// (its spec) and the ExternalName Services it owns. Our own status writes
// do not bring a CR back; the operator's status fields (the alias, the
// endpoint's connection state) do, so that an approval is acted on at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return reconcilekit.EndpointController{
		Name: "azureendpoint",
		For:  &hcplinkv1beta1.AzurePrivateLinkService{},
		List: &hcplinkv1beta1.AzurePrivateLinkServiceList{},
		StatusChanged: reconcilekit.StatusOf(func(o, n *hcplinkv1beta1.AzurePrivateLinkService) bool {
			return o.Status.PrivateLinkServiceAlias != n.Status.PrivateLinkServiceAlias ||
				o.Status.PrivateEndpointConnectionState != n.Status.PrivateEndpointConnectionState
		}),
		Workers: reconcilekit.WorkersOr(r.MaxConcurrentReconciles, platform.DefaultMaxConcurrentReconciles),
	}.Setup(mgr, r)
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
	s := &scope{client: r.Client, cr: cr, base: cr.DeepCopy(), hcp: hcp}
	if !cr.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if !PrivateConfigured(hcp) || !hcp.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // nothing to build for; the operator deletes the CR in order
	}
	// What deletion needs, kept before anything is created: the finalizer
	// and the infraID that names and tags the resources (the
	// HostedControlPlane may be gone by then).
	if added, err := reconcilekit.EnsureFinalizer(ctx, r.Client, cr, hcplinkv1beta1.ControlPlaneFinalizer,
		map[string]string{InfraIDAnnotation: hcp.Spec.InfraID}); err != nil {
		return ctrl.Result{}, err
	} else if added {
		s.base = cr.DeepCopy()
	}
	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		o := outcome.Unknown(hcplinkv1beta1.ReconciliationPausedReason,
			"Reconciliation is paused by the cluster's pausedUntil; the Private Endpoint and DNS are left as they are", remaining)
		return r.finisher().Finish(ctx, s.target(), o)
	}
	cr.Status.DNSZoneName = azurecloud.PrivateDNSZoneName(hcp.Name)
	s.infraID = hcp.Spec.InfraID
	if s.endpoints, s.dns, err = r.Cloud.For(cr.Spec.SubscriptionID); err != nil {
		// A missing or broken identity configuration is said in the
		// condition, not only in the log.
		o := outcome.FromError(fmt.Errorf("building the Azure clients: %w", err))
		return r.finisher().Finish(ctx, s.target(), o)
	}
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	res := r.reconcileNormal(passCtx, s)
	return r.finisher().Finish(ctx, s.target(), res.overall, res.conditions(s)...)
}

// finisher ends the controller's passes with its three conditions, under
// this controller's field owner, so the operator's two conditions on the
// same object are never touched. A pass that gives no conditions of its
// own says its outcome in AzurePrivateLinkServiceAvailable.
func (r *Reconciler) finisher() reconcilekit.Finisher {
	return reconcilekit.Finisher{Tracker: r.outcomes(), Type: hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner, Types: ownedConditions, Events: r.Events}}
}
