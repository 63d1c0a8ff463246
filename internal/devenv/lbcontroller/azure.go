package lbcontroller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/hcplink/hcplink/internal/kubepatch"
)

// AzureInternalAnnotation asks Azure's cloud provider for an internal load
// balancer (a private frontend in the cluster's VNet).
const AzureInternalAnnotation = "service.beta.kubernetes.io/azure-load-balancer-internal"

// azureFrontendName is the one frontend of each load balancer.
const azureFrontendName = "frontend"

// AzureOptions configure the Azure stand-in.
type AzureOptions struct {
	// Credential and ClientOptions reach the management subscription.
	Credential    azcore.TokenCredential
	ClientOptions *arm.ClientOptions
	// SubscriptionID, ResourceGroup and Location say where the load
	// balancers (and the public addresses of public ones) are made.
	SubscriptionID, ResourceGroup, Location string
	// SubnetID is the management VNet's subnet internal frontends take
	// their private address from.
	SubnetID string
}

// AzureReconciler is the stand-in for Azure's cloud provider: for every
// LoadBalancer Service with an Azure annotation it makes a Standard load
// balancer in the management resource group, named like the AWS ones, with
// one frontend: a private address from the management subnet when the
// Service asks to be internal, else a public address. It writes the
// frontend's IP to status.loadBalancer and deletes the load balancer (and
// its public address) when the Service goes, holding the Service with the
// cleanup finalizer until Azure no longer has them. Waiting is a requeue.
type AzureReconciler struct {
	Client   client.Client
	Options  AzureOptions
	Recorder recorder.EventRecorder

	once    sync.Once
	lbs     *armnetwork.LoadBalancersClient
	ips     *armnetwork.PublicIPAddressesClient
	initErr error
}

