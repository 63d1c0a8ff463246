// Package hostedcluster is the management operator's HostedCluster
// controller. For every HostedCluster it
//
//   - checks what the CRD cannot (the operator's private platform and
//     region, a control-plane operator role the cloud would refuse, the
//     control-plane namespace) and reports it in ValidConfiguration;
//     nothing is created for a refused cluster;
//   - creates the control-plane namespace, the HostedControlPlane (the
//     cluster and its NodePools' subnets, as the control-plane operator sees
//     them) and the control-plane operator (ServiceAccount, Role,
//     RoleBinding, credentials, Deployment), writing only what changed.
//     Whatever is missing is recreated, the namespace included: a namespace
//     force-deleted mid-cluster comes back whole, and the new control-plane
//     operator adopts its cloud resources by tags;
//   - folds the conditions of the private-link objects of the cluster's
//     platform into the HostedCluster, copies the HostedControlPlane's
//     ValidCloudCredentials (the control-plane operator's) into it, sets
//     Available (leading with invalid credentials when they are the cause)
//     and mirrors Available onto the HostedControlPlane;
//   - deletes in order (see reconcileDelete): private-link objects first
//     (their finalizers remove the cloud resources, so the control-plane
//     operator stays up), then waits for the control-plane operator's final
//     sweep of the customer's account, then the HostedControlPlane and the
//     control-plane operator, then the namespace, and only then drops its
//     finalizer.
//
// # Who cleans up what, and who may give up
//
// The one place that decides when a component's cleanup (its finalizers)
// is given up is hostedcluster_giveup.go: controlPlaneGiveUp for the
// control-plane operator's, managementGiveUp for the operator's own.
//
// # Leftovers after a lost namespace
//
// The control-plane operator is the only component that can reach the
// customer's account, and the HostedCluster keeps what it needs (region,
// role, VPC, infra ID). So at deletion, once no private-link object is
// left, deletion waits for its final sweep (everything still tagged for the
// cluster, HostedControlPlane CloudCleanupComplete=True). If the namespace
// is gone when the cluster is deleted, the operator recreates just enough
// for that sweep (namespace, HostedControlPlane marked deleting, the
// control-plane operator and its credentials), waits for it, and then
// removes it all again. That is how resources left behind by a forced
// namespace deletion are found and removed.
//
// The cloud-specific parts (which clusters are private, the checks of
// their settings, the control-plane operator's credentials, kinds,
// condition types, listings, what each finalizer would leak, whether there
// is a final sweep) come from the platform registry
// (internal/operator/platform, Config.Platforms); this package names no
// cloud.
package hostedcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// ControllerName names the controller (logs, metrics, events).
const ControllerName = "hostedcluster"

// DefaultCleanupGracePeriod is how long deletion waits, with the cloud
// credentials reported invalid, before it gives up on the private-link
// cleanup.
const DefaultCleanupGracePeriod = 10 * time.Minute

// Requeue delays. Waiting is a delay and a reason, never an error.
const (
	// invalidConfigurationRecheck: a refused configuration may become valid
	// without an event on the cluster (the conflicting namespace goes away).
	invalidConfigurationRecheck = 5 * time.Minute
	// namespaceTerminatingPoll: an earlier cluster's namespace is going away.
	namespaceTerminatingPoll = 10 * time.Second
	// objectDeletionPoll: deletion of the control plane's objects; their
	// delete events usually wake the controller first.
	objectDeletionPoll = 5 * time.Second
	// staleRequeue: a write failed because the read was outdated.
	staleRequeue = 500 * time.Millisecond
	// placementRecheck: no place had room for a new cluster's routers; a
	// deleted cluster frees one without an event on this one.
	placementRecheck = time.Minute
	// afterAbandonRequeue: finalizers were just removed; look again soon.
	afterAbandonRequeue = time.Second
	// defaultMaxConcurrentReconciles: one slow cluster never blocks the
	// others.
	defaultMaxConcurrentReconciles = 4
)

