package lbcontroller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/hcplink/hcplink/internal/kubepatch"
)

// AzureInternalAnnotation asks Azure's cloud provider for an internal load
// balancer (a private frontend in the cluster's VNet).
const AzureInternalAnnotation = "service.beta.kubernetes.io/azure-load-balancer-internal"

// AzureOptions configure the Azure stand-in.
type AzureOptions struct {
	// Credential and ClientOptions reach the management subscription.
	Credential    azcore.TokenCredential
	ClientOptions *arm.ClientOptions
	// SubscriptionID, ResourceGroup and Location say where the load
	// balancers (and the public addresses of public Services) are made.
	SubscriptionID, ResourceGroup, Location string
	// SubnetID is the management VNet's subnet internal frontends take
	// their private address from.
	SubnetID string
	// ClusterName is the cloud provider's cluster name (empty:
	// DefaultAzureClusterName): its load balancers in single-load-balancer
	// mode, and the prefix of public addresses.
	ClusterName string
	// Configurations are the cloud config's
	// multipleStandardLoadBalancerConfigurations; none is the single
	// load-balancer mode (one configuration named ClusterName).
	Configurations []AzureLoadBalancerConfiguration
}

func (o AzureOptions) clusterName() string {
	if o.ClusterName == "" {
		return DefaultAzureClusterName
	}
	return o.ClusterName
}

func (o AzureOptions) configurations() []AzureLoadBalancerConfiguration {
	if len(o.Configurations) == 0 {
		return []AzureLoadBalancerConfiguration{{Name: o.clusterName()}}
	}
	return o.Configurations
}

// AzureReconciler is the stand-in for Azure's cloud provider
// (cloud-provider-azure) and places Services as it does
// (azure_placement.go): every LoadBalancer Service with an Azure
// annotation gets a frontend on a shared Standard load balancer of its
// kind — <configuration>-internal with a private address from the
// management subnet when the Service asks to be internal, <configuration>
// with a public address of its own otherwise — made when its first
// frontend is and deleted with its last. It writes the frontend's IP to
// status.loadBalancer and removes the frontend (and the public address)
// when the Service goes, holding the Service with the cleanup finalizer
// until Azure no longer has them. Waiting is a requeue. It runs one
// worker, as the cloud provider's service controller does on Azure: the
// Services share load balancers.
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
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
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

// Reconcile gives a Service its frontend, or takes it away.
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
	switch {
	case azureStatus(err) == http.StatusTooManyRequests:
		ctrl.LoggerFrom(ctx).Info("Azure throttled the load-balancer controller; backing off")
		return ctrl.Result{RequeueAfter: throttledRequeue}, nil
	case azureErrorCode(err) == "AnotherOperationInProgress":
		// Another Service's change of the shared load balancer is running.
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	return res, err
}

// placement is where a Service's frontend is: its load balancer, or nil.
type placement struct {
	lb       *armnetwork.LoadBalancer
	internal bool
	config   string
}

