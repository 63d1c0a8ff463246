package azureprivatelink

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestNoIdentityIsACondition: a control-plane operator without an Azure
// identity says so in the condition instead of failing silently.
func TestNoIdentityIsACondition(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, nil)
	c.r.Cloud = &ARMFactory{}
	_, err := c.r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)})
	if err == nil {
		t.Fatal("no error for controller-runtime's backoff")
	}
	got := condition(c.get(), hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
	if got.Status != metav1.ConditionUnknown || got.Reason != hcplinkv1beta1.InternalErrorReason || !strings.Contains(got.Message, "no Azure identity") {
		t.Errorf("condition %+v", got)
	}
}

// TestNoIdentityNeverFallsBack: a control-plane operator started without
// a workload identity, on a node whose managed identity answers (the stand-in
// below speaks the managed-identity endpoint's protocol, as the node's
// would), never signs in as that identity: the endpoint controller creates
// nothing in Azure, and the node's identity is never asked for a token.
// (The credentials check's half of this is in platform/azure.)
func TestNoIdentityNeverFallsBack(t *testing.T) {
	w := newWorld(t)
	var asked atomic.Int32
	node := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]string{
			"access_token": "the-node-identity", "token_type": "Bearer", "resource": r.URL.Query().Get("resource"),
			"expires_on": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10),
		})
	}))
	t.Cleanup(node.Close)
	t.Setenv("IDENTITY_ENDPOINT", node.URL)
	t.Setenv("IDENTITY_HEADER", "node-secret")
	// What the control-plane operator reads from a pod without identity
	// variables: cloudsim's endpoints and CA, nothing else.
	cfg := azurecloud.Config{Cloud: azurecloud.CloudConfiguration(w.f.URL, w.f.URL, cloudsimtest.ARMAudience), CACertPEM: w.f.Server.CACertPEM()}
	factory := &ARMFactory{Config: &cfg}

	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, nil)
	c.r.Cloud = factory
	if _, err := c.r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)}); err == nil {
		t.Error("the endpoint controller reports no error without an identity")
	}
	pager := w.cust.NewPrivateEndpointsClient().NewListPager(guestRG, nil)
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Value) > 0 {
			t.Errorf("a Private Endpoint was created without an identity: %s", *page.Value[0].Name)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the node's managed identity was asked for %d tokens; the control-plane operator must never fall back to it", n)
	}
}