// Config is what the controller takes from the operator's options.
type Config struct {
	// PrivatePlatform is the cloud whose private connectivity the operator
	// serves: "AWS", "Azure" or "None" (empty means None).
	PrivatePlatform string
	// ControlPlaneOperatorImage is the image of the control-plane operator.
	ControlPlaneOperatorImage string
	// CleanupGracePeriod bounds the wait for a component's cleanup while
	// its cloud credentials are invalid, or were never checked (zero:
	// DefaultCleanupGracePeriod).
	CleanupGracePeriod time.Duration
	// Platforms are the platforms the operator knows: which clusters are
	// private on each, their checks, the control-plane operator's
	// credentials, private-link kinds, conditions and final sweeps. nil
	// knows none (every cluster is treated as public, and its control-plane
	// operator gets no cloud credentials).
	Platforms *platform.Registry
	// ManagementCredentials reports the operator's own cloud credentials;
	// the operator's finalizers on private-link objects are given up only
	// when they are invalid for the grace period. nil: never given up.
	ManagementCredentials platform.Credentials
	// Placer places the routers of a new cluster before its control plane
	// is made (status.azureLoadBalancerConfiguration); nil: the cloud
	// provider places them.
	Placer platform.Placer
}

func (c Config) privatePlatform() string {
	if c.PrivatePlatform == "" {
		return PrivatePlatformNone
	}
	return c.PrivatePlatform
}

func (c Config) gracePeriod() time.Duration {
	if c.CleanupGracePeriod <= 0 {
		return DefaultCleanupGracePeriod
	}
	return c.CleanupGracePeriod
}

// Reconciler reconciles HostedClusters.
//
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters/status;hostedclusters/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedcontrolplanes;awsendpointservices;azureprivatelinkservices;gcpprivateserviceconnects,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedcontrolplanes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces;serviceaccounts;secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;update;patch
type Reconciler struct {
	// Client reads (through the manager's cache) and writes.
	Client client.Client
	// APIReader reads from the API server directly (the manager's
	// GetAPIReader); nil uses Client. The status patch is computed against
	// a fresh read, so that a cache that has not yet seen the last write
	// cannot make it fail.
	APIReader client.Reader
	// Events tells of condition transitions and abandoned cleanups on
	// HostedClusters; nil tells none.
	Events *events.Recorder
	// Clock tells the time for the cleanup grace period and condition
	// transitions; nil is the real clock.
	Clock clock.PassiveClock
	// Config is the operator's configuration.
	Config Config
}

// scope is what one pass works on and decides.
type scope struct {
	hc *hcplinkv1beta1.HostedCluster
	// namespace is the control-plane namespace's name.
	namespace string
	// conditions are the status changes of this pass.
	conditions conditionChange
	// cpNamespace is written to status.controlPlaneNamespace when set.
	cpNamespace string
	// gone: the finalizer was removed (or was never there), so the object
	// may be gone and its status is not written.
	gone bool
	// hcp is the HostedControlPlane when this pass read it; its Available
	// condition mirrors the cluster's.
	hcp *hcplinkv1beta1.HostedControlPlane
	// placement is written to the Placer's status field when set.
	placement string
}

// CacheByObject restricts the manager's cache for the kinds the controller
// creates but whose other instances it must not hold in memory: only
// objects labelled app.kubernetes.io/managed-by=hcplink are cached.
func CacheByObject() map[client.Object]cache.ByObject {
	ours := labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue})
	return map[client.Object]cache.ByObject{
		&appsv1.Deployment{}:     {Label: ours},
		&corev1.Secret{}:         {Label: ours},
		&corev1.ServiceAccount{}: {Label: ours},
		&rbacv1.Role{}:           {Label: ours},
		&rbacv1.RoleBinding{}:    {Label: ours},
	}
}

