package aws

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const stsCall = "sts:GetCallerIdentity"

func hostedControlPlane(namespace string, platform hcplinkv1beta1.PlatformSpec) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: namespace},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"},
				},
			}},
			Platform: platform,
		},
	}
}

func awsPlatform(access hcplinkv1beta1.AWSEndpointAccessType) hcplinkv1beta1.PlatformSpec {
	p := hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{Region: cloudsimtest.Region, EndpointAccess: access}}
	if access != hcplinkv1beta1.AWSEndpointAccessPublic {
		p.AWS.CloudProviderConfig = &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"}
		p.AWS.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::" + cloudsimtest.CustomerAccount + ":role/demo-cpo"}
	}
	return p
}

func createPrivateHCP(t *testing.T) *hcplinkv1beta1.HostedControlPlane {
	t.Helper()
	hcp := hostedControlPlane(env.NewNamespace(t), awsPlatform(hcplinkv1beta1.AWSEndpointAccessPrivate))
	if err := env.Client.Create(t.Context(), hcp); err != nil {
		t.Fatalf("creating HostedControlPlane: %v", err)
	}
	return hcp
}

func reconcile(t *testing.T, r *credentials.Reconciler, hcp *hcplinkv1beta1.HostedControlPlane) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	return res
}

func credentialsCond(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane) *metav1.Condition {
	t.Helper()
	var got hcplinkv1beta1.HostedControlPlane
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), &got); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	if c != nil && c.ObservedGeneration != got.Generation {
		t.Errorf("observedGeneration %d, want %d", c.ObservedGeneration, got.Generation)
	}
	return c
}

func requireCondition(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane, status metav1.ConditionStatus, reason, message string) *metav1.Condition {
	t.Helper()
	c := credentialsCond(t, hcp)
	if c == nil {
		t.Fatalf("no %s condition", hcplinkv1beta1.ValidCloudCredentialsCondition)
	}
	if c.Status != status || c.Reason != reason || !strings.Contains(c.Message, message) {
		t.Fatalf("%s = %s/%s %q, want %s/%s containing %q", c.Type, c.Status, c.Reason, c.Message, status, reason, message)
	}
	return c
}

func requireRequeue(t *testing.T, res ctrl.Result, base time.Duration) {
	t.Helper()
	if res.RequeueAfter < base || res.RequeueAfter > base+time.Duration(credentials.RecheckJitter*float64(base)) {
		t.Errorf("RequeueAfter %v, want %v plus at most %.0f%% jitter", res.RequeueAfter, base, credentials.RecheckJitter*100)
	}
}

func TestValidKeys(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	hcp := createPrivateHCP(t)
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: f.Config(t, cloudsimtest.CustomerAccount)}}
	res := reconcile(t, r, hcp)
	requireCondition(t, hcp, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, "arn:aws:iam::"+cloudsimtest.CustomerAccount+":root")
	requireRequeue(t, res, credentials.ValidRecheckInterval)
	if n := f.Calls(cloudsimtest.CustomerAccount)[stsCall].Total; n != 1 {
		t.Errorf("%d GetCallerIdentity calls, want 1", n)
	}
}

// TestInvalidThenFixed: an STS key AWS does not know is invalid; when the
// credentials are fixed the condition turns True.
func TestInvalidThenFixed(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	hcp := createPrivateHCP(t)
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: f.ConfigWithKeys(t, "ASIAUNKNOWN", "secret", "session")}}
	res := reconcile(t, r, hcp)
	invalid := requireCondition(t, hcp, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason, "InvalidClientTokenId")
	requireRequeue(t, res, credentials.InvalidRecheckInterval)

	r.Checker = &CredentialsChecker{AWS: f.Config(t, cloudsimtest.CustomerAccount)}
	reconcile(t, r, hcp)
	valid := requireCondition(t, hcp, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, "authenticate")
	if valid.LastTransitionTime.Before(&invalid.LastTransitionTime) {
		t.Errorf("lastTransitionTime went back: %v then %v", invalid.LastTransitionTime, valid.LastTransitionTime)
	}
}

