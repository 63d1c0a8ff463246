package azureprivatelink

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/controlplane/routers"
	"github.com/hcplink/hcplink/internal/outcome"
)

func TestValidateGuestNetwork(t *testing.T) {
	az := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate).Spec.Platform.Azure
	vnet := func(location string, subnets ...string) *armnetwork.VirtualNetwork {
		v := &armnetwork.VirtualNetwork{Location: to.Ptr(location), Properties: &armnetwork.VirtualNetworkPropertiesFormat{}}
		for _, s := range subnets {
			v.Properties.Subnets = append(v.Properties.Subnets, &armnetwork.Subnet{Name: to.Ptr(s)})
		}
		return v
	}
	tests := []struct {
		name       string
		rgFound    bool
		vnet       *armnetwork.VirtualNetwork
		wantReason string
		wantField  string
	}{
		{"all there", true, vnet("eastus", "workers"), hcplinkv1beta1.AzureSuccessReason, ""},
		{"the location spelled as a display name", true, vnet("East US", "workers"), hcplinkv1beta1.AzureSuccessReason, ""},
		{"no resource group", false, nil, hcplinkv1beta1.AzureResourceGroupNotFoundReason, "spec.platform.azure.resourceGroup)"},
		{"no VNet", true, nil, hcplinkv1beta1.AzureVNetNotFoundReason, "spec.platform.azure.vnetID"},
		{"no such subnet", true, vnet("eastus", "other"), hcplinkv1beta1.AzureSubnetNotFoundReason, "spec.platform.azure.subnetID"},
		{"another location (or an unknown one)", true, vnet("westeurope", "workers"), hcplinkv1beta1.AzureLocationMismatchReason, "spec.platform.azure.location"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ValidateGuestNetwork(az, tt.rgFound, tt.vnet)
			if o.Reason != tt.wantReason || !strings.Contains(o.Message, tt.wantField) {
				t.Errorf("ValidateGuestNetwork = %s %q", o.Reason, o.Message)
			}
			if tt.wantField != "" && (o.Status != metav1.ConditionFalse || !o.Grows()) {
				t.Errorf("invalid settings must be False and rechecked at growing intervals: %+v", o)
			}
		})
	}
}

// TestResourceGroupThatDoesNotExist: ARM answers 403 AuthorizationFailed,
// not 404, when an identity whose role is scoped to the cluster's resource
// group reads one that does not exist. The bad-input corpus found that
// this told the user to grant a permission; it names the field instead.
func TestResourceGroupThatDoesNotExist(t *testing.T) {
	w := newWorld(t)
	ns := env.NewNamespace(t)
	hcp := azureHCP(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
	az := hcp.Spec.Platform.Azure
	az.SubscriptionID, az.ResourceGroupName, az.VnetID, az.SubnetID, az.Location = customer, "no-such-group", guestVNet, guestSubnet, location
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		t.Fatal(err)
	}
	v := &Validator{Client: env.Client, Cloud: &ARMFactory{Credential: w.cpoIdentity(), Options: w.f.AzureClientOptions()}, Tracker: &outcome.Tracker{Now: w.clk.Now}}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)}
	if _, err := v.Reconcile(w.ctx, req); err != nil {
		t.Fatal(err)
	}
	got := &hcplinkv1beta1.HostedControlPlane{}
	if err := env.Client.Get(w.ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.AzureConfigurationValidCondition)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.AzureResourceGroupNotFoundReason ||
		!strings.Contains(cond.Message, "no-such-group") || !strings.Contains(cond.Message, "spec.platform.azure.resourceGroup") {
		t.Fatalf("condition %+v", cond)
	}
}