// SetupWithManager registers the controller. opts may set
// SkipNameValidation or MaxConcurrentReconciles.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if opts.MaxConcurrentReconciles == 0 {
		opts.MaxConcurrentReconciles = defaultMaxConcurrentReconciles
	}
	managed := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[ManagedByLabel] == ManagedByValue })
	annotated := predicate.NewPredicateFuncs(func(o client.Object) bool {
		_, ok := o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation]
		return ok
	})
	toCluster := handler.EnqueueRequestsFromMapFunc(r.clusterForObject)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&hcplinkv1beta1.HostedCluster{}, builder.WithPredicates(specOrDeletionChanged)).
		// Spec changes of NodePools (subnet set, changed or cleared) and
		// their creation and deletion.
		Watches(&hcplinkv1beta1.NodePool{}, handler.EnqueueRequestsFromMapFunc(clusterForNodePool),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Status changes matter: credentials during deletion, and the
		// private-link conditions folded into the cluster.
		Watches(&hcplinkv1beta1.HostedControlPlane{}, toCluster).
		Watches(&corev1.Namespace{}, toCluster, builder.WithPredicates(annotated)).
		// Our objects: repaired when changed or deleted behind our back.
		Watches(&appsv1.Deployment{}, toCluster, builder.WithPredicates(managed, predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Secret{}, toCluster, builder.WithPredicates(managed)).
		Watches(&corev1.ServiceAccount{}, toCluster, builder.WithPredicates(managed)).
		Watches(&rbacv1.Role{}, toCluster, builder.WithPredicates(managed)).
		Watches(&rbacv1.RoleBinding{}, toCluster, builder.WithPredicates(managed))
	for _, p := range r.Config.Platforms.All() {
		b = b.Watches(p.Prototype, toCluster)
	}
	return b.WithOptions(opts).Complete(r)
}

// specOrDeletionChanged passes creations, deletions, spec changes and the
// start of deletion, and skips the status writes the controller makes
// itself.
var specOrDeletionChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
			!e.ObjectOld.GetDeletionTimestamp().Equal(e.ObjectNew.GetDeletionTimestamp())
	},
}

// clusterForNodePool maps a NodePool to its HostedCluster.
func clusterForNodePool(_ context.Context, o client.Object) []reconcile.Request {
	np, ok := o.(*hcplinkv1beta1.NodePool)
	if !ok || np.Spec.ClusterName == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: np.Namespace, Name: np.Spec.ClusterName}}}
}

// clusterForObject maps an object of a control-plane namespace (or the
// namespace itself) to its HostedCluster through the hcplink.io/cluster
// annotation: the object's own, else its namespace's.
func (r *Reconciler) clusterForObject(ctx context.Context, o client.Object) []reconcile.Request {
	value, ok := o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation]
	if !ok && o.GetNamespace() != "" {
		ns := &corev1.Namespace{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: o.GetNamespace()}, ns); err != nil {
			return nil
		}
		value, ok = ns.Annotations[hcplinkv1beta1.ClusterAnnotation]
	}
	if !ok {
		return nil
	}
	namespace, name, ok := hcplinkv1beta1.ParseClusterAnnotation(value)
	if !ok {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}}
}