func TestThrottledIsUnknown(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{Faults: &sim.FaultConfig{Errors: []sim.ErrorRule{{
		Service: "sts", Operation: "GetCallerIdentity", Code: "Throttling", Message: "Rate exceeded", HTTPStatus: 400, Rate: 1,
	}}}})
	hcp := createPrivateHCP(t)
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: f.Config(t, cloudsimtest.CustomerAccount)}}
	res := reconcile(t, r, hcp)
	requireCondition(t, hcp, metav1.ConditionUnknown, hcplinkv1beta1.ThrottledReason, "Throttling")
	requireRequeue(t, res, credentials.UnknownRecheckInterval)
}

func TestUnreachableIsUnknown(t *testing.T) {
	hcp := createPrivateHCP(t)
	// Nothing listens on port 1.
	cfg := aws.Config{Region: cloudsimtest.Region, BaseEndpoint: aws.String("http://127.0.0.1:1"), RetryMaxAttempts: 1, Credentials: staticKeys{}}
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: cfg}}
	reconcile(t, r, hcp)
	requireCondition(t, hcp, metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason, "Could not reach AWS STS")
}

type staticKeys struct{}

func (staticKeys) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: cloudsimtest.CustomerAccount, SecretAccessKey: "secret", Source: "test"}, nil
}

// TestOnlyAWSPrivateClusters: public AWS clusters and Azure clusters give
// the control-plane operator no AWS work; nothing is called or written.
func TestOnlyAWSPrivateClusters(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	const sub = "550e8400-e29b-41d4-a716-446655440000"
	vnet := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"
	platforms := map[string]hcplinkv1beta1.PlatformSpec{
		"AWS Public": awsPlatform(hcplinkv1beta1.AWSEndpointAccessPublic),
		"Azure Private": {Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
			SubscriptionID: sub, ResourceGroupName: "rg", Location: "eastus", VnetID: vnet, SubnetID: vnet + "/subnets/w",
			Topology: hcplinkv1beta1.AzureTopologyPrivate, Private: &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
			TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
		}},
	}
	for name, platform := range platforms {
		t.Run(name, func(t *testing.T) {
			hcp := hostedControlPlane(env.NewNamespace(t), platform)
			if err := env.Client.Create(t.Context(), hcp); err != nil {
				t.Fatal(err)
			}
			r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: f.Config(t, cloudsimtest.CustomerAccount)}}
			if res := reconcile(t, r, hcp); res != (ctrl.Result{}) {
				t.Errorf("Reconcile = %+v, want no requeue", res)
			}
			if c := credentialsCond(t, hcp); c != nil {
				t.Errorf("condition written: %+v", c)
			}
			if n := f.Calls(cloudsimtest.CustomerAccount)[stsCall].Total; n != 0 {
				t.Errorf("%d GetCallerIdentity calls, want 0", n)
			}
		})
	}
}

