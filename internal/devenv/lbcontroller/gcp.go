package lbcontroller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/hcplink/hcplink/internal/kubepatch"
)

// GCPLoadBalancerTypeAnnotation is GKE's annotation asking for an internal
// passthrough load balancer (value "Internal")
// (https://cloud.google.com/kubernetes-engine/docs/concepts/service-load-balancer-parameters).
const (
	GCPLoadBalancerTypeAnnotation = "networking.gke.io/load-balancer-type"
	GCPInternal                   = "Internal"
	// gcpLegacyTypeAnnotation is the older spelling GKE still reads.
	gcpLegacyTypeAnnotation = "cloud.google.com/load-balancer-type"
)

// gcpMaxPorts is how many ports a forwarding rule lists; a Service with
// more gets allPorts, as GKE does
// (https://cloud.google.com/load-balancing/docs/internal#forwarding-rule-ports).
const gcpMaxPorts = 5

// GCPOptions configure the GCP stand-in.
type GCPOptions struct {
	// ComputeEndpoint is Compute Engine's base URL (cloudsim's
	// /compute/v1/); Tokens sign its calls.
	ComputeEndpoint string
	Tokens          oauth2.TokenSource
	// Transport, when set, carries the calls (call counting).
	Transport http.RoundTripper
	// Project, Region and Subnetwork say where internal forwarding rules
	// are made: the management cluster's project and region, and the
	// nodes' subnetwork (name) the rules take their address from, as GKE's
	// default.
	Project, Region, Subnetwork string
}

// GCPReconciler is the stand-in for GKE's Service load-balancer
// controller: every LoadBalancer Service gets a forwarding rule in the
// management project — INTERNAL in the nodes subnetwork when annotated
// internal, EXTERNAL with an external address otherwise, as GKE's default
// (their backend services are named, not modelled by cloudsim) — whose
// address it writes to status.loadBalancer. A Service changing kind gets a
// new rule (a rule's scheme cannot change). The rule goes with the
// Service, which the cleanup finalizer holds until Compute Engine no
// longer has it. Waiting is a requeue.
type GCPReconciler struct {
	Client   client.Client
	Options  GCPOptions
	Recorder recorder.EventRecorder

	once    sync.Once
	compute *compute.Service
	initErr error
	// inserting holds, by rule name, the operation of an insert not yet
	// seen done: a rule is hidden from reads until its operation is done,
	// and GKE waits on the operation rather than inserting again.
	inserting sync.Map
}

