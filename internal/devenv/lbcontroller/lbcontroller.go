// Package lbcontroller is devenv's stand-in for the cloud provider's
// Service load-balancer controller. For every AWS Service of type
// LoadBalancer it creates a network load balancer in cloudsim through the
// real ELBv2 SDK, in the management VPC's subnets for the scheme the
// Service asks for, waits for it to become active, and writes its DNS name
// to status.loadBalancer, as the in-tree AWS provider and the AWS Load
// Balancer Controller do. It deletes the NLB when the Service goes away or
// stops being a LoadBalancer, holding the Service with the cleanup
// finalizer until the NLB is gone. Azure Services are AzureReconciler's, in
// an Azure devenv (azure.go), and GKE's GCPReconciler's, in a GCP devenv
// (gcp.go); in an AWS devenv they get an Event saying so and stay pending.
package lbcontroller

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
)

// Finalizer is the finalizer the Kubernetes service controller puts on a
// LoadBalancer Service until its load balancer is deleted.
const Finalizer = "service.kubernetes.io/load-balancer-cleanup"

// Tags on every NLB this controller creates.
const (
	// ServiceNameTagKey holds "<namespace>/<name>" of the Service.
	ServiceNameTagKey = "kubernetes.io/service-name"
	// ClusterTagKey names the management cluster, as the AWS Load Balancer
	// Controller tags its load balancers.
	ClusterTagKey   = "elbv2.k8s.aws/cluster"
	ClusterTagValue = "devenv"
)

// controllerName is the controller's name and the reporter of its Events.
const controllerName = "devenv-service-lb-controller"

// Event reasons.
const (
	reasonNotEmulated         = "LoadBalancerNotEmulated"
	reasonNoSubnets           = "NoSubnetsForScheme"
	reasonEnsuredLoadBalancer = "EnsuredLoadBalancer"
	reasonDeletedLoadBalancer = "DeletedLoadBalancer"
	reasonLoadBalancerFailed  = "LoadBalancerFailed"
	reasonLoadBalancerInUse   = "LoadBalancerInUse"
	reasonRecreating          = "RecreatingLoadBalancer"
	reasonCreateFailed        = "CreateLoadBalancerFailed"
	reasonNoConfiguration     = "NoEligibleLoadBalancerConfiguration"
)

// Requeue delays. Waiting is a requeue, never a sleep.
const (
	// minPoll and maxPoll bound the wait between checks of a provisioning
	// or deleting NLB: cloudsim's fast delays are a few hundred
	// milliseconds, AWS's (and cloudsim's realistic ones) minutes, so the
	// wait grows with the NLB's age.
	minPoll = 200 * time.Millisecond
	maxPoll = 10 * time.Second
	// throttledRequeue is the base wait after AWS throttled us; up to as
	// much again is added at random so that retries spread out.
	throttledRequeue = 2 * time.Second
	// inUseRequeue: an NLB with an endpoint service cannot be deleted until
	// the operator deletes that service.
	inUseRequeue = 5 * time.Second
	// failedRequeue: a failed NLB is a cloud-side problem worth a slow retry.
	failedRequeue = time.Minute
)

// Options configure the stand-in.
type Options struct {
	// AWS reaches the management account (cloudsim).
	AWS aws.Config
	// Subnets are the management VPC's subnets by scheme ("internal",
	// "internet-facing"), at most one per availability zone.
	Subnets map[string][]string
}

// Reconciler provisions NLBs for LoadBalancer Services.
type Reconciler struct {
	Client  client.Client
	Options Options
	// Recorder records Events on Services; SetupWithManager sets it when
	// nil. Without one, no Events are recorded.
	Recorder recorder.EventRecorder

	elbOnce sync.Once
	elb     *elbv2.Client
}

// SetupWithManager registers the controller. It watches Services of type
// LoadBalancer and those still holding its finalizer, in all namespaces,
// and ignores updates that only touch status.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
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
		Named("service-load-balancers").
		For(&corev1.Service{}, builder.WithPredicates(relevant, notStatusOnly{})).
		Complete(r)
}