// TestWebIdentity checks the credentials as the control-plane operator
// really gets them: the shared credentials file the operator writes (a
// web-identity profile) and a projected service-account token. A role that
// trusts the service account is valid; one that does not is not.
func TestWebIdentity(t *testing.T) {
	const issuer = "https://oidc.example.com/demo-x7k2p"
	f := cloudsimtest.Start(t, cloudsim.Options{})
	admin := iam.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount))
	provider, err := admin.CreateOpenIDConnectProvider(t.Context(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(issuer), ClientIDList: []string{"sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	trust := func(sa string) *string {
		return aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` +
			aws.ToString(provider.OpenIDConnectProviderArn) + `"},"Action":"sts:AssumeRoleWithWebIdentity",` +
			`"Condition":{"StringEquals":{"oidc.example.com/demo-x7k2p:sub":"` + sa + `"}}}]}`)
	}

	hcp := createPrivateHCP(t)
	sa := "system:serviceaccount:" + hcp.Namespace + ":control-plane-operator"
	trusting, err := admin.CreateRole(t.Context(), &iam.CreateRoleInput{RoleName: aws.String("demo-cpo"), AssumeRolePolicyDocument: trust(sa)})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}
	other, err := admin.CreateRole(t.Context(), &iam.CreateRoleInput{RoleName: aws.String("other-cpo"), AssumeRolePolicyDocument: trust("system:serviceaccount:elsewhere:control-plane-operator")})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}

	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(unsignedJWT(t, map[string]any{
		"iss": issuer, "sub": sa, "aud": []string{"sts.amazonaws.com"}, "exp": time.Now().Add(time.Hour).Unix(),
	})), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(roleARN string) aws.Config {
		file := filepath.Join(dir, "credentials-"+filepath.Base(roleARN))
		content := "[default]\nrole_arn = " + roleARN + "\nweb_identity_token_file = " + token + "\nregion = " + cloudsimtest.Region + "\n"
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := awscloud.LoadConfig(t.Context(),
			config.WithSharedCredentialsFiles([]string{file}), config.WithSharedConfigFiles([]string{}),
			config.WithBaseEndpoint(f.URL), config.WithRetryMaxAttempts(1))
		if err != nil {
			t.Fatal(err)
		}
		awshttp.Apply(&cfg)
		return cfg
	}

	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: load(aws.ToString(trusting.Role.Arn))}}
	reconcile(t, r, hcp)
	requireCondition(t, hcp, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, ":assumed-role/demo-cpo/")

	// A role that does not trust the service account: the message names
	// the role, the issuer and the subject its trust policy must allow.
	r.Checker = &CredentialsChecker{AWS: load(aws.ToString(other.Role.Arn))}
	reconcile(t, r, hcp)
	c := requireCondition(t, hcp, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason, "AccessDenied")
	for _, want := range []string{aws.ToString(other.Role.Arn), issuer, sa} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q does not name %s", c.Message, want)
		}
	}

	// A role that does not exist: the same.
	missing := "arn:aws:iam::" + cloudsimtest.CustomerAccount + ":role/missing-cpo"
	r.Checker = &CredentialsChecker{AWS: load(missing)}
	reconcile(t, r, hcp)
	c = requireCondition(t, hcp, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason, missing)
	for _, want := range []string{issuer, sa} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q does not name %s", c.Message, want)
		}
	}
}

func unsignedJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT"})
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeToString(header) + "." + enc.EncodeToString(payload) + "." + enc.EncodeToString([]byte("unsigned"))
}

// A successful call made with the same configuration vouches for the
// credentials: a recheck of valid credentials then makes no STS call, and
// once calls stop succeeding for the proof window, it asks STS again.
func TestSuccessfulCallsProveTheCredentials(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	hcp := createPrivateHCP(t)
	now := time.Now()
	proof := &awscloud.LastSuccess{Now: func() time.Time { return now }}
	cfg := f.Config(t, cloudsimtest.CustomerAccount)
	proof.Observe(&cfg)
	r := &credentials.Reconciler{Client: env.Client, Checker: &CredentialsChecker{AWS: cfg, Proof: proof}}

	reconcile(t, r, hcp) // the first check asks STS: nothing has proven anything yet
	requireCondition(t, hcp, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, "")
	if n := f.Calls(cloudsimtest.CustomerAccount)[stsCall].Total; n != 1 {
		t.Fatalf("%d GetCallerIdentity calls on the first check, want 1", n)
	}
	now = now.Add(credentials.ValidRecheckInterval)
	res := reconcile(t, r, hcp)
	if n := f.Calls(cloudsimtest.CustomerAccount)[stsCall].Total; n != 1 {
		t.Errorf("%d GetCallerIdentity calls after a recent success, want still 1", n)
	}
	requireRequeue(t, res, credentials.ValidRecheckInterval)
	requireCondition(t, hcp, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, "")

	now = now.Add(credentials.ProofWindow)
	reconcile(t, r, hcp)
	if n := f.Calls(cloudsimtest.CustomerAccount)[stsCall].Total; n != 2 {
		t.Errorf("%d GetCallerIdentity calls once no call succeeded for %v, want 2", n, credentials.ProofWindow)
	}
}
