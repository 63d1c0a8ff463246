package gcpprivateserviceconnect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// EndpointFieldOwner is the field manager of the endpoint controller's
// writes: its three conditions are applied server-side under this name, so
// the operator's condition on the same object is never touched.
const EndpointFieldOwner = "hcplink-gcp-endpoint"

// InfraIDAnnotation keeps the cluster's infraID on the CR: it names and
// labels the customer-side resources, and deletion must find them when the
// HostedControlPlane is gone.
const InfraIDAnnotation = "hcplink.io/infra-id"

// ownedConditions are the condition types this controller writes.
var ownedConditions = []string{
	hcplinkv1beta1.GCPEndpointAvailableCondition,
	hcplinkv1beta1.GCPDNSAvailableCondition,
	hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition,
}

// Reconciler is the control-plane operator's endpoint controller: for the
// GCPPrivateServiceConnect of its namespace it keeps, in the customer's
// project, the PSC endpoint (a reserved internal address and a forwarding
// rule targeting the operator's service attachment), the private zone
// visible to the customer's network with the api and *.apps records, and
// the ExternalName Services of a Private cluster; and removes them in
// order on deletion. It orchestrates and sets conditions; the cloud calls
// are the providers'.
type Reconciler struct {
	Client client.Client
	// Cloud signs in as the cluster's identity and gives the providers of
	// the customer's project and region.
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
	// OperationPoll is the first look at an operation of ours still
	// running; zero means operationPoll.
	OperationPoll time.Duration
	// Events tells people what was created or deleted and how the
	// conditions changed; nil tells nothing.
	Events *events.Recorder

	initOnce sync.Once
	tracker  *outcome.Tracker
	// operations are the Compute Engine operations of ours still running,
	// per CR and step: a pass starts one and a later pass waits on it. One
	// lost to a restart costs a read: the names are fixed, so the next
	// insert finds the resource and adopts it.
	operations sync.Map // opKey → gcpcloud.Operation
	// converged remembers the last Ready pass per CR (see proven.go).
	converged sync.Map // types.UID → readyProof
	// reserved remembers the CRs whose address this process reserved or
	// adopted: their address is read, not reserved again (a pass that
	// cannot make the rule must not write each time).
	reserved sync.Map // types.UID → struct{}
	// ruleTried remembers the CRs whose forwarding rule this process has
	// tried to make or read: only the first try goes without a read.
	ruleTried sync.Map // types.UID → struct{}
	// deleted remembers, per CR being deleted, the steps whose resource
	// this process found gone (delete.go).
	deleted sync.Map // opKey → struct{}
	// accepted remembers, per CR, the endpoint this process last read
	// accepted (see reported.go): while the operator reports that
	// connection ACCEPTED, drift passes do not read it.
	accepted sync.Map // types.UID → acceptedEndpoint
	// reportTrust is how long after a read the operator's report is
	// taken instead (zero: defaultReportTrust); tests shorten it.
	reportTrust time.Duration
}

type opKey struct {
	uid  types.UID
	step string
}

// Steps whose operations are kept.
const (
	opAddressReserve = "address-reserve"
	opAddressRelease = "address-release"
	opRuleInsert     = "rule-insert"
	opRuleDelete     = "rule-delete"
)

