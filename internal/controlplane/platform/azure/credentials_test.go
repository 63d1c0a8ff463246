package azure

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/controlplane/azureprivatelink"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// leakPattern matches what a condition message must never carry: URLs,
// IDs, subscription paths, request or correlation IDs, JSON.
var leakPattern = regexp.MustCompile(`(?i)(https?://|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|/subscriptions/|request ?id|correlation|[{}])`)

// privateHCP is an Azure HostedControlPlane with the private
// configuration, in namespace.
func privateHCP(namespace string) *hcplinkv1beta1.HostedControlPlane {
	const sub = cloudsimtest.CustomerSubscription
	vnet := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/guest"
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: namespace},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID: "demo-x7k2p", ClusterID: "0f0e0d0c-0b0a-4908-8706-050403020100",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}},
				{Service: hcplinkv1beta1.OAuthServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "oauth.demo.example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: sub, ResourceGroupName: "rg", Location: "eastus", VnetID: vnet, SubnetID: vnet + "/subnets/workers",
				Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}},
		},
	}
}

// check runs the credentials controller once with factory and returns the
// condition it wrote and its requeue.
func check(t *testing.T, factory *azureprivatelink.ARMFactory) (*metav1.Condition, ctrl.Result) {
	t.Helper()
	ns := env.NewNamespace(t)
	hcp := privateHCP(ns)
	if err := env.Client.Create(t.Context(), hcp); err != nil {
		t.Fatal(err)
	}
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{Cloud: factory}}
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), hcp); err != nil {
		t.Fatal(err)
	}
	got := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	if got != nil && got.ObservedGeneration != hcp.Generation {
		t.Errorf("condition of generation %d, want %d", got.ObservedGeneration, hcp.Generation)
	}
	return got, res
}

// TestCredentialsCheck asks cloudsim's Entra ID for tokens through
// azidentity: a working identity is True, a refused one False with a clean
// message (the escape hatch may then give up the cleanup), and an
// authority that does not answer is Unknown.
func TestCredentialsCheck(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	good := f.AzureServicePrincipal(t, "cpo")
	bad := good
	bad.ClientSecret = "not-the-secret"
	for _, tt := range []struct {
		name       string
		factory    *azureprivatelink.ARMFactory
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		{"valid", &azureprivatelink.ARMFactory{Credential: f.AzureCredential(t, good), Options: f.AzureClientOptions()}, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason},
		{"refused", &azureprivatelink.ARMFactory{Credential: f.AzureCredential(t, bad), Options: f.AzureClientOptions()}, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, res := check(t, tt.factory)
			if got == nil || got.Status != tt.wantStatus || got.Reason != tt.wantReason {
				t.Fatalf("condition %+v", got)
			}
			if leakPattern.MatchString(got.Message) {
				t.Errorf("message leaks: %q", got.Message)
			}
			if res.RequeueAfter < 30*time.Second {
				t.Errorf("recheck after %v", res.RequeueAfter)
			}
		})
	}
	if c := CredentialsCondition(errors.New("dial tcp: connection refused")); c.Status != metav1.ConditionUnknown || c.Reason != hcplinkv1beta1.CredentialCheckFailedReason {
		t.Errorf("unreachable authority: %+v", c)
	}
}

// TestNoIdentityNeverFallsBack: a control-plane operator started without
// a workload identity, on a node whose managed identity answers (the
// stand-in below speaks the managed-identity endpoint's protocol, as the
// node's would), never signs in as that identity: ValidCloudCredentials
// is False with IdentityNotConfigured naming the HostedCluster fields, and
// the node's identity is never asked for a token. (The endpoint
// controller's half of this is in azureprivatelink.)
func TestNoIdentityNeverFallsBack(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
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
	cfg := azurecloud.Config{Cloud: azurecloud.CloudConfiguration(f.URL, f.URL, cloudsimtest.ARMAudience), CACertPEM: f.Server.CACertPEM()}

	got, _ := check(t, &azureprivatelink.ARMFactory{Config: &cfg})
	if got == nil || got.Status != metav1.ConditionFalse || got.Reason != hcplinkv1beta1.IdentityNotConfiguredReason {
		t.Fatalf("ValidCloudCredentials = %+v, want False/%s", got, hcplinkv1beta1.IdentityNotConfiguredReason)
	}
	for _, field := range []string{"spec.platform.azure.tenantID", "azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID"} {
		if !strings.Contains(got.Message, field) {
			t.Errorf("message %q does not name %s", got.Message, field)
		}
	}
	if leakPattern.MatchString(got.Message) {
		t.Errorf("message leaks: %q", got.Message)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the node's managed identity was asked for %d tokens; the control-plane operator must never fall back to it", n)
	}
}