func (r *AzureReconciler) reconcileNormal(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		if err := kubepatch.Finalizers(ctx, r.Client, svc, func() { controllerutil.AddFinalizer(svc, Finalizer) }); err != nil {
			return ctrl.Result{}, err
		}
	}
	lbs, err := r.listLoadBalancers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	internal := wantsAzureInternal(svc)
	eligible := eligibleConfigurations(r.Options.configurations(), svc)
	cur := r.placementOf(lbs, svc)
	if cur.lb != nil && (cur.internal != internal || !slices.Contains(eligible, cur.config)) {
		// Azure cannot turn a frontend from public to private, and a Service
		// no longer allowed on its load balancer moves: take it off first.
		r.event(svc, corev1.EventTypeNormal, reasonRecreating, "Ensure", "The Service's annotations changed; moving it off load balancer %s", deref(cur.lb.Name, ""))
		if err := r.setIP(ctx, svc, ""); err != nil {
			return ctrl.Result{}, err
		}
		return r.removeFrontend(ctx, svc, cur.lb)
	}
	if cur.lb == nil {
		config := chooseConfiguration(eligible, internal, func(name string) int {
			if lb := lbs[strings.ToLower(name)]; lb != nil {
				return len(lb.Properties.FrontendIPConfigurations)
			}
			return 0
		})
		if config == "" {
			r.event(svc, corev1.EventTypeWarning, reasonNoConfiguration, "Ensure",
				"No load-balancer configuration may take the Service (annotation %s: %q); the Service stays pending", AzureConfigurationsAnnotation, svc.Annotations[AzureConfigurationsAnnotation])
			return ctrl.Result{RequeueAfter: failedRequeue}, nil
		}
		name := azureLoadBalancerName(config, internal)
		return r.addFrontend(ctx, svc, name, lbs[strings.ToLower(name)], internal)
	}
	lb := cur.lb
	switch state := deref(lb.Properties.ProvisioningState, ""); state {
	case armnetwork.ProvisioningStateSucceeded:
	case armnetwork.ProvisioningStateFailed:
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerFailed, "Ensure", "Load balancer %s failed to provision", deref(lb.Name, ""))
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	default:
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	ip, err := r.frontendIP(ctx, svc, lb)
	if err != nil || ip == "" {
		return ctrl.Result{RequeueAfter: minPoll}, err
	}
	if hasIP(svc, ip) {
		return ctrl.Result{}, nil
	}
	if err := r.setIP(ctx, svc, ip); err != nil {
		return ctrl.Result{}, err
	}
	r.event(svc, corev1.EventTypeNormal, reasonEnsuredLoadBalancer, "Ensure", "Load balancer %s serves %s", deref(lb.Name, ""), ip)
	return ctrl.Result{}, nil
}

// placementOf finds the Service's frontend on the load balancers of the
// configurations.
func (r *AzureReconciler) placementOf(lbs map[string]*armnetwork.LoadBalancer, svc *corev1.Service) placement {
	fe := azureFrontendName(svc.UID)
	for _, c := range r.Options.configurations() {
		for _, internal := range []bool{true, false} {
			lb := lbs[strings.ToLower(azureLoadBalancerName(c.Name, internal))]
			if lb != nil && frontendNamed(lb, fe) != nil {
				return placement{lb: lb, internal: internal, config: c.Name}
			}
		}
	}
	return placement{}
}

