// Package gcpprivateserviceconnect is the management operator's
// GCPPrivateServiceConnect controller. For each GCPPrivateServiceConnect
// of a private GCP cluster it
//
//   - waits for spec.loadBalancerIP (the control-plane operator reports the
//     private router's internal load balancer address), then finds the
//     INTERNAL forwarding rule holding it in this management cluster's
//     network and region only (status.forwardingRuleName);
//   - takes the NAT subnetwork spec.natSubnet names, or a free one of the
//     management network's Private Service Connect subnetworks: GCP lets a
//     NAT subnetwork serve one service attachment, so the fleet shares the
//     pool one subnetwork per cluster, and an empty pool is a condition
//     saying what to add (status.natSubnets);
//   - creates the service attachment (ACCEPT_MANUAL, the cluster's project
//     and its additionalAllowedProjects on the accept list), named and
//     marked for the cluster and this management cluster, or adopts the one
//     of that name marked so (created before a lost status write);
//     publishes its name and URI;
//   - puts the accept list back whenever it differs: a change of the
//     HostedCluster reaches the attachment in the pass its watch starts, an
//     edit behind hcplink's back at the next drift check (one read);
//   - rejects the projects of pending connections that are not on the
//     accept list, and says so in an Event;
//   - on deletion waits for the control-plane operator's cleanup, rejects
//     the foreign connections left, deletes the attachment, then drops its
//     finalizer; an attachment of another management cluster is never
//     changed or deleted.
//
// Every change answers a Compute Engine operation: the controller keeps it
// and waits on it on the next pass (Google's wait holds the call until it
// is done), never on a fixed sleep. It writes one condition,
// GCPServiceAttachmentAvailable, under its own field manager; the
// control-plane operator writes the other three under its own.
package gcpprivateserviceconnect

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ControllerName names the controller (logs, metrics).
const ControllerName = "gcpprivateserviceconnect"

// FieldOwner is the server-side-apply field manager of the condition this
// controller owns; the control-plane operator applies the others under its
// own, so neither clobbers the other.
const FieldOwner = "hcplink-operator-gcpprivateserviceconnect"

// ownedConditions are the condition types this controller writes.
var ownedConditions = []string{hcplinkv1beta1.GCPServiceAttachmentAvailableCondition}

const (
	// DefaultDriftInterval: how often a healthy attachment is read and
	// compared (the platform's default, and its reason, in intervals).
	DefaultDriftInterval = intervals.GCPDrift
	// defaultMaxConcurrentReconciles: one slow or throttled cluster never
	// blocks the others.
	defaultMaxConcurrentReconciles = 4
)

// Cloud is every management-side Google Cloud call the controller makes:
// the providers of internal/cloud/gcp, scoped to this management cluster's
// project, region and network.
type Cloud = gcpcloud.ManagementProviders