// notStatusOnly drops updates that change nothing but status (and the
// bookkeeping that comes with every write): this controller writes the
// status itself.
type notStatusOnly struct{ predicate.Funcs }

func (notStatusOnly) Update(e event.UpdateEvent) bool {
	oldSvc, ok1 := e.ObjectOld.(*corev1.Service)
	newSvc, ok2 := e.ObjectNew.(*corev1.Service)
	if !ok1 || !ok2 {
		return true
	}
	strip := func(s *corev1.Service) *corev1.Service {
		c := s.DeepCopy()
		c.Status = corev1.ServiceStatus{}
		c.ResourceVersion, c.ManagedFields = "", nil
		return c
	}
	return !reflect.DeepEqual(strip(oldSvc), strip(newSvc))
}

func (notStatusOnly) Create(event.CreateEvent) bool   { return true }
func (notStatusOnly) Delete(event.DeleteEvent) bool   { return true }
func (notStatusOnly) Generic(event.GenericEvent) bool { return true }

func (r *Reconciler) client() *elbv2.Client {
	r.elbOnce.Do(func() {
		cfg := r.Options.AWS.Copy()
		awshttp.Apply(&cfg)
		r.elb = elbv2.NewFromConfig(cfg)
	})
	return r.elb
}

// Reconcile gives a Service its NLB, or takes it away.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	svc := &corev1.Service{}
	if err := r.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var res ctrl.Result
	var err error
	switch {
	case !svc.DeletionTimestamp.IsZero() || !wantsLoadBalancer(svc):
		res, err = r.reconcileDelete(ctx, svc)
	case isAzure(svc):
		r.event(svc, corev1.EventTypeNormal, reasonNotEmulated, "Emulate",
			"this devenv is on AWS; Azure load balancers are emulated only in an Azure devenv (devenv.Options.Platform), so the Service stays pending")
		return ctrl.Result{}, nil
	case isGCP(svc):
		r.event(svc, corev1.EventTypeNormal, reasonNotEmulated, "Emulate",
			"this devenv is on AWS; GKE's load balancers are emulated only in a GCP devenv (devenv.Options.Platform), so the Service stays pending")
		return ctrl.Result{}, nil
	default:
		res, err = r.reconcileNormal(ctx, svc)
	}
	if awscloud.IsThrottling(err) {
		ctrl.LoggerFrom(ctx).Info("AWS throttled the load-balancer controller; backing off", "code", awscloud.ErrorCode(err))
		return ctrl.Result{RequeueAfter: throttledRequeue + time.Duration(rand.Int64N(int64(throttledRequeue)))}, nil
	}
	return res, err
}