// addFrontend puts the Service's frontend on the load balancer name (lb,
// or a new one when nil): a private address from the management subnet,
// or the Service's own public address (made first). It comes back to see
// it provisioned.
func (r *AzureReconciler) addFrontend(ctx context.Context, svc *corev1.Service, name string, lb *armnetwork.LoadBalancer, internal bool) (ctrl.Result, error) {
	lbs, ips, err := r.clients()
	if err != nil {
		return ctrl.Result{}, err
	}
	if lb != nil && deref(lb.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateSucceeded {
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	pipName := r.publicIPName(svc)
	frontend := &armnetwork.FrontendIPConfigurationPropertiesFormat{}
	if internal {
		// A public address left from when the Service was public goes.
		if res, err := r.deletePublicIP(ctx, pipName); err != nil || res.RequeueAfter > 0 {
			return res, err
		}
		frontend.Subnet = &armnetwork.Subnet{ID: to.Ptr(r.Options.SubnetID)}
		frontend.PrivateIPAllocationMethod = to.Ptr(armnetwork.IPAllocationMethodDynamic)
	} else {
		ip, err := ips.Get(ctx, r.Options.ResourceGroup, pipName, nil)
		if azureStatus(err) == http.StatusNotFound {
			_, err = ips.BeginCreateOrUpdate(ctx, r.Options.ResourceGroup, pipName, armnetwork.PublicIPAddress{
				Location: to.Ptr(r.Options.Location),
				SKU:      &armnetwork.PublicIPAddressSKU{Name: to.Ptr(armnetwork.PublicIPAddressSKUNameStandard)},
				Tags:     azureTags(svc),
				Properties: &armnetwork.PublicIPAddressPropertiesFormat{
					PublicIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic),
				},
			}, nil)
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("creating public address %s: %w", pipName, err)
			}
			return ctrl.Result{RequeueAfter: minPoll}, nil
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("reading public address %s: %w", pipName, err)
		}
		if deref(ip.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateSucceeded {
			return ctrl.Result{RequeueAfter: minPoll}, nil
		}
		frontend.PublicIPAddress = &armnetwork.PublicIPAddress{ID: ip.ID}
	}
	body := armnetwork.LoadBalancer{
		Location: to.Ptr(r.Options.Location),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Tags:     map[string]*string{clusterNameTag: to.Ptr(ClusterTagValue)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{
			BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr(r.Options.clusterName())}},
		},
	}
	if lb != nil {
		body = *lb
	}
	body.Properties.FrontendIPConfigurations = append(slices.Clone(body.Properties.FrontendIPConfigurations),
		&armnetwork.FrontendIPConfiguration{Name: to.Ptr(azureFrontendName(svc.UID)), Properties: frontend})
	if _, err := lbs.BeginCreateOrUpdate(ctx, r.Options.ResourceGroup, name, body, nil); err != nil {
		if azureErrorCode(err) == "AnotherOperationInProgress" {
			return ctrl.Result{RequeueAfter: minPoll}, nil
		}
		r.event(svc, corev1.EventTypeWarning, reasonCreateFailed, "Ensure", "Adding the Service's frontend to load balancer %s failed: %s; retrying in %v", name, azureErrorText(err), failedRequeue)
		return ctrl.Result{RequeueAfter: failedRequeue}, nil
	}
	ctrl.LoggerFrom(ctx).Info("Adding a frontend", "loadBalancer", name, "internal", internal)
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// frontendIP is the address the Service's frontend serves: its private
// address, or its public address's.
func (r *AzureReconciler) frontendIP(ctx context.Context, svc *corev1.Service, lb *armnetwork.LoadBalancer) (string, error) {
	fe := frontendNamed(lb, azureFrontendName(svc.UID))
	if fe == nil || fe.Properties == nil {
		return "", nil
	}
	if fe.Properties.PublicIPAddress == nil {
		return deref(fe.Properties.PrivateIPAddress, ""), nil
	}
	_, ips, err := r.clients()
	if err != nil {
		return "", err
	}
	ip, err := ips.Get(ctx, r.Options.ResourceGroup, r.publicIPName(svc), nil)
	if err != nil {
		return "", fmt.Errorf("reading the public address of %s: %w", svc.Name, err)
	}
	return deref(ip.Properties.IPAddress, ""), nil
}

// reconcileDelete takes the Service's frontend off its load balancer and
// deletes its public address, waits until Azure no longer has them, then
// lets the Service go.
func (r *AzureReconciler) reconcileDelete(ctx context.Context, svc *corev1.Service) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(svc, Finalizer) {
		return ctrl.Result{}, nil
	}
	lbs, err := r.listLoadBalancers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cur := r.placementOf(lbs, svc); cur.lb != nil {
		return r.removeFrontend(ctx, svc, cur.lb)
	}
	if res, err := r.deletePublicIP(ctx, r.publicIPName(svc)); err != nil || res.RequeueAfter > 0 {
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

// removeFrontend takes the Service's frontend off lb — deleting lb when it
// was the last — and comes back until it is gone. A Private Link Service
// still on the frontend holds it (Azure refuses): the operator deletes
// that first.
func (r *AzureReconciler) removeFrontend(ctx context.Context, svc *corev1.Service, lb *armnetwork.LoadBalancer) (ctrl.Result, error) {
	lbs, _, err := r.clients()
	if err != nil {
		return ctrl.Result{}, err
	}
	name := deref(lb.Name, "")
	if deref(lb.Properties.ProvisioningState, "") != armnetwork.ProvisioningStateSucceeded {
		return ctrl.Result{RequeueAfter: minPoll}, nil
	}
	fe := azureFrontendName(svc.UID)
	rest := slices.DeleteFunc(slices.Clone(lb.Properties.FrontendIPConfigurations), func(f *armnetwork.FrontendIPConfiguration) bool {
		return strings.EqualFold(deref(f.Name, ""), fe)
	})
	if len(rest) == 0 {
		_, err = lbs.BeginDelete(ctx, r.Options.ResourceGroup, name, nil)
	} else {
		body := *lb
		body.Properties.FrontendIPConfigurations = rest
		_, err = lbs.BeginCreateOrUpdate(ctx, r.Options.ResourceGroup, name, body, nil)
	}
	switch code := azureErrorCode(err); {
	case code == "CannotDeleteLoadBalancerWithPrivateLinkService":
		r.event(svc, corev1.EventTypeWarning, reasonLoadBalancerInUse, "Delete",
			"The Service's frontend on load balancer %s is still used by a Private Link Service; retrying", name)
		return ctrl.Result{RequeueAfter: inUseRequeue}, nil
	case code == "AnotherOperationInProgress":
		return ctrl.Result{RequeueAfter: minPoll}, nil
	case err != nil && azureStatus(err) != http.StatusNotFound:
		return ctrl.Result{}, fmt.Errorf("removing the Service's frontend from load balancer %s: %w", name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Removed a frontend", "loadBalancer", name, "deleted", len(rest) == 0)
	r.event(svc, corev1.EventTypeNormal, reasonDeletedLoadBalancer, "Delete", "Removed the Service's frontend from load balancer %s", name)
	return ctrl.Result{RequeueAfter: minPoll}, nil
}

// deletePublicIP deletes the Service's public address and asks to come
// back until Azure no longer has it; nothing when there is none.
func (r *AzureReconciler) deletePublicIP(ctx context.Context, name string) (ctrl.Result, error) {
	_, ips, err := r.clients()
	if err != nil {
		return ctrl.Result{}, err
	}
	ip, err := ips.Get(ctx, r.Options.ResourceGroup, name, nil)
	switch {
	case azureStatus(err) == http.StatusNotFound:
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

// listLoadBalancers reads the resource group's load balancers, by lower-case name.
func (r *AzureReconciler) listLoadBalancers(ctx context.Context) (map[string]*armnetwork.LoadBalancer, error) {
	lbs, _, err := r.clients()
	if err != nil {
		return nil, err
	}
	out := map[string]*armnetwork.LoadBalancer{}
	pager := lbs.NewListPager(r.Options.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing load balancers: %w", err)
		}
		for _, lb := range page.Value {
			if lb == nil || lb.Name == nil {
				continue
			}
			if lb.Properties == nil {
				lb.Properties = &armnetwork.LoadBalancerPropertiesFormat{}
			}
			out[strings.ToLower(*lb.Name)] = lb
		}
	}
	return out, nil
}

// publicIPName names a Service's public address as cloud-provider-azure
// does: the cluster name and the frontend's.
func (r *AzureReconciler) publicIPName(svc *corev1.Service) string {
	return r.Options.clusterName() + "-" + azureFrontendName(svc.UID)
}

func frontendNamed(lb *armnetwork.LoadBalancer, name string) *armnetwork.FrontendIPConfiguration {
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		if fe != nil && strings.EqualFold(deref(fe.Name, ""), name) {
			return fe
		}
	}
	return nil
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

func hasIP(svc *corev1.Service, ip string) bool {
	ing := svc.Status.LoadBalancer.Ingress
	return len(ing) == 1 && ing[0].IP == ip && ing[0].Hostname == ""
}

// clusterNameTag names the cluster on what the cloud provider makes.
const clusterNameTag = "k8s-azure-cluster-name"

// azureTags name the Service and the cluster on what is made for them,
// with the tag names of Azure's cloud provider (Azure tag names cannot hold
// a slash).
func azureTags(svc *corev1.Service) map[string]*string {
	return map[string]*string{"k8s-azure-service": to.Ptr(svc.Namespace + "/" + svc.Name), clusterNameTag: to.Ptr(ClusterTagValue)}
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