// Reconciler reconciles GCPPrivateServiceConnects.
//
// +kubebuilder:rbac:groups=hcplink.io,resources=gcpprivateserviceconnects,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=gcpprivateserviceconnects/status;gcpprivateserviceconnects/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
type Reconciler struct {
	// Client reads (through the manager's cache) and writes.
	Client client.Client
	// Cloud makes every Google Cloud call, in the management project.
	Cloud Cloud
	// Network and Region name the management network and its region in
	// condition messages (the providers are scoped to them already).
	Network, Region string
	// NATSubnets, when set, are the only Private Service Connect
	// subnetworks of the management network the fleet may take; empty:
	// every one.
	NATSubnets []string
	// ManagementClusterID names this management cluster in the marker of
	// what it creates; an attachment marked for another is never adopted,
	// changed or deleted.
	ManagementClusterID string
	// DriftInterval is how often a healthy attachment is checked (zero:
	// DefaultDriftInterval), jittered by ±15 %.
	DriftInterval time.Duration
	// Now tells the time; nil is the wall clock.
	Now func() time.Time
	// Tracker grows the delays of repeated trouble per object; nil is a
	// private one.
	Tracker *outcome.Tracker
	// Events tells people what was created, adopted, rejected or deleted
	// and how the condition changed; nil tells nothing.
	Events *events.Recorder

	once sync.Once
	// rules remembers each object's forwarding rule (by UID) once found,
	// so that a pass does not list the rules again while the address stays.
	rules sync.Map
	// pending holds, by UID, the Compute Engine operation a pass started
	// and the next waits on.
	pending sync.Map
	// created remembers, by UID, that this process's insert was answered:
	// the attachment's name when it started creating it (finding it
	// afterwards is not told as an adoption), "" when the insert found
	// ours already there; either way the next pass reads it.
	created sync.Map
	// fresh remembers, by UID, the attachment this process started
	// creating and with what, so that once made it is recorded without a
	// read (freshlyMade).
	fresh sync.Map
	// attachments is the fleet's shared listing of this management
	// cluster's attachments, for drift checks.
	attachments attachmentCache
	// claims reserves NAT subnetworks between choosing one and the
	// attachment's creation being visible, so that two clusters reconciled
	// at once never pick the same.
	claims natClaims
	// natSubnets is the NAT subnetworks' listing shared by the attachments
	// created at about the same time.
	natSubnets natListing
	// regionAttachments is the listing of the region's attachments shared
	// by the attachments created at about the same time: which NAT
	// subnetworks are in use.
	regionAttachments regionAttachmentListing
	// routerRules is the internal forwarding rules' listing shared by the
	// routers found at about the same time.
	routerRules ruleListing
}

func (r *Reconciler) init() {
	r.once.Do(func() {
		if r.Now == nil {
			r.Now = time.Now
		}
		if r.DriftInterval <= 0 {
			r.DriftInterval = DefaultDriftInterval
		}
		if r.Tracker == nil {
			r.Tracker = &outcome.Tracker{Now: r.Now}
		}
	})
}

// registration is how the controller is registered: the kit's service
// controller, brought back by a change of the cluster's GCP platform
// (additionalAllowedProjects reach the accept list in the pass it starts).
var registration = reconcilekit.ServiceController{
	Name:     ControllerName,
	Kind:     "GCPPrivateServiceConnect",
	For:      &hcplinkv1beta1.GCPPrivateServiceConnect{},
	List:     &hcplinkv1beta1.GCPPrivateServiceConnectList{},
	Platform: func(hc *hcplinkv1beta1.HostedCluster) any { return hc.Spec.Platform.GCP },
	Workers:  defaultMaxConcurrentReconciles,
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	r.init()
	return registration.Setup(mgr, opts, r)
}

// scope is what one pass works on: the object, its cluster, and the status
// fields this controller owns as the pass finds them (written once, at the
// end, if they changed).
type scope struct {
	cr     *hcplinkv1beta1.GCPPrivateServiceConnect
	hc     *hcplinkv1beta1.HostedCluster
	status ownedStatus
	// rule is the router's forwarding rule, once found.
	rule *ruleRef
}

// ownedStatus are the status fields this controller writes.
type ownedStatus struct {
	ForwardingRuleName    string
	NATSubnets            []string
	ServiceAttachmentName string
	ServiceAttachmentURI  string
	// EndpointConnection is the cluster's endpoint's connection as the
	// attachment reports it (endpoint_connection.go).
	EndpointConnection *hcplinkv1beta1.GCPEndpointConnection
}

func ownedStatusOf(cr *hcplinkv1beta1.GCPPrivateServiceConnect) ownedStatus {
	st := cr.Status
	return ownedStatus{ForwardingRuleName: st.ForwardingRuleName, NATSubnets: slices.Clone(st.NATSubnets),
		ServiceAttachmentName: st.ServiceAttachmentName, ServiceAttachmentURI: st.ServiceAttachmentURI,
		EndpointConnection: st.EndpointConnection.DeepCopy()}
}