// Reconcile brings one HostedCluster's control plane to what its spec asks
// for, or takes it down in order when the cluster is being deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, hc); err != nil {
		if apierrors.IsNotFound(err) {
			metrics.ClusterGone(req.Namespace, req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &scope{hc: hc, namespace: hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)}

	var requeue time.Duration
	var err error
	if hc.DeletionTimestamp.IsZero() {
		requeue, err = r.reconcileNormal(ctx, s)
	} else {
		requeue, err = r.reconcileDelete(ctx, s)
	}
	if !s.gone {
		if perr := r.patchStatus(ctx, s); perr != nil {
			err = errors.Join(err, perr)
		}
		if perr := r.mirrorAvailable(ctx, s); perr != nil {
			err = errors.Join(err, perr)
		}
	}
	recordAvailability(s)
	if err != nil {
		if isStale(err) {
			// Another write got in first, or the cache has not seen ours
			// yet: look again shortly, without an error.
			ctrl.LoggerFrom(ctx).V(1).Info("stale view; looking again", "error", err.Error())
			return ctrl.Result{RequeueAfter: staleRequeue}, nil
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// isStale reports whether err says a write was based on an outdated read:
// a resourceVersion conflict, or a JSON patch whose test failed (the API
// server answers that with a 422 that names no object and no field, unlike
// a validation error).
func isStale(err error) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsInvalid(err) {
		return false
	}
	d := status.Status().Details
	return d == nil || (d.Kind == "" && len(d.Causes) == 0)
}

func (r *Reconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// reconcileNormal validates, then creates or updates the control plane and
// folds the private-link conditions into the status.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (time.Duration, error) {
	log := ctrl.LoggerFrom(ctx)
	hc, gen := s.hc, s.hc.Generation
	s.conditions.removeCondition(hcplinkv1beta1.DeletingCondition, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition)

	existing, err := r.existingNamespace(ctx, s.namespace)
	if err != nil {
		return 0, err
	}
	problems := validateCluster(hc, r.Config, existing)
	s.conditions.setCondition(validConfigurationCondition(problems, gen))
	if len(problems) > 0 {
		// Nothing is created for a refused cluster, not even a finalizer.
		s.conditions.setCondition(availableCondition(availability{generation: gen}))
		s.conditions.removeCondition(r.Config.Platforms.ConditionTypes()...)
		log.V(1).Info("configuration refused", "reason", problems[0].Reason, "message", problems[0].Message)
		return invalidConfigurationRecheck, nil
	}
	s.cpNamespace = s.namespace
	if existing != nil && !existing.DeletionTimestamp.IsZero() {
		s.conditions.setCondition(availableCondition(availability{generation: gen, valid: true, earlierNamespace: s.namespace}))
		return namespaceTerminatingPoll, nil
	}

	if err := r.ensureFinalizer(ctx, hc); err != nil {
		return 0, err
	}
	if refused, err := r.placeRouters(ctx, s); err != nil || refused != nil {
		if refused != nil {
			// Nothing is made: routers made now would land where there is
			// no room.
			s.conditions.setCondition(availableCondition(availability{generation: gen, valid: true, placementRefused: refused}))
			return placementRecheck, nil
		}
		return 0, err
	}
	if err := r.ensureControlPlane(ctx, hc); err != nil {
		if apierrors.IsConflict(err) {
			return 0, err // a write raced another; the retry is immediate and nobody needs telling
		}
		s.conditions.setCondition(availableCondition(availability{generation: gen, valid: true, controlPlaneErr: err}))
		return 0, err
	}

	p := r.Config.Platforms.ForCluster(hc)
	aggregated := r.aggregatePrivateLink(ctx, s, p)
	for _, c := range aggregated {
		s.conditions.setCondition(c)
	}
	for _, t := range r.Config.Platforms.ConditionTypes() {
		if p == nil || !contains(p.ConditionTypes, t) {
			s.conditions.removeCondition(t)
		}
	}
	credentials, settings, err := r.foldControlPlaneConditions(ctx, s)
	if err != nil {
		return 0, err
	}
	available := availableCondition(availability{generation: gen, valid: true, hcpExists: true,
		privateLink: aggregated, credentials: credentials, settings: settings})
	s.conditions.setCondition(available)
	return 0, nil
}

// foldControlPlaneConditions reads the HostedControlPlane and copies the
// control-plane operator's own verdicts into the cluster — its
// ValidCloudCredentials, and its platform's check of the cluster's cloud
// settings (Platform.SettingsCondition: on Azure AzureConfigurationValid) —
// so that the true cause of a failing private path is visible where users
// look. It returns the two conditions, nil when not reported.
func (r *Reconciler) foldControlPlaneConditions(ctx context.Context, s *scope) (credentials, settings *metav1.Condition, err error) {
	verdicts := append([]string{hcplinkv1beta1.ValidCloudCredentialsCondition}, r.Config.Platforms.SettingsConditions()...)
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: s.hc.Name}, hcp); err != nil {
		if apierrors.IsNotFound(err) {
			s.conditions.removeCondition(verdicts...)
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("reading the HostedControlPlane: %w", err)
	}
	s.hcp = hcp
	for i, t := range verdicts {
		c := findCondition(hcp.Status.Conditions, t)
		if c == nil {
			s.conditions.removeCondition(t)
			continue
		}
		s.conditions.setCondition(metav1.Condition{Type: t, Status: c.Status,
			Reason: c.Reason, Message: bound(c.Message, maxConditionMessage), ObservedGeneration: s.hc.Generation})
		switch {
		case i == 0:
			credentials = c
		case settings == nil:
			settings = c
		}
	}
	return credentials, settings, nil
}

// HostedControlPlaneFieldOwner is the field manager of the conditions the
// operator writes on HostedControlPlanes.
const HostedControlPlaneFieldOwner = "hcplink-operator"

// mirrorAvailable writes the cluster's Available condition, as this pass
// decided it, onto the HostedControlPlane the pass read.
func (r *Reconciler) mirrorAvailable(ctx context.Context, s *scope) error {
	if s.hcp == nil {
		return nil
	}
	var available *metav1.Condition
	for i := range s.conditions.set {
		if s.conditions.set[i].Type == hcplinkv1beta1.AvailableCondition {
			available = &s.conditions.set[i]
		}
	}
	if available == nil {
		return nil
	}
	w := conditions.Writer{Client: r.Client, FieldOwner: HostedControlPlaneFieldOwner,
		Types: []string{hcplinkv1beta1.HostedControlPlaneAvailableCondition}, Now: r.now}
	mirrored := metav1.Condition{Type: hcplinkv1beta1.HostedControlPlaneAvailableCondition, Status: available.Status,
		Reason: available.Reason, Message: available.Message}
	if _, err := w.Apply(ctx, s.hcp, &s.hcp.Status.Conditions, mirrored); err != nil {
		return fmt.Errorf("mirroring Available onto the HostedControlPlane: %w", err)
	}
	return nil
}

// existingNamespace returns the control-plane namespace, nil when it does
// not exist (or its name is too long to exist).
func (r *Reconciler) existingNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if len(name) > 63 {
		return nil, nil
	}
	ns := &corev1.Namespace{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading namespace %s: %w", name, err)
	}
	return ns, nil
}

