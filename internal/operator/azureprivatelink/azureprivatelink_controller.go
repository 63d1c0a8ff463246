// Package azureprivatelink is the management operator's
// AzurePrivateLinkService controller. For each AzurePrivateLinkService of
// a cluster whose Azure topology is not Public it
//
//   - waits for spec.loadBalancerIP (the control-plane operator reports
//     the private router's internal load balancer address), then finds
//     the internal load balancer frontend with that address among this
//     management cluster's load balancers only (its resource group and,
//     when configured, VNet; status.internalLoadBalancerID, condition
//     AzureInternalLoadBalancerAvailable);
//   - takes the NAT subnet spec.natSubnetID names, or one of the NAT
//     subnets this management cluster's services share in the load
//     balancer's VNet (hcplink-nat-<management cluster>-<n>, made in its
//     free address space by the first cluster that needs it, another when
//     one is full), recorded in status.natSubnetID before it is made (the
//     records are what make it hcplink's, to use and to delete with its
//     last user);
//   - creates the Private Link Service pls-<clusterID> in front of that
//     frontend, in the load balancer's region, visible to and
//     auto-approving the cluster's subscription and its
//     additionalAllowedSubscriptions, or adopts the one of that name
//     tagged for the cluster and this management cluster (created before a
//     lost status write); publishes its ID and alias (condition
//     AzurePLSCreated); a load balancer already carrying Azure's limit of
//     services is a condition saying so;
//   - approves a Pending connection from an allowed subscription, rejects
//     one from any other, and writes status.privateEndpointConnectionState
//     for the control-plane operator's endpoint;
//   - checks it for drift (frontend, NAT subnet, provisioning state,
//     subscriptions, our tags) every drift interval, from one listing of
//     the resource group's services shared by every object
//     (ServiceCache), and at once when the HostedCluster changes, and puts
//     it back; a service deleted behind hcplink's back is created again (a
//     new alias, which makes the control-plane operator replace its
//     Private Endpoint);
//   - on deletion waits for the control-plane operator's cleanup, rejects
//     and removes the remaining connections, deletes the service, then the
//     shared NAT subnet when no other cluster uses it.
//
// It writes two conditions under one field manager; the control-plane
// operator writes the other three under its own. Every Azure call goes
// through Cloud; none blocks a pass beyond a short per-call timeout.
package azureprivatelink

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ControllerName names the controller (logs, metrics).
const ControllerName = "azureprivatelink"

// FieldOwner is the server-side-apply field manager of the two conditions
// this controller owns; the control-plane operator applies the other three
// under its own, so neither clobbers the other.
const FieldOwner = "hcplink-operator-azureprivatelink"

// ownedConditions are the condition types this controller writes.
var ownedConditions = []string{
	hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition,
	hcplinkv1beta1.AzurePLSCreatedCondition,
}

const (
	// DefaultDriftInterval: how often a healthy service is compared with
	// Azure (the platform's default, shared with the control-plane operator).
	DefaultDriftInterval = intervals.AzureDrift
	// defaultMaxConcurrentReconciles: one slow or throttled cluster never
	// blocks the others.
	defaultMaxConcurrentReconciles = 4
)

// Reconciler reconciles AzurePrivateLinkServices.
//
// +kubebuilder:rbac:groups=hcplink.io,resources=azureprivatelinkservices,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=azureprivatelinkservices/status;azureprivatelinkservices/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
type Reconciler struct {
	// Client reads (through the manager's cache) and writes.
	Client client.Client
	// Cloud makes every Azure call, in the management subscription.
	Cloud *Cloud
	// ManagementClusterID names this management cluster on the resources
	// it creates (tag hcplink.io/management-cluster); a service tagged for
	// another is never adopted, changed or deleted.
	ManagementClusterID string
	// DriftInterval is how often a healthy service is checked (zero:
	// DefaultDriftInterval), jittered by ±15 %.
	DriftInterval time.Duration
	// Now tells the time; nil is the wall clock.
	Now func() time.Time
	// Tracker grows the delays of repeated trouble per object; nil is a
	// private one.
	Tracker *outcome.Tracker
	// Events tells people what was created, adopted or deleted and how the
	// conditions changed; nil tells nothing.
	Events *events.Recorder
	// Services batches the reads of Private Link Services (one listing per
	// resource group per drift interval for every object); nil builds one
	// on Cloud.
	Services *ServiceCache

	once sync.Once
	// frontends remembers each object's frontend (by UID) once found, so
	// that a pass does not list the load balancers again.
	frontends sync.Map
	// loadBalancers is the one listing of the load balancers every
	// object's frontend is found in.
	loadBalancers frontendCache
	// NATSubnetPrefixLength is the size of the shared NAT subnets (zero:
	// azurecloud.SharedNATSubnetPrefixLength).
	NATSubnetPrefixLength int

	// nat is what the operator knows of the shared NAT subnets
	// (natsubnet_shared.go).
	nat natPool
	// natSubnets remembers, by UID, an object's own NAT subnet (made
	// before subnets were shared) once seen provisioned, or the token of
	// its creation while it runs.
	natSubnets sync.Map
	// vnetTurns lets the NAT subnets of one VNet be created one at a time,
	// as Azure changes a VNet's subnets (natsubnet_queue.go); turnFreed
	// wakes the objects that waited when a turn ends.
	vnetTurns vnetTurns
	turnFreed chan event.GenericEvent
}