// TestInvalidSettingsCreateNothing: an Azure cluster whose location is not
// its VNet's gets AzureConfigurationValid=False naming the field, after one
// read and no write anywhere; its private router gets no load-balancer
// Service (so no Private Link Service, NAT subnet or endpoint follows).
// Once corrected it is checked again (a new generation) and the Service is
// made; a valid generation is never checked again.
func TestInvalidSettingsCreateNothing(t *testing.T) {
	w := newWorld(t)
	ns := env.NewNamespace(t)
	hcp := azureHCP(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
	az := hcp.Spec.Platform.Azure
	az.SubscriptionID, az.ResourceGroupName, az.VnetID, az.SubnetID, az.Location = customer, guestRG, guestVNet, guestSubnet, "westeurope"
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		t.Fatal(err)
	}
	v := &Validator{Client: env.Client, Cloud: &ARMFactory{Credential: w.cpoIdentity(), Options: w.f.AzureClientOptions()}, Tracker: &outcome.Tracker{Now: w.clk.Now}}
	rt := &routers.Reconciler{Client: env.Client, MayCreate: MayCreateRouters, Annotations: platform.New(platform.Platform{
		Type: hcplinkv1beta1.AzurePlatform, RouterAnnotations: RouterAnnotations, RouterAnnotationKeys: azurecloud.RouterAnnotationKeys})}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)}
	get := func() *hcplinkv1beta1.HostedControlPlane {
		got := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(w.ctx, req.NamespacedName, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	privateRouter := func() *corev1.Service {
		svc := &corev1.Service{}
		err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}, svc)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}

	w.f.Server.Counters.Reset()
	res, err := v.Reconcile(w.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(get().Status.Conditions, hcplinkv1beta1.AzureConfigurationValidCondition)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.AzureLocationMismatchReason ||
		!strings.Contains(cond.Message, "spec.platform.azure.location") || leakPattern.MatchString(cond.Message) {
		t.Fatalf("condition %+v", cond)
	}
	if res.RequeueAfter <= 0 {
		t.Errorf("invalid settings are never rechecked")
	}
	if _, err := rt.Reconcile(w.ctx, req); err != nil {
		t.Fatal(err)
	}
	if svc := privateRouter(); svc != nil {
		t.Fatal("the private router got its load-balancer Service for invalid settings")
	}
	if c := meta.FindStatusCondition(get().Status.Conditions, hcplinkv1beta1.RoutersReadyCondition); c == nil || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, "AzureConfigurationValid") {
		t.Errorf("RoutersReady %+v", c)
	}
	snap := w.f.Server.Counters.Snapshot()
	var total, mutating int64
	for _, count := range snap[customer] {
		total, mutating = total+count.Total, mutating+count.Mutating
	}
	// One read: the VNet, found in the cluster's resource group, proves
	// the group exists.
	if total != 1 || mutating != 0 || len(snap[provider]) != 0 {
		t.Errorf("the check made %d calls (%d mutating) in the customer's subscription and %v in the provider's; want 1 read (the VNet) and nothing else", total, mutating, snap[provider])
	}

	// A cluster whose subnet does not exist yet is rechecked at growing
	// intervals; once the customer creates it, the Service is made, and a
	// valid generation is never checked again.
	ns2 := env.NewNamespace(t)
	later := azureHCP(ns2, "later", hcplinkv1beta1.AzureTopologyPrivate)
	laz := later.Spec.Platform.Azure
	laz.SubscriptionID, laz.ResourceGroupName, laz.VnetID, laz.SubnetID, laz.Location = customer, guestRG, guestVNet, guestVNet+"/subnets/later", location
	if err := env.Client.Create(w.ctx, later); err != nil {
		t.Fatal(err)
	}
	req = ctrl.Request{NamespacedName: client.ObjectKeyFromObject(later)}
	ns = ns2
	res, err = v.Reconcile(w.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(get().Status.Conditions, hcplinkv1beta1.AzureConfigurationValidCondition); c == nil || c.Reason != hcplinkv1beta1.AzureSubnetNotFoundReason {
		t.Fatalf("condition %+v", c)
	}
	p, err := w.cust.NewSubnetsClient().BeginCreateOrUpdate(w.ctx, guestRG, "guest", "later",
		armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.1.1.0/24")}}, nil)
	done(w, p, err)
	w.clk.Advance(res.RequeueAfter)
	if _, err := v.Reconcile(w.ctx, req); err != nil {
		t.Fatal(err)
	}
	if !ConfigurationValidated(get()) {
		t.Fatalf("settings not validated once the subnet exists: %+v", get().Status.Conditions)
	}
	if _, err := rt.Reconcile(w.ctx, req); err != nil {
		t.Fatal(err)
	}
	if privateRouter() == nil {
		t.Fatal("no private router Service once the settings are valid")
	}
	w.f.Server.Counters.Reset()
	if res, err := v.Reconcile(w.ctx, req); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("Reconcile of a validated generation = %+v, %v", res, err)
	}
	if n := len(w.f.Server.Counters.Snapshot()[customer]); n != 0 {
		t.Errorf("a validated generation was checked again (%d operations)", n)
	}
}