func (s ownedStatus) equal(o ownedStatus) bool {
	return s.ForwardingRuleName == o.ForwardingRuleName && slices.Equal(s.NATSubnets, o.NATSubnets) &&
		s.ServiceAttachmentName == o.ServiceAttachmentName && s.ServiceAttachmentURI == o.ServiceAttachmentURI &&
		equality.Semantic.DeepEqual(s.EndpointConnection, o.EndpointConnection)
}

// Reconcile publishes one GCPPrivateServiceConnect's router as a service
// attachment, or removes it when the object is deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.init()
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	start := registration.Start(ctx, r.Client, req.NamespacedName, cr, Served, r.Now())
	ctx = start.Ctx
	s := &scope{cr: cr, hc: start.HostedCluster, status: ownedStatusOf(cr)}
	switch start.Step {
	case reconcilekit.StepDelete:
		return r.reconcileDelete(ctx, s)
	case reconcilekit.StepClusterMissing:
		return r.finish(ctx, s, reconcilekit.ClusterMissing())
	case reconcilekit.StepReconcile:
		return r.finish(ctx, s, r.reconcileNormal(ctx, s))
	}
	return start.Result, start.Err
}

// Served reports whether the operator publishes a service attachment for
// the cluster: a GCP cluster whose endpoint access is PublicAndPrivate or
// Private.
func Served(hc *hcplinkv1beta1.HostedCluster) bool {
	return hc.Spec.Platform.Type == hcplinkv1beta1.GCPPlatform && hc.Spec.Platform.IsPrivate()
}

// reconcileNormal runs the phases in order — the operation a former pass
// started, the forwarding rule, the attachment — and returns the outcome
// of the condition.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) outcome.Outcome {
	if o := r.waitPending(ctx, s); !o.Done() {
		return o
	}
	if o := r.ensureRule(ctx, s); !o.Done() {
		return o
	}
	return r.ensureAttachment(ctx, s)
}

// finish ends a pass through the shared kit: the outcome resolved (delays
// of repeated trouble grow), the owned status fields, then the condition,
// and when to look again. A conflict (another writer was first) is looked
// at again in a second.
func (r *Reconciler) finish(ctx context.Context, s *scope, o outcome.Outcome) (ctrl.Result, error) {
	f := reconcilekit.Finisher{Tracker: r.Tracker, Type: hcplinkv1beta1.GCPServiceAttachmentAvailableCondition,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Types: ownedConditions, Now: r.Now, Events: r.Events}}
	t := reconcilekit.Target{Object: s.cr, Conditions: &s.cr.Status.Conditions, Key: string(s.cr.UID),
		Persist: func(ctx context.Context) error { return r.writeStatus(ctx, s) }}
	res, err := f.Finish(ctx, t, o)
	if apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	if err == nil && o.Status != metav1.ConditionTrue {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting", "reason", o.Reason, "message", o.Message, "requeueAfter", res.RequeueAfter)
	}
	return res, err
}

// writeStatus writes the owned status fields when the pass changed them
// (an empty one is removed).
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) error {
	if s.status.equal(ownedStatusOf(s.cr)) {
		return nil
	}
	orNil := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	var nats any
	if len(s.status.NATSubnets) > 0 {
		nats = s.status.NATSubnets
	}
	fields := map[string]any{
		"forwardingRuleName":    orNil(s.status.ForwardingRuleName),
		"natSubnets":            nats,
		"serviceAttachmentName": orNil(s.status.ServiceAttachmentName),
		"serviceAttachmentURI":  orNil(s.status.ServiceAttachmentURI),
		"endpointConnection":    connectionFields(s.status.EndpointConnection),
	}
	if err := kubepatch.Merge(ctx, r.Client, s.cr, true, map[string]any{"status": fields}); err != nil {
		return fmt.Errorf("writing the service attachment status: %w", err)
	}
	return nil
}