// releaseVNetTurn ends uid's turn in its VNet and wakes the objects that
// waited for it (when the controller runs in a manager).
func (r *Reconciler) releaseVNetTurn(uid types.UID) {
	for _, key := range r.vnetTurns.release(uid) {
		if r.turnFreed == nil {
			continue
		}
		obj := &hcplinkv1beta1.AzurePrivateLinkService{}
		obj.Namespace, obj.Name = key.Namespace, key.Name
		select {
		case r.turnFreed <- event.GenericEvent{Object: obj}:
		default: // full: the waiter's recheck comes anyway
		}
	}
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
		if r.Services == nil {
			// A listing serves a little less than the shortest jittered
			// interval (-15 %), so that each object's drift check sees a
			// listing made since its last one: drift is repaired within
			// one interval.
			r.Services = &ServiceCache{Cloud: r.Cloud, Now: r.Now, TTL: r.DriftInterval * 4 / 5}
		}
	})
}

// registration is how the controller is registered: the kit's service
// controller, brought back by a change of the cluster's Azure platform
// (additionalAllowedSubscriptions above all), and by the NAT subnet
// queue's turn (turnFreed).
var registration = reconcilekit.ServiceController{
	Name:     ControllerName,
	Kind:     "AzurePrivateLinkService",
	For:      &hcplinkv1beta1.AzurePrivateLinkService{},
	List:     &hcplinkv1beta1.AzurePrivateLinkServiceList{},
	Platform: func(hc *hcplinkv1beta1.HostedCluster) any { return hc.Spec.Platform.Azure },
	Workers:  defaultMaxConcurrentReconciles,
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	r.init()
	r.turnFreed = make(chan event.GenericEvent, 1024)
	reg := registration
	reg.Watching = func(b *builder.Builder) *builder.Builder {
		return b.WatchesRawSource(source.Channel(r.turnFreed, &handler.EnqueueRequestForObject{}))
	}
	return reg.Setup(mgr, opts, r)
}

// scope is what one pass works on: the object, its cluster, and the
// status fields this controller owns as the pass finds them (written once,
// at the end, if they changed).
type scope struct {
	cr       *hcplinkv1beta1.AzurePrivateLinkService
	hc       *hcplinkv1beta1.HostedCluster
	status   ownedStatus
	frontend *Frontend
}

// ownedStatus are the status fields this controller writes.
type ownedStatus struct {
	InternalLoadBalancerID  string `json:"internalLoadBalancerID"`
	NATSubnetID             string `json:"natSubnetID"`
	PrivateLinkServiceID    string `json:"privateLinkServiceID"`
	PrivateLinkServiceAlias string `json:"privateLinkServiceAlias"`
	// PrivateEndpointConnectionState is the state of the service's
	// connection from status.privateEndpointID (the control-plane
	// operator's endpoint), read from the service.
	PrivateEndpointConnectionState string `json:"privateEndpointConnectionState"`
}

func ownedStatusOf(cr *hcplinkv1beta1.AzurePrivateLinkService) ownedStatus {
	st := cr.Status
	return ownedStatus{InternalLoadBalancerID: st.InternalLoadBalancerID, NATSubnetID: st.NATSubnetID,
		PrivateLinkServiceID: st.PrivateLinkServiceID, PrivateLinkServiceAlias: st.PrivateLinkServiceAlias,
		PrivateEndpointConnectionState: st.PrivateEndpointConnectionState}
}