func (r *Reconciler) ensureFinalizer(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if controllerutil.ContainsFinalizer(hc, hcplinkv1beta1.OperatorFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(hc.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(hc, hcplinkv1beta1.OperatorFinalizer)
	if err := r.Client.Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("adding finalizer %s: %w", hcplinkv1beta1.OperatorFinalizer, err)
	}
	return nil
}

// placeRouters records where the cloud provider is to put the cluster's
// routers, before they exist: the placement recorded in status, else the
// existing control plane's (its status write may have been lost), else —
// for a cluster whose control plane does not exist yet — one the Placer
// chooses now. A cluster whose control plane was made unplaced is never
// moved. A refusal (no place has room) is returned for the condition.
func (r *Reconciler) placeRouters(ctx context.Context, s *scope) (*platform.PlacementRefused, error) {
	if r.Config.Placer == nil {
		return nil, nil
	}
	recorded := r.Config.Placer.Recorded(s.hc)
	if recorded == "" {
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: s.hc.Name}, hcp)
		switch {
		case err == nil && r.Config.Placer.InControlPlane(hcp) == "":
			return nil, nil
		case err == nil:
			recorded = r.Config.Placer.InControlPlane(hcp)
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading the HostedControlPlane: %w", err)
		}
	}
	where, err := r.Config.Placer.Place(ctx, s.hc, recorded)
	var refused *platform.PlacementRefused
	if errors.As(err, &refused) {
		return refused, nil
	}
	if err != nil {
		return nil, fmt.Errorf("placing the cluster's routers: %w", err)
	}
	s.placement = where
	r.Config.Placer.Record(s.hc, where)
	return nil, nil
}