func (r *Reconciler) reconcileNormal(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	scheme := schemeOf(svc)
	subnets := r.Options.Subnets[scheme]
	if len(subnets) == 0 {
		r.event(svc, corev1.EventTypeWarning, reasonNoSubnets, "Ensure",
			"devenv has no management subnets for %s load balancers; the Service stays pending", scheme)
		return ctrl.Result{}, nil
	}
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		orig := svc.DeepCopy()
		controllerutil.AddFinalizer(svc, Finalizer)
		if err := r.Client.Patch(ctx, svc, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the load-balancer finalizer: %w", err)
		}
	}

	name := LoadBalancerName(svc.Namespace, svc.Name, svc.UID)
	lb, err := r.find(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if lb != nil && string(lb.Scheme) != scheme {
		// The scheme of an NLB cannot change: replace it.
		r.event(svc, corev1.EventTypeNormal, reasonRecreating, "Ensure",
			"The Service now asks for an %s load balancer; replacing %s (%s)", scheme, name, lb.Scheme)
		if err := r.setHostname(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
		res, err := r.deleteLoadBalancer(ctx, svc, lb)
		if err == nil && res.RequeueAfter == 0 {
			res.RequeueAfter = minPoll // gone: come back to create the new one
		}
		return res, err
	}
	if lb == nil {
		out, err := r.client().CreateLoadBalancer(ctx, &elbv2.CreateLoadBalancerInput{
			Name:    aws.String(name),
			Type:    elbv2types.LoadBalancerTypeEnumNetwork,
			Scheme:  elbv2types.LoadBalancerSchemeEnum(scheme),
			Subnets: subnets,
			Tags: []elbv2types.Tag{
				{Key: aws.String(ServiceNameTagKey), Value: aws.String(svc.Namespace + "/" + svc.Name)},
				{Key: aws.String(ClusterTagKey), Value: aws.String(ClusterTagValue)},
			},
		})
		switch c := awscloud.Classify(err); {
		case c == awscloud.ClassClientError || c == awscloud.ClassAccessDenied:
			// Permanent for this input (no subnets of that kind, no internet
			// gateway, quota): say so and retry slowly, no hot loop.
			r.event(svc, corev1.EventTypeWarning, reasonCreateFailed, "Ensure",
				"Creating load balancer %s failed: %s; retrying in %v", name, awsErrorText(err), failedRequeue)
			return ctrl.Result{RequeueAfter: failedRequeue}, nil
		case err != nil:
			return ctrl.Result{}, fmt.Errorf("creating load balancer %s: %w", name, err)
		}
		if len(out.LoadBalancers) != 1 {
			return ctrl.Result{}, fmt.Errorf("creating load balancer %s: AWS answered %d load balancers", name, len(out.LoadBalancers))
		}
		lb = &out.LoadBalancers[0]
		log.Info("Created load balancer", "loadBalancer", name, "scheme", scheme)
	}

	if err := r.ensureCrossZone(ctx, svc, lb); err != nil {
		return ctrl.Result{}, err
	}

	switch state := stateOf(lb); state {
	case elbv2types.LoadBalancerStateEnumActive:
	case elbv2types.LoadBalancerStateEnumFailed:
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerFailed, "Ensure", "Load balancer %s failed to provision", name)
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	default: // provisioning, active_impaired
		return ctrl.Result{RequeueAfter: pollDelay(lb.CreatedTime, time.Now())}, nil
	}

	hostname := aws.ToString(lb.DNSName)
	if hasHostname(svc, hostname) {
		return ctrl.Result{}, nil
	}
	if err := r.setHostname(ctx, svc, hostname); err != nil {
		return ctrl.Result{}, err
	}
	r.event(svc, corev1.EventTypeNormal, reasonEnsuredLoadBalancer, "Ensure", "Load balancer %s is active at %s", name, hostname)
	return ctrl.Result{}, nil
}

// reconcileDelete deletes the Service's NLB, waits until AWS no longer
// knows it, then lets the Service go.
func (r *Reconciler) reconcileDelete(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		return ctrl.Result{}, nil
	}
	name := LoadBalancerName(svc.Namespace, svc.Name, svc.UID)
	lb, err := r.find(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if lb != nil {
		res, err := r.deleteLoadBalancer(ctx, svc, lb)
		if err != nil || res.RequeueAfter > 0 {
			return res, err
		}
	}
	if svc.DeletionTimestamp.IsZero() {
		// The Service lives on as another type: it has no load balancer now.
		if err := r.setHostname(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
	}
	orig := svc.DeepCopy()
	controllerutil.RemoveFinalizer(svc, Finalizer)
	if err := r.Client.Patch(ctx, svc, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return ctrl.Result{}, nil
}

// deleteLoadBalancer deletes lb and reports a requeue until
// DescribeLoadBalancers no longer finds it.
func (r *Reconciler) deleteLoadBalancer(ctx context.Context, svc *corev1.Service, lb *elbv2types.LoadBalancer) (ctrl.Result, error) {
	name := aws.ToString(lb.LoadBalancerName)
	_, err := r.client().DeleteLoadBalancer(ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: lb.LoadBalancerArn})
	switch {
	case awscloud.ErrorCode(err) == "ResourceInUse":
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerInUse, "Delete",
			"Load balancer %s is still used by a VPC endpoint service; retrying", name)
		return ctrl.Result{RequeueAfter: inUseRequeue}, nil
	case err != nil && !awscloud.IsNotFound(err):
		return ctrl.Result{}, fmt.Errorf("deleting load balancer %s: %w", name, err)
	}
	still, err := r.find(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if still != nil {
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Deleted load balancer", "loadBalancer", name)
	r.event(svc, corev1.EventTypeNormal, reasonDeletedLoadBalancer, "Delete", "Deleted load balancer %s", name)
	return ctrl.Result{}, nil
}

// find returns the NLB of that name, or nil.
func (r *Reconciler) find(ctx context.Context, name string) (*elbv2types.LoadBalancer, error) {
	out, err := r.client().DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{Names: []string{name}})
	if awscloud.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describing load balancer %s: %w", name, err)
	}
	for i := range out.LoadBalancers {
		if aws.ToString(out.LoadBalancers[i].LoadBalancerName) == name {
			return &out.LoadBalancers[i], nil
		}
	}
	return nil, nil
}