// SetupWithManager registers the controller for GCP Services of type
// LoadBalancer and those still holding the finalizer.
func (r *GCPReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(controllerName)
	}
	relevant := predicate.NewPredicateFuncs(func(o client.Object) bool {
		svc, ok := o.(*corev1.Service)
		return ok && (svc.Spec.Type == corev1.ServiceTypeLoadBalancer || controllerutil.ContainsFinalizer(svc, Finalizer))
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("gcp-service-load-balancers").
		For(&corev1.Service{}, builder.WithPredicates(relevant, notStatusOnly{})).
		Complete(r)
}

func (r *GCPReconciler) client(ctx context.Context) (*compute.Service, error) {
	r.once.Do(func() {
		base := r.Options.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		hc := &http.Client{Transport: &oauth2.Transport{Source: r.Options.Tokens, Base: base}}
		r.compute, r.initErr = compute.NewService(context.WithoutCancel(ctx), option.WithHTTPClient(hc), option.WithEndpoint(r.Options.ComputeEndpoint))
	})
	return r.compute, r.initErr
}

// Reconcile gives a Service its forwarding rule, or takes it away.
func (r *GCPReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	svc := &corev1.Service{}
	if err := r.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var res ctrl.Result
	var err error
	if !svc.DeletionTimestamp.IsZero() || !wantsLoadBalancer(svc) {
		res, err = r.reconcileDelete(ctx, svc)
	} else {
		res, err = r.reconcileNormal(ctx, svc)
	}
	if gcpStatus(err) == http.StatusTooManyRequests || gcpReason(err) == "rateLimitExceeded" {
		ctrl.LoggerFrom(ctx).Info("Compute Engine throttled the load-balancer controller; backing off")
		return ctrl.Result{RequeueAfter: throttledRequeue}, nil
	}
	return res, err
}

func (r *GCPReconciler) reconcileNormal(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		if err := kubepatch.Finalizers(ctx, r.Client, svc, func() { controllerutil.AddFinalizer(svc, Finalizer) }); err != nil {
			return ctrl.Result{}, err
		}
	}
	name := GCPForwardingRuleName(svc)
	if res, done, err := r.awaitInsert(ctx, svc, name); !done || err != nil {
		return res, err
	}
	rule, err := r.rule(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if rule != nil && rule.LoadBalancingScheme != gcpScheme(svc) {
		// The scheme of a rule cannot change: replace it.
		r.event(svc, corev1.EventTypeNormal, reasonRecreating, "Ensure",
			"The Service now asks for an %s load balancer; replacing forwarding rule %s (%s)", gcpScheme(svc), name, rule.LoadBalancingScheme)
		if err := r.setIP(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
		return r.deleteRule(ctx, svc, name)
	}
	if rule == nil {
		return r.insertRule(ctx, svc, name)
	}
	if err := r.setIP(ctx, svc, rule.IPAddress); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// insertRule asks for the Service's rule and comes back until Compute
// Engine shows it (its operation is done).
func (r *GCPReconciler) insertRule(ctx context.Context, svc *corev1.Service, name string) (ctrl.Result, error) {
	c, err := r.client(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	o := r.Options
	rule := &compute.ForwardingRule{
		Name:                name,
		Description:         fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, svc.Namespace+"/"+svc.Name),
		LoadBalancingScheme: gcpScheme(svc),
		IPProtocol:          "TCP",
		BackendService:      "regions/" + o.Region + "/backendServices/" + name,
	}
	if rule.LoadBalancingScheme == gcpSchemeInternal {
		rule.Subnetwork = "regions/" + o.Region + "/subnetworks/" + o.Subnetwork
	}
	rule.Ports, rule.AllPorts = gcpPorts(svc)
	op, err := c.ForwardingRules.Insert(o.Project, o.Region, rule).Context(ctx).Do()
	switch {
	case gcpStatus(err) == http.StatusConflict:
		// Made by an earlier pass; its operation is still running.
	case gcpStatus(err) == http.StatusBadRequest || gcpStatus(err) == http.StatusForbidden:
		r.event(svc, corev1.EventTypeWarning, reasonCreateFailed, "Ensure", "Creating forwarding rule %s failed: %s; retrying in %v", name, gcpErrorText(err), failedRequeue)
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("creating forwarding rule %s: %w", name, err)
	default:
		ctrl.LoggerFrom(ctx).Info("Creating forwarding rule", "forwardingRule", name)
		if op.Status != "DONE" {
			r.inserting.Store(name, op.Name)
		}
	}
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// awaitInsert looks once at the operation of the rule's insert, when one
// is running: done is false (with the requeue) while it runs. A failed
// insert is told in an Event and tried again after failedRequeue.
func (r *GCPReconciler) awaitInsert(ctx context.Context, svc *corev1.Service, name string) (res ctrl.Result, done bool, err error) {
	v, ok := r.inserting.Load(name)
	if !ok {
		return ctrl.Result{}, true, nil
	}
	c, err := r.client(ctx)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	op, err := c.RegionOperations.Get(r.Options.Project, r.Options.Region, v.(string)).Context(ctx).Do()
	switch {
	case gcpStatus(err) == http.StatusNotFound:
		r.inserting.Delete(name) // forgotten by Compute Engine: read the rule
		return ctrl.Result{}, true, nil
	case err != nil:
		return ctrl.Result{}, false, fmt.Errorf("reading the operation of forwarding rule %s: %w", name, err)
	case op.Status != "DONE":
		var started *time.Time
		if t, err := time.Parse(time.RFC3339, op.InsertTime); err == nil {
			started = &t
		}
		return ctrl.Result{RequeueAfter: pollDelay(started, time.Now())}, false, nil
	}
	r.inserting.Delete(name)
	if op.Error != nil && len(op.Error.Errors) > 0 {
		e := op.Error.Errors[0]
		r.event(svc, corev1.EventTypeWarning, reasonCreateFailed, "Ensure", "Creating forwarding rule %s failed: %s: %s; retrying in %v", name, e.Code, e.Message, failedRequeue)
		return ctrl.Result{RequeueAfter: failedRequeue}, false, nil
	}
	return ctrl.Result{}, true, nil
}

// reconcileDelete deletes the Service's rule, waits until Compute Engine
// no longer has it, then lets the Service go.
func (r *GCPReconciler) reconcileDelete(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		return ctrl.Result{}, nil
	}
	name := GCPForwardingRuleName(svc)
	rule, err := r.rule(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if rule != nil {
		return r.deleteRule(ctx, svc, name)
	}
	if svc.DeletionTimestamp.IsZero() {
		// The Service lives on as another kind: it has no load balancer now.
		if err := r.setIP(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := kubepatch.Finalizers(ctx, r.Client, svc, func() { controllerutil.RemoveFinalizer(svc, Finalizer) }); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.event(svc, corev1.EventTypeNormal, reasonDeletedLoadBalancer, "Delete", "Deleted forwarding rule %s", name)
	return ctrl.Result{}, nil
}

// deleteRule asks for the rule's deletion and comes back until Compute
// Engine no longer has it; a service attachment on it holds it.
func (r *GCPReconciler) deleteRule(ctx context.Context, svc *corev1.Service, name string) (ctrl.Result, error) {
	c, err := r.client(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	_, err = c.ForwardingRules.Delete(r.Options.Project, r.Options.Region, name).Context(ctx).Do()
	switch {
	case gcpReason(err) == "resourceInUseByAnotherResource":
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerInUse, "Delete",
			"Forwarding rule %s is still used by a service attachment; retrying", name)
		return ctrl.Result{RequeueAfter: inUseRequeue}, nil
	case err != nil && gcpStatus(err) != http.StatusNotFound:
		return ctrl.Result{}, fmt.Errorf("deleting forwarding rule %s: %w", name, err)
	}
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// rule is the forwarding rule of that name, or nil.
func (r *GCPReconciler) rule(ctx context.Context, name string) (*compute.ForwardingRule, error) {
	c, err := r.client(ctx)
	if err != nil {
		return nil, err
	}
	rule, err := c.ForwardingRules.Get(r.Options.Project, r.Options.Region, name).Context(ctx).Do()
	if gcpStatus(err) == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading forwarding rule %s: %w", name, err)
	}
	return rule, nil
}

// setIP writes status.loadBalancer: one ingress with ip, or none when ip
// is empty. It writes only when that changes.
func (r *GCPReconciler) setIP(ctx context.Context, svc *corev1.Service, ip string) error {
	if hasIP(svc, ip) || (ip == "" && len(svc.Status.LoadBalancer.Ingress) == 0) {
		return nil
	}
	var ingress []any
	if ip != "" {
		ingress = []any{map[string]any{"ip": ip}}
	}
	err := kubepatch.Merge(ctx, r.Client, svc, true, map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}})
	if err != nil {
		return fmt.Errorf("writing the load-balancer status of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	if ip != "" {
		r.event(svc, corev1.EventTypeNormal, reasonEnsuredLoadBalancer, "Ensure", "Forwarding rule %s serves %s", GCPForwardingRuleName(svc), ip)
	}
	return nil
}

func (r *GCPReconciler) event(svc *corev1.Service, eventType, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(svc, nil, eventType, reason, action, note, args...)
	}
}

// GCPForwardingRuleName names a Service's rule as GKE's legacy internal
// load balancers are named: "a" and the Service's UID without dashes, cut
// to 32 characters. It is stable for a Service and differs for a Service
// of the same name made again.
func GCPForwardingRuleName(svc *corev1.Service) string {
	name := "a" + strings.ReplaceAll(string(svc.UID), "-", "")
	return name[:min(len(name), 32)]
}

// isGCP reports whether a Service names GKE's load-balancer type (an AWS
// devenv leaves it pending; in a GCP devenv every Service is GKE's).
func isGCP(svc *corev1.Service) bool {
	_, a := svc.Annotations[GCPLoadBalancerTypeAnnotation]
	_, b := svc.Annotations[gcpLegacyTypeAnnotation]
	return a || b
}

// wantsGCPInternal reads the type annotation as GKE does: "Internal"
// under either spelling.
func wantsGCPInternal(svc *corev1.Service) bool {
	return svc.Annotations[GCPLoadBalancerTypeAnnotation] == GCPInternal || svc.Annotations[gcpLegacyTypeAnnotation] == GCPInternal
}

// Schemes of a forwarding rule.
const (
	gcpSchemeInternal = "INTERNAL"
	gcpSchemeExternal = "EXTERNAL"
)

// gcpScheme is the scheme of the rule a Service asks for: INTERNAL when
// annotated internal, else EXTERNAL (GKE's default).
func gcpScheme(svc *corev1.Service) string {
	if wantsGCPInternal(svc) {
		return gcpSchemeInternal
	}
	return gcpSchemeExternal
}

// gcpPorts are the rule's ports: the Service's, or all ports when it has
// more than a rule lists.
func gcpPorts(svc *corev1.Service) ([]string, bool) {
	if len(svc.Spec.Ports) > gcpMaxPorts {
		return nil, true
	}
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, strconv.Itoa(int(p.Port)))
	}
	return ports, false
}

func gcpStatus(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

func gcpReason(err error) string {
	var ge *googleapi.Error
	if errors.As(err, &ge) && len(ge.Errors) > 0 {
		return ge.Errors[0].Reason
	}
	return ""
}

// gcpErrorText is a Google error as its reason and message, without the
// request dump.
func gcpErrorText(err error) string {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return gcpReason(err) + ": " + ge.Message
	}
	return err.Error()
}