// ensureControlPlane creates or updates the namespace, the
// HostedControlPlane and the control-plane operator.
func (r *Reconciler) ensureControlPlane(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if err := r.ensureNamespaceAndControlPlane(ctx, hc); err != nil {
		return err
	}
	return r.ensureControlPlaneOperator(ctx, hc)
}

// ensureNamespaceAndControlPlane creates or updates the namespace and the
// HostedControlPlane.
func (r *Reconciler) ensureNamespaceAndControlPlane(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if err := ensure(ctx, r.Client, desiredNamespace(hc), &corev1.Namespace{}, updateMetadataOnly[*corev1.Namespace]); err != nil {
		return err
	}
	nodePools := &hcplinkv1beta1.NodePoolList{}
	if err := r.Client.List(ctx, nodePools, client.InNamespace(hc.Namespace)); err != nil {
		return fmt.Errorf("listing NodePools: %w", err)
	}
	return ensure(ctx, r.Client, desiredHostedControlPlane(hc, nodePools.Items, r.Config.Platforms), &hcplinkv1beta1.HostedControlPlane{}, updateHostedControlPlane)
}

// ensureControlPlaneOperator creates or updates the control-plane
// operator: ServiceAccount, Role, RoleBinding, its platform's credentials
// Secrets (deleting those no longer wanted), Deployment.
func (r *Reconciler) ensureControlPlaneOperator(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if err := ensure(ctx, r.Client, desiredServiceAccount(hc, r.Config), &corev1.ServiceAccount{}, updateMetadataOnly[*corev1.ServiceAccount]); err != nil {
		return err
	}
	if err := ensure(ctx, r.Client, desiredRole(hc, r.Config.Platforms), &rbacv1.Role{}, updateRole); err != nil {
		return err
	}
	if err := ensure(ctx, r.Client, desiredRoleBinding(hc), &rbacv1.RoleBinding{}, updateRoleBinding); err != nil {
		return err
	}
	wanted := map[string]bool{}
	for _, secret := range desiredSecrets(hc, r.Config) {
		wanted[secret.Name] = true
		if err := ensure(ctx, r.Client, secret, &corev1.Secret{}, updateSecret); err != nil {
			return err
		}
	}
	for _, name := range r.Config.Platforms.SecretNames() {
		if wanted[name] {
			continue
		}
		if err := r.deleteIfOurs(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: desiredNamespace(hc).Name, Name: name}}, hc); err != nil {
			return err
		}
	}
	if err := r.recordControlPlaneOperatorCreation(ctx, hc); err != nil {
		return err
	}
	return ensure(ctx, r.Client, desiredDeployment(hc, r.Config), &appsv1.Deployment{}, updateDeployment)
}

// recordControlPlaneOperatorCreation writes
// status.controlPlaneOperatorCreationTime before the control-plane
// operator's Deployment can exist, so that a cluster without it never had
// a control-plane operator and deletion need not wait for one
// (controlPlaneOperatorMayHaveRun). Once set it is never written again.
func (r *Reconciler) recordControlPlaneOperatorCreation(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if hc.Status.ControlPlaneOperatorCreationTime != nil {
		return nil
	}
	patch := client.MergeFrom(hc.DeepCopy())
	now := metav1.NewTime(r.now())
	hc.Status.ControlPlaneOperatorCreationTime = &now
	if err := r.Client.Status().Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("recording the control-plane operator's creation: %w", err)
	}
	return nil
}

