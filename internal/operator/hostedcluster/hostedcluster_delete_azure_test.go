package hostedcluster

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

// azMgmtSubscription is the management subscription in the Azure leak test.
const azMgmtSubscription = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"

// When the escape hatch gives up an Azure cluster's control-plane side, the
// HostedCluster's CloudResourcesMayHaveLeaked and its Warning event name
// what may remain by name and resource group, and carry no subscription ID
// (issue 18, item 9).
func TestAzureLeakReportNamesNoSubscription(t *testing.T) {
	grace := 10 * time.Minute
	cfg := Config{PrivatePlatform: azureplatform.Name, ControlPlaneOperatorImage: testImage, CleanupGracePeriod: grace,
		ManagementCredentials: credentialsAt{platform.CredentialsValid, time.Now().Add(-time.Hour)}}
	ns := env.NewNamespace(t)
	hc := azureCluster(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
	create(t, hc)
	r, clk := testReconciler(t, cfg)
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)

	pls := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: "private-router", Finalizers: append([]string(nil), cleanupFinalizers...)},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: azSubscription, ResourceGroupName: "customer-rg",
			Location: "eastus", GuestSubnetID: azSubnet, GuestVNetID: azVNet, BaseDomain: "azdemo.example.com"},
	}
	create(t, pls)
	pls.Status = hcplinkv1beta1.AzurePrivateLinkServiceStatus{
		PrivateLinkServiceID: "/subscriptions/" + azMgmtSubscription + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/privateLinkServices/pls-azdemo-4fj2q",
		PrivateEndpointID:    "/subscriptions/" + azSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/privateEndpoints/azdemo-4fj2q-private-router-pe",
		PrivateDNSZoneID:     "/subscriptions/" + azSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/privateDnsZones/demo.hypershift.local",
	}
	if err := env.Client.Status().Update(t.Context(), pls); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	get(t, hc)
	if at := hc.DeletionTimestamp.Time; at.After(clk.Now()) {
		clk.SetTime(at)
	}
	f := &deletionFixture{r: r, clock: clk, hc: hc, cp: cp}
	f.setCredentials(t, metav1.ConditionFalse, clk.Now())
	reconcileOnce(t, r, hc)
	clk.Step(grace)
	reconcileOnce(t, r, hc)

	get(t, hc)
	leak := condition(hc, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition)
	if leak == nil || leak.Status != metav1.ConditionTrue {
		t.Fatalf("CloudResourcesMayHaveLeaked = %+v, want True", leak)
	}
	for _, want := range []string{"azdemo-4fj2q-private-router-pe in resource group customer-rg", "demo.hypershift.local"} {
		if !strings.Contains(leak.Message, want) {
			t.Errorf("CloudResourcesMayHaveLeaked %q does not name %q", leak.Message, want)
		}
	}
	if strings.Contains(leak.Message, azSubscription) || strings.Contains(leak.Message, "/subscriptions/") {
		t.Errorf("CloudResourcesMayHaveLeaked names a subscription: %q", leak.Message)
	}
	testenv.Eventually(t, "a Warning event naming what may have leaked", func() (bool, error) {
		var list eventsv1.EventList
		if err := env.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Regarding.Name != "demo" || e.Type != corev1.EventTypeWarning || e.Reason != CloudResourcesMayHaveLeakedEvent {
				continue
			}
			if strings.Contains(e.Note, azSubscription) || strings.Contains(e.Note, azMgmtSubscription) {
				t.Fatalf("the Warning event names a subscription: %q", e.Note)
			}
			return strings.Contains(e.Note, "azdemo-4fj2q-private-router-pe"), nil
		}
		return false, nil
	})
}