// SetupWithManager registers the controller for Azure Services of type
// LoadBalancer and those still holding the finalizer.
func (r *AzureReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(controllerName)
	}
	relevant := predicate.NewPredicateFuncs(func(o client.Object) bool {
		svc, ok := o.(*corev1.Service)
		return ok && ((svc.Spec.Type == corev1.ServiceTypeLoadBalancer && isAzure(svc)) || controllerutil.ContainsFinalizer(svc, Finalizer))
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("azure-service-load-balancers").
		For(&corev1.Service{}, builder.WithPredicates(relevant, notStatusOnly{})).
		Complete(r)
}

func (r *AzureReconciler) clients() (*armnetwork.LoadBalancersClient, *armnetwork.PublicIPAddressesClient, error) {
	r.once.Do(func() {
		f, err := armnetwork.NewClientFactory(r.Options.SubscriptionID, r.Options.Credential, r.Options.ClientOptions)
		if err != nil {
			r.initErr = err
			return
		}
		r.lbs, r.ips = f.NewLoadBalancersClient(), f.NewPublicIPAddressesClient()
	})
	return r.lbs, r.ips, r.initErr
}

// Reconcile gives a Service its load balancer, or takes it away.
func (r *AzureReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	svc := &corev1.Service{}
	if err := r.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var res ctrl.Result
	var err error
	if !svc.DeletionTimestamp.IsZero() || !wantsLoadBalancer(svc) || !isAzure(svc) {
		res, err = r.reconcileDelete(ctx, svc)
	} else {
		res, err = r.reconcileNormal(ctx, svc)
	}
	if azureStatus(err) == http.StatusTooManyRequests {
		ctrl.LoggerFrom(ctx).Info("Azure throttled the load-balancer controller; backing off")
		return ctrl.Result{RequeueAfter: throttledRequeue}, nil
	}
	return res, err
}

func (r *AzureReconciler) reconcileNormal(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		if err := kubepatch.Finalizers(ctx, r.Client, svc, func() { controllerutil.AddFinalizer(svc, Finalizer) }); err != nil {
			return ctrl.Result{}, err
		}
	}
	name := LoadBalancerName(svc.Namespace, svc.Name, svc.UID)
	internal := wantsAzureInternal(svc)
	lb, err := r.getLoadBalancer(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if lb != nil && isInternalLB(lb) != internal {
		// Azure cannot turn a frontend from public to private: replace it.
		r.event(svc, corev1.EventTypeNormal, reasonRecreating, "Ensure", "The Service's internal annotation changed; replacing load balancer %s", name)
		if err := r.setIP(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
		return r.deleteLoadBalancer(ctx, svc, name)
	}
	if lb == nil {
		return r.createLoadBalancer(ctx, svc, name, internal)
	}
	switch state := deref(lb.Properties.ProvisioningState, ""); state {
	case armnetwork.ProvisioningStateSucceeded:
	case armnetwork.ProvisioningStateFailed:
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerFailed, "Ensure", "Load balancer %s failed to provision", name)
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	default:
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	ip, err := r.frontendIP(ctx, lb)
	if err != nil || ip == "" {
		return ctrl.Result{RequeueAfter: minPoll}, err
	}
	if hasIP(svc, ip) {
		return ctrl.Result{}, nil
	}
	if err := r.setIP(ctx, svc, ip); err != nil {
		return ctrl.Result{}, err
	}
	r.event(svc, corev1.EventTypeNormal, reasonEnsuredLoadBalancer, "Ensure", "Load balancer %s serves %s", name, ip)
	return ctrl.Result{}, nil
}

// createLoadBalancer starts creating the Service's load balancer (and the
// public address of a public one) and comes back to see it provisioned.
func (r *AzureReconciler) createLoadBalancer(ctx context.Context, svc *corev1.Service, name string, internal bool) (ctrl.Result, error) {
	lbs, ips, err := r.clients()
	if err != nil {
		return ctrl.Result{}, err
	}
	frontend := &armnetwork.FrontendIPConfigurationPropertiesFormat{}
	if internal {
		frontend.Subnet = &armnetwork.Subnet{ID: to.Ptr(r.Options.SubnetID)}
		frontend.PrivateIPAllocationMethod = to.Ptr(armnetwork.IPAllocationMethodDynamic)
	} else {
		ip, err := ips.Get(ctx, r.Options.ResourceGroup, name, nil)
		if azureStatus(err) == http.StatusNotFound {
			_, err = ips.BeginCreateOrUpdate(ctx, r.Options.ResourceGroup, name, armnetwork.PublicIPAddress{
				Location: to.Ptr(r.Options.Location),
				SKU:      &armnetwork.PublicIPAddressSKU{Name: to.Ptr(armnetwork.PublicIPAddressSKUNameStandard)},
				Tags:     azureTags(svc),
				Properties: &armnetwork.PublicIPAddressPropertiesFormat{
					PublicIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic),
				},
			}, nil)
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("creating public address %s: %w", name, err)
			}
			return ctrl.Result{RequeueAfter: minPoll}, nil
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("reading public address %s: %w", name, err)
		}
		if deref(ip.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateSucceeded {
			return ctrl.Result{RequeueAfter: minPoll}, nil
		}
		frontend.PublicIPAddress = &armnetwork.PublicIPAddress{ID: ip.ID}
	}
	_, err = lbs.BeginCreateOrUpdate(ctx, r.Options.ResourceGroup, name, armnetwork.LoadBalancer{
		Location: to.Ptr(r.Options.Location),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Tags:     azureTags(svc),
		Properties: &armnetwork.LoadBalancerPropertiesFormat{
			FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr(azureFrontendName), Properties: frontend}},
			BackendAddressPools:      []*armnetwork.BackendAddressPool{{Name: to.Ptr("nodes")}},
		},
	}, nil)
	if err != nil {
		r.event(svc, corev1.EventTypeWarning, reasonCreateFailed, "Ensure", "Creating load balancer %s failed: %s; retrying in %v", name, azureErrorText(err), failedRequeue)
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Creating load balancer", "loadBalancer", name, "internal", internal)
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// frontendIP is the address the load balancer's frontend serves: its
// private address, or its public address's.
func (r *AzureReconciler) frontendIP(ctx context.Context, lb *armnetwork.LoadBalancer) (string, error) {
	fes := lb.Properties.FrontendIPConfigurations
	if len(fes) == 0 || fes[0].Properties == nil {
		return "", nil
	}
	fe := fes[0].Properties
	if fe.PublicIPAddress == nil {
		return deref(fe.PrivateIPAddress, ""), nil
	}
	_, ips, err := r.clients()
	if err != nil {
		return "", err
	}
	ip, err := ips.Get(ctx, r.Options.ResourceGroup, deref(lb.Name, ""), nil)
	if err != nil {
		return "", fmt.Errorf("reading the public address of %s: %w", deref(lb.Name, ""), err)
	}
	return deref(ip.Properties.IPAddress, ""), nil
}

// reconcileDelete deletes the Service's load balancer and public address,
// waits until Azure no longer has them, then lets the Service go.
func (r *AzureReconciler) reconcileDelete(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		return ctrl.Result{}, nil
	}
	res, err := r.deleteLoadBalancer(ctx, svc, LoadBalancerName(svc.Namespace, svc.Name, svc.UID))
	if err != nil || res.RequeueAfter > 0 {
		return res, err
	}
	if svc.DeletionTimestamp.IsZero() {
		if err := r.setIP(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
	}
	err = kubepatch.Finalizers(ctx, r.Client, svc, func() { controllerutil.RemoveFinalizer(svc, Finalizer) })
	return ctrl.Result{}, client.IgnoreNotFound(err)
}

// deleteLoadBalancer deletes the load balancer, then its public address,
// and reports a requeue until both are gone. A Private Link Service still
// on the frontend holds the load balancer (Azure refuses): the operator
// deletes it first.
func (r *AzureReconciler) deleteLoadBalancer(ctx context.Context, svc *corev1.Service, name string) (ctrl.Result, error) {
	lbs, ips, err := r.clients()
	if err != nil {
		return ctrl.Result{}, err
	}
	lb, err := r.getLoadBalancer(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if lb != nil {
		if deref(lb.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateDeleting {
			_, err := lbs.BeginDelete(ctx, r.Options.ResourceGroup, name, nil)
			if code := azureErrorCode(err); code == "CannotDeleteLoadBalancerWithPrivateLinkService" {
				r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerInUse, "Delete",
					"Load balancer %s is still used by a Private Link Service; retrying", name)
				return ctrl.Result{RequeueAfter: inUseRequeue}, nil
			} else if err != nil && azureStatus(err) != http.StatusNotFound {
				return ctrl.Result{}, fmt.Errorf("deleting load balancer %s: %w", name, err)
			}
		}
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	ip, err := ips.Get(ctx, r.Options.ResourceGroup, name, nil)
	switch {
	case azureStatus(err) == http.StatusNotFound:
		ctrl.LoggerFrom(ctx).Info("Deleted load balancer", "loadBalancer", name)
		r.event(svc, corev1.EventTypeNormal, reasonDeletedLoadBalancer, "Delete", "Deleted load balancer %s", name)
		return ctrl.Result{}, nil
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("reading public address %s: %w", name, err)
	}
	if deref(ip.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateDeleting {
		if _, err := ips.BeginDelete(ctx, r.Options.ResourceGroup, name, nil); err != nil && azureStatus(err) != http.StatusNotFound {
			return ctrl.Result{}, fmt.Errorf("deleting public address %s: %w", name, err)
		}
	}
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// getLoadBalancer returns the load balancer of that name, or nil.
func (r *AzureReconciler) getLoadBalancer(ctx context.Context, name string) (*armnetwork.LoadBalancer, error) {
	lbs, _, err := r.clients()
	if err != nil {
		return nil, err
	}
	out, err := lbs.Get(ctx, r.Options.ResourceGroup, name, nil)
	if azureStatus(err) == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading load balancer %s: %w", name, err)
	}
	if out.Properties == nil {
		out.Properties = &armnetwork.LoadBalancerPropertiesFormat{}
	}
	return &out.LoadBalancer, nil
}

// setIP writes status.loadBalancer: one ingress with ip, or none when ip
// is empty. It writes only when that changes.
func (r *AzureReconciler) setIP(ctx context.Context, svc *corev1.Service, ip string) error {
	var ingress []any
	if ip != "" {
		ingress = []any{map[string]any{"ip": ip}}
	}
	if hasIP(svc, ip) || (ip == "" && len(svc.Status.LoadBalancer.Ingress) == 0) {
		return nil
	}
	err := kubepatch.Merge(ctx, r.Client, svc, true, map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}})
	if err != nil {
		return fmt.Errorf("writing the load-balancer status of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

func (r *AzureReconciler) event(svc *corev1.Service, eventType, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(svc, nil, eventType, reason, action, note, args...)
	}
}

// wantsAzureInternal reads the internal annotation as Azure's cloud
// provider does: only "true" makes the load balancer internal.
func wantsAzureInternal(svc *corev1.Service) bool {
	return svc.Annotations[AzureInternalAnnotation] == "true"
}

func isInternalLB(lb *armnetwork.LoadBalancer) bool {
	fes := lb.Properties.FrontendIPConfigurations
	return len(fes) > 0 && fes[0].Properties != nil && fes[0].Properties.PublicIPAddress == nil
}

func hasIP(svc *corev1.Service, ip string) bool {
	ing := svc.Status.LoadBalancer.Ingress
	return len(ing) == 1 && ing[0].IP == ip && ing[0].Hostname == ""
}

// azureTags name the Service and the cluster on what is made for them,
// with the tag names of Azure's cloud provider (Azure tag names cannot hold
// a slash).
func azureTags(svc *corev1.Service) map[string]*string {
	return map[string]*string{"k8s-azure-service": to.Ptr(svc.Namespace + "/" + svc.Name), "k8s-azure-cluster-name": to.Ptr(ClusterTagValue)}
}

func azureStatus(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

func azureErrorCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

// azureErrorText is an Azure error as its code, without the request dump.
func azureErrorText(err error) string {
	if code := azureErrorCode(err); code != "" {
		return code
	}
	return err.Error()
}

// deref is *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