// ensure creates desired, or reads the existing object into existing and
// updates it when update (which copies what the operator owns from desired
// onto existing) reports a difference. Nothing is written when nothing
// differs.
func ensure[T client.Object](ctx context.Context, c client.Client, desired, existing T, update func(existing, desired T) bool) error {
	kind := reflect.TypeOf(desired).Elem().Name()
	key := client.ObjectKeyFromObject(desired)
	err := c.Get(ctx, key, existing)
	if apierrors.IsNotFound(err) {
		if err := c.Create(ctx, desired); err != nil {
			return fmt.Errorf("creating %s %s: %w", kind, key, err)
		}
		ctrl.LoggerFrom(ctx).Info("created", "kind", kind, "object", key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", kind, key, err)
	}
	if !update(existing, desired) {
		return nil
	}
	if err := c.Update(ctx, existing); err != nil {
		return fmt.Errorf("updating %s %s: %w", kind, key, err)
	}
	ctrl.LoggerFrom(ctx).Info("updated", "kind", kind, "object", key)
	return nil
}

// mergeMetadata puts desired's labels and annotations on existing, leaving
// others' keys alone.
func mergeMetadata(existing, desired metav1.Object) bool {
	changed := false
	merge := func(have, want map[string]string, set func(map[string]string)) {
		for k, v := range want {
			if cur, ok := have[k]; !ok || cur != v {
				if have == nil {
					have = map[string]string{}
				}
				have[k] = v
				changed = true
			}
		}
		set(have)
	}
	merge(existing.GetLabels(), desired.GetLabels(), existing.SetLabels)
	merge(existing.GetAnnotations(), desired.GetAnnotations(), existing.SetAnnotations)
	return changed
}

func updateMetadataOnly[T client.Object](existing, desired T) bool {
	return mergeMetadata(existing, desired)
}

func updateHostedControlPlane(existing, desired *hcplinkv1beta1.HostedControlPlane) bool {
	changed := mergeMetadata(existing, desired)
	for _, f := range desired.Finalizers {
		if existing.DeletionTimestamp.IsZero() && controllerutil.AddFinalizer(existing, f) {
			changed = true
		}
	}
	if !equality.Semantic.DeepEqual(existing.Spec, desired.Spec) {
		existing.Spec = desired.Spec
		changed = true
	}
	return changed
}

func updateRole(existing, desired *rbacv1.Role) bool {
	changed := mergeMetadata(existing, desired)
	if !equality.Semantic.DeepEqual(existing.Rules, desired.Rules) {
		existing.Rules = desired.Rules
		changed = true
	}
	return changed
}

func updateRoleBinding(existing, desired *rbacv1.RoleBinding) bool {
	changed := mergeMetadata(existing, desired)
	if !equality.Semantic.DeepEqual(existing.Subjects, desired.Subjects) {
		existing.Subjects = desired.Subjects
		changed = true
	}
	return changed // roleRef is immutable and always the same Role
}

func updateSecret(existing, desired *corev1.Secret) bool {
	changed := mergeMetadata(existing, desired)
	if len(existing.Data) != len(desired.Data) {
		changed = true
	}
	for k, v := range desired.Data {
		if !bytes.Equal(existing.Data[k], v) {
			changed = true
		}
	}
	if changed {
		existing.Data = desired.Data
	}
	return changed
}

// updateDeployment replaces the spec when the hash of the spec the
// operator wants differs from the one it last wrote: API-server defaults
// never count as a difference.
func updateDeployment(existing, desired *appsv1.Deployment) bool {
	specChanged := existing.Annotations[specHashAnnotation] != desired.Annotations[specHashAnnotation]
	changed := mergeMetadata(existing, desired)
	if specChanged {
		existing.Spec = desired.Spec
	}
	return changed || specChanged
}

// deleteIfOurs deletes obj when it exists and carries the cluster's
// annotation.
func (r *Reconciler) deleteIfOurs(ctx context.Context, obj client.Object, hc *hcplinkv1beta1.HostedCluster) error {
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	if obj.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] != hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name) {
		return nil
	}
	if err := r.Client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s %s: %w", reflect.TypeOf(obj).Elem().Name(), client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// aggregatePrivateLink folds the conditions of the platform's private-link