// Reconcile publishes one AzurePrivateLinkService's load balancer as a
// Private Link Service, or removes it when the object is deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.init()
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	start := registration.Start(ctx, r.Client, req.NamespacedName, cr, served, r.Now())
	ctx = start.Ctx
	s := &scope{cr: cr, hc: start.HostedCluster, status: ownedStatusOf(cr)}
	switch start.Step {
	case reconcilekit.StepDelete:
		return r.reconcileDelete(ctx, s)
	case reconcilekit.StepClusterMissing:
		return r.finish(ctx, s, outcome.Continue(), reconcilekit.ClusterMissing())
	case reconcilekit.StepReconcile:
		lb, pls := r.reconcileNormal(ctx, s)
		return r.finish(ctx, s, lb, pls)
	}
	return start.Result, start.Err
}

// served: Azure clusters with a private configuration (the spec gates the
// private controllers on it, not on "is private" alone).
func served(hc *hcplinkv1beta1.HostedCluster) bool {
	p := hc.Spec.Platform
	return p.Type == hcplinkv1beta1.AzurePlatform && p.Azure != nil && p.Azure.Topology.IsPrivate() && p.Azure.Private != nil
}

// reconcileNormal runs the phases in order — load balancer, NAT subnet,
// Private Link Service — and returns the outcome of each condition: the
// first phase that is not done decides both when it is the load
// balancer's.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (lb, pls outcome.Outcome) {
	lb = r.ensureFrontend(ctx, s)
	if !lb.Done() {
		return lb, lb
	}
	lb = outcome.Ready(hcplinkv1beta1.AzureSuccessReason, "Internal load balancer "+lastSegment(s.frontend.LoadBalancerID)+
		" has a frontend with address "+s.cr.Spec.LoadBalancerIP+".", r.DriftInterval)
	if o := r.ensureNATSubnet(ctx, s); !o.Done() {
		return lb, o
	}
	return lb, r.ensureService(ctx, s)
}

// finish ends a pass through the shared kit. The pass has two outcomes:
// the Private Link Service's (the object's own trouble key) and the load
// balancer's, resolved here under a key of its own unless it says the same
// (then it is the PLS's). The status fields are written first, and a
// failure to write them still lets the conditions through; each outcome
// with a reason sets its condition; the first error (PLS, load balancer,
// status, conditions) decides, a conflict looked at again in a second;
// else the sooner of the two delays.
func (r *Reconciler) finish(ctx context.Context, s *scope, lb, pls outcome.Outcome) (ctrl.Result, error) {
	key := string(s.cr.UID)
	var lbCond metav1.Condition
	other := outcome.Outcome{}
	if lb.Reason != pls.Reason || lb.Message != pls.Message {
		lb = r.Tracker.Resolve(key+"/lb", lb)
		lbCond, other = lb.Condition(hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition), lb
	} else {
		// the kit gives it the PLS's resolved message, and its delay is the PLS's
		lbCond = pls.Condition(hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition)
	}
	if err := r.writeStatus(ctx, s); err != nil && other.Err == nil {
		other.Err = err
	}
	var conds []metav1.Condition
	if lb.Reason != "" {
		conds = append(conds, lbCond)
	}
	if pls.Reason != "" {
		conds = append(conds, pls.Condition(hcplinkv1beta1.AzurePLSCreatedCondition))
	}
	f := reconcilekit.Finisher{Tracker: r.Tracker, ConflictAfter: time.Second,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Types: ownedConditions, Now: r.Now, Events: r.Events}}
	res, err := f.Finish(ctx, reconcilekit.Target{Object: s.cr, Conditions: &s.cr.Status.Conditions, Key: key, Other: other}, pls, conds...)
	if err == nil && pls.Status != metav1.ConditionTrue && pls.Reason != "" {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting", "reason", pls.Reason, "message", pls.Message, "requeueAfter", res.RequeueAfter)
	}
	return res, err
}

// writeStatus writes the owned status fields when the pass changed them
// ("" removes one).
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) error {
	if s.status == ownedStatusOf(s.cr) {
		return nil
	}
	fields := map[string]any{}
	raw, _ := json.Marshal(s.status)
	_ = json.Unmarshal(raw, &fields)
	for k, v := range fields {
		if v == "" {
			fields[k] = nil
		}
	}
	if err := kubepatch.Merge(ctx, r.Client, s.cr, true, map[string]any{"status": fields}); err != nil {
		return fmt.Errorf("writing the Private Link Service status: %w", err)
	}
	return nil
}

// lastSegment is the name at the end of a resource ID.
func lastSegment(id string) string {
	return id[strings.LastIndex(id, "/")+1:]
}