func (r *Reconciler) outcomes() *outcome.Tracker {
	r.initOnce.Do(func() {
		r.tracker = r.Tracker
		if r.tracker == nil {
			r.tracker = &outcome.Tracker{}
		}
	})
	return r.tracker
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

// kept returns the operation of step still running, if any.
func (r *Reconciler) kept(cr *hcplinkv1beta1.GCPPrivateServiceConnect, step string) (gcpcloud.Operation, bool) {
	v, ok := r.operations.Load(opKey{cr.UID, step})
	if !ok {
		return gcpcloud.Operation{}, false
	}
	return v.(gcpcloud.Operation), true
}

// await waits once on op (just started, or kept from an earlier pass) and
// reports whether it is done; one still running is kept for the next pass.
func (r *Reconciler) await(ctx context.Context, s *scope, step string, op gcpcloud.Operation) (bool, error) {
	_, done, err := r.awaitOp(ctx, s, step, op)
	return done, err
}

// awaitOp is await that also returns the operation as last read (its
// Target is the link of what it made).
func (r *Reconciler) awaitOp(ctx context.Context, s *scope, step string, op gcpcloud.Operation) (gcpcloud.Operation, bool, error) {
	key := opKey{s.cr.UID, step}
	if op.IsZero() {
		r.operations.Delete(key)
		return op, true, nil
	}
	got, err := s.cloud.Operations.Wait(ctx, op)
	if err != nil || got.Done {
		r.operations.Delete(key)
		return got, err == nil, err
	}
	r.operations.Store(key, got)
	return got, false, nil
}

// awaitKept waits once on the operation kept for step; waiting is true
// (with the outcome to return) while it still runs or when it failed.
func (r *Reconciler) awaitKept(ctx context.Context, s *scope, step, reason, message string) (outcome.Outcome, bool) {
	op, ok := r.kept(s.cr, step)
	if !ok {
		return outcome.Continue(), false
	}
	done, err := r.await(ctx, s, step, op)
	if err != nil {
		return outcome.FromError(err), true
	}
	if !done {
		return outcome.Poll(reason, message, r.poll(), mostPoll), true
	}
	return outcome.Continue(), false
}

func (r *Reconciler) forget(cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	r.outcomes().Forget(string(cr.UID))
	r.converged.Delete(cr.UID)
	r.reserved.Delete(cr.UID)
	r.ruleTried.Delete(cr.UID)
	r.accepted.Delete(cr.UID)
	for _, m := range []*sync.Map{&r.operations, &r.deleted} {
		m.Range(func(k, _ any) bool {
			if k.(opKey).uid == cr.UID {
				m.Delete(k)
			}
			return true
		})
	}
}

// SetupWithManager registers the controller: GCPPrivateServiceConnects
// (their spec, deletion and the operator's attachment URI), the
// HostedControlPlane (its spec) and the ExternalName Services it owns. Our
// own status writes do not bring a CR back; the operator's attachment URI
// and its report of the endpoint's connection do, so that they are acted
// on at once (an endpoint deleted or rejected behind our back is read and
// repaired when the operator's listing shows it, not at our next drift
// check).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return reconcilekit.EndpointController{
		Name: "gcpendpoint",
		For:  &hcplinkv1beta1.GCPPrivateServiceConnect{},
		List: &hcplinkv1beta1.GCPPrivateServiceConnectList{},
		StatusChanged: reconcilekit.StatusOf(func(o, n *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
			return o.Status.ServiceAttachmentURI != n.Status.ServiceAttachmentURI ||
				!equality.Semantic.DeepEqual(o.Status.EndpointConnection, n.Status.EndpointConnection)
		}),
		Workers: reconcilekit.WorkersOr(r.MaxConcurrentReconciles, DefaultMaxConcurrentReconciles),
	}.Setup(mgr, r)
}

// scope is what one pass works with.
type scope struct {
	cr   *hcplinkv1beta1.GCPPrivateServiceConnect
	base *hcplinkv1beta1.GCPPrivateServiceConnect // status as last written
	hcp  *hcplinkv1beta1.HostedControlPlane       // nil when gone (deletion only)
	// cloud are the providers in the customer's project and region.
	cloud Providers
	// owner names and labels the cluster's resources.
	owner gcpcloud.Owner
}

// network and subnetwork are the customer's, as relative names.
func (s *scope) network() string {
	return "projects/" + s.cr.Spec.Project + "/global/networks/" + s.cr.Spec.Network
}
func (s *scope) subnetwork() string {
	return "projects/" + s.cr.Spec.Project + "/regions/" + s.cr.Spec.Region + "/subnetworks/" + s.cr.Spec.Subnet
}