// objects; none for a public cluster (p nil).
func (r *Reconciler) aggregatePrivateLink(ctx context.Context, s *scope, p *platform.Platform) []metav1.Condition {
	if p == nil || len(p.ConditionTypes) == 0 {
		return nil
	}
	var sources []conditionSource
	objs, listErr := p.List(ctx, r.Client, s.namespace, s.hc)
	if listErr != nil {
		ctrl.LoggerFrom(ctx).Error(listErr, "listing private-link objects", "kind", p.Kind)
	}
	for _, o := range objs {
		sources = append(sources, conditionSource{name: o.Object.GetName(), conditions: o.Conditions})
	}
	out := make([]metav1.Condition, 0, len(p.ConditionTypes))
	for _, t := range p.ConditionTypes {
		out = append(out, aggregateCondition(t, p.Kind, sources, listErr, s.hc.Generation))
	}
	return out
}

// patchStatus writes this pass's condition changes and the control-plane
// namespace with a JSON patch that touches only the operator's condition
// types, and only when something changed. Whether something changed is
// decided against a fresh read, never the cache: the cache may not have
// seen the previous pass's write yet, and the controller's own status
// writes do not bring the cluster back, so a write skipped because the
// cache still showed the old value would leave the previous pass's
// condition (a conflict's "will be retried") standing until some other
// event.
func (r *Reconciler) patchStatus(ctx context.Context, s *scope) error {
	now := metav1.NewTime(r.now())
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	fresh := &hcplinkv1beta1.HostedCluster{}
	if err := reader.Get(ctx, client.ObjectKeyFromObject(s.hc), fresh); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading the cluster before patching its status: %w", err)
	}
	var placed placementWrite
	if r.Config.Placer != nil {
		placed = placementWrite{field: r.Config.Placer.StatusField(), value: s.placement, recorded: r.Config.Placer.Recorded(fresh)}
	}
	ops := statusPatch(fresh, s.conditions, s.cpNamespace, placed, now)
	if len(ops) == 0 {
		return nil
	}
	before := slices.Clone(fresh.Status.Conditions)
	data, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encoding the status patch: %w", err)
	}
	if err := r.Client.Status().Patch(ctx, fresh, client.RawPatch(types.JSONPatchType, data)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patching the status: %w", err)
	}
	for _, c := range s.conditions.set {
		was := meta.FindStatusCondition(before, c.Type)
		if events.Transition(was, c) {
			r.Events.ConditionChanged(s.hc, c)
		}
		if c.Type == hcplinkv1beta1.AvailableCondition && c.Status == metav1.ConditionTrue {
			recordBecameAvailable(s.hc, was, now.Time)
		}
	}
	return nil
}

// recordAvailability sets the cluster's readiness gauge from this pass's
// Available condition (or the status's, when the pass set none).
func recordAvailability(s *scope) {
	if s.gone {
		metrics.ClusterGone(s.hc.Namespace, s.hc.Name)
		return
	}
	available := meta.FindStatusCondition(s.hc.Status.Conditions, hcplinkv1beta1.AvailableCondition)
	for i := range s.conditions.set {
		if s.conditions.set[i].Type == hcplinkv1beta1.AvailableCondition {
			available = &s.conditions.set[i]
		}
	}
	if available == nil {
		return
	}
	metrics.ClusterAvailable(s.hc.Namespace, s.hc.Name, string(s.hc.Spec.Platform.Type), available.Status == metav1.ConditionTrue, available.Reason)
}

// recordBecameAvailable observes how long the cluster took to become
// Available: since its creation, or since Available left True.
func recordBecameAvailable(hc *hcplinkv1beta1.HostedCluster, was *metav1.Condition, now time.Time) {
	switch {
	case was == nil:
		metrics.BecameAvailable(string(hc.Spec.Platform.Type), now.Sub(hc.CreationTimestamp.Time))
	case was.Status != metav1.ConditionTrue:
		metrics.BecameAvailable(string(hc.Spec.Platform.Type), now.Sub(was.LastTransitionTime.Time))
	}
}