// ensureCrossZone sets the NLB's cross-zone attribute to what the Service
// asks for, writing only when it differs.
func (r *Reconciler) ensureCrossZone(ctx context.Context, svc *corev1.Service, lb *elbv2types.LoadBalancer) error {
	want := strconv.FormatBool(wantsCrossZone(svc))
	out, err := r.client().DescribeLoadBalancerAttributes(ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: lb.LoadBalancerArn})
	if err != nil {
		return fmt.Errorf("describing the attributes of load balancer %s: %w", aws.ToString(lb.LoadBalancerName), err)
	}
	have := "false"
	for _, a := range out.Attributes {
		if aws.ToString(a.Key) == crossZoneAttribute {
			have = aws.ToString(a.Value)
		}
	}
	if have == want {
		return nil
	}
	_, err = r.client().ModifyLoadBalancerAttributes(ctx, &elbv2.ModifyLoadBalancerAttributesInput{
		LoadBalancerArn: lb.LoadBalancerArn,
		Attributes:      []elbv2types.LoadBalancerAttribute{{Key: aws.String(crossZoneAttribute), Value: aws.String(want)}},
	})
	if err != nil {
		return fmt.Errorf("setting cross-zone load balancing of %s: %w", aws.ToString(lb.LoadBalancerName), err)
	}
	return nil
}

// setHostname writes status.loadBalancer: one ingress with hostname, or
// none when hostname is empty. It writes only when that changes.
func (r *Reconciler) setHostname(ctx context.Context, svc *corev1.Service, hostname string) error {
	want := corev1.LoadBalancerStatus{}
	if hostname != "" {
		want.Ingress = []corev1.LoadBalancerIngress{{Hostname: hostname}}
	}
	if equality.Semantic.DeepEqual(svc.Status.LoadBalancer, want) {
		return nil
	}
	orig := svc.DeepCopy()
	svc.Status.LoadBalancer = want
	if err := r.Client.Status().Patch(ctx, svc, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("writing the load-balancer status of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

func hasHostname(svc *corev1.Service, hostname string) bool {
	ing := svc.Status.LoadBalancer.Ingress
	return len(ing) == 1 && ing[0].Hostname == hostname && ing[0].IP == ""
}

func stateOf(lb *elbv2types.LoadBalancer) elbv2types.LoadBalancerStateEnum {
	if lb.State == nil {
		return elbv2types.LoadBalancerStateEnumProvisioning
	}
	return lb.State.Code
}

// pollDelay is the wait before looking at a provisioning NLB again: a
// quarter of its age, within [minPoll, maxPoll].
func pollDelay(created *time.Time, now time.Time) time.Duration {
	if created == nil {
		return minPoll
	}
	d := now.Sub(*created) / 4
	return min(max(d, minPoll), maxPoll)
}

// awsErrorText is an AWS error as code and message, without request IDs.
func awsErrorText(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode() + ": " + apiErr.ErrorMessage()
	}
	return err.Error()
}

func (r *Reconciler) event(svc *corev1.Service, eventType, reason, action, note string, args ...any) {
	if r.Recorder == nil {
		return
	}
	r.Recorder.Eventf(svc, nil, eventType, reason, action, note, args...)
}