// Reconcile builds or removes the customer side of the private path.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
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
	// What deletion needs, kept before anything is created: the finalizer,
	// the infraID that names and labels the resources and the identity that
	// signs in (the HostedControlPlane may be gone by then).
	id := IdentityOf(hcp)
	if added, err := reconcilekit.EnsureFinalizer(ctx, r.Client, cr, hcplinkv1beta1.ControlPlaneFinalizer, map[string]string{
		InfraIDAnnotation: hcp.Spec.InfraID, PoolProviderAnnotation: id.PoolProvider, ServiceAccountAnnotation: id.ServiceAccount}); err != nil {
		return ctrl.Result{}, err
	} else if added {
		s.base = cr.DeepCopy()
	}
	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, time.Now()); paused {
		o := outcome.Unknown(hcplinkv1beta1.ReconciliationPausedReason,
			"Reconciliation is paused by the cluster's pausedUntil; the Private Service Connect endpoint and DNS are left as they are", remaining)
		return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)}, o)
	}
	s.owner = gcpcloud.Owner{InfraID: hcp.Spec.InfraID, Name: cr.Name}
	if s.cloud, err = r.Cloud.For(id, gcpcloud.Location{Project: cr.Spec.Project, Region: cr.Spec.Region}); err != nil {
		o := signInOutcome(err)
		return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)}, o)
	}
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	res := r.reconcileNormal(passCtx, s)
	return r.finish(ctx, s, res.conditions(s), res.overall)
}

// signInOutcome says, in the condition, that no client could be built and
// what to fix; it grows like any wait on a person.
func signInOutcome(err error) outcome.Outcome {
	var missing *MissingIdentityError
	if errors.As(err, &missing) {
		return outcome.WaitOnPerson(hcplinkv1beta1.IdentityNotConfiguredReason, missing.Message())
	}
	return outcome.FromError(fmt.Errorf("signing in to Google Cloud: %w", err))
}

// finish ends a pass through the kit's Finisher: the outcome resolved
// (repeated trouble grows), the status fields this controller owns, then
// its conditions under its field owner (the operator's condition on the
// same object is never touched), and the next look.
func (r *Reconciler) finish(ctx context.Context, s *scope, conds []metav1.Condition, o outcome.Outcome) (ctrl.Result, error) {
	f := reconcilekit.Finisher{Tracker: r.outcomes(), Type: hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: EndpointFieldOwner, Types: ownedConditions, Events: r.Events, Now: r.outcomes().Now}}
	t := reconcilekit.Target{Object: s.cr, Conditions: &s.cr.Status.Conditions, Key: string(s.cr.UID),
		Persist: func(ctx context.Context) error { return r.persist(ctx, s) }}
	return f.Finish(ctx, t, o, conds...)
}

// persist writes the status fields this controller owns (not conditions,
// not the operator's) when they changed since the last write.
func (r *Reconciler) persist(ctx context.Context, s *scope) error {
	want, have := s.cr.Status, s.base.Status
	if want.EndpointName == have.EndpointName && want.EndpointIP == have.EndpointIP &&
		want.DNSZoneName == have.DNSZoneName && slices.Equal(want.DNSRecords, have.DNSRecords) {
		return nil
	}
	var records any
	if len(want.DNSRecords) > 0 {
		records = want.DNSRecords
	}
	if err := reconcilekit.PatchStatus(ctx, r.Client, s.cr, "GCPPrivateServiceConnect", map[string]any{
		"endpointName": reconcilekit.NullIfEmpty(want.EndpointName),
		"endpointIP":   reconcilekit.NullIfEmpty(want.EndpointIP),
		"dnsZoneName":  reconcilekit.NullIfEmpty(want.DNSZoneName),
		"dnsRecords":   records,
	}); err != nil {
		return err
	}
	conds := s.base.Status.Conditions
	s.base = s.cr.DeepCopy()
	s.base.Status.Conditions = conds
	s.cr.Status.Conditions = conds
	return nil
}
