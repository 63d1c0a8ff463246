package gcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/iamcredentials/v1"
	"google.golang.org/api/option"
	sts "google.golang.org/api/sts/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The control-plane operator's sign-in: golang.org/x/oauth2/google's
// external account credentials exchange the ServiceAccount token at STS and
// impersonate the Google service account through IAM Credentials; the calls
// run as that account and IAM decides them by its bindings.
func TestWorkloadIdentityFederation(t *testing.T) {
	e := start(t)
	p := cloudsimtest.CustomerProject
	w := e.f.AddWorkloadIdentity(t, p, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:hcp:control-plane-operator")
	svc := e.f.Compute(t, e.f.ExternalAccountTokens(t, w, w.ServiceAccountToken(t, w.Signer, e.clock.Now())))

	_, err := svc.Networks.List(p).Do()
	gerr := wantError(t, err, http.StatusForbidden, "forbidden")
	if want := "Required 'compute.networks.list' permission for 'projects/" + p + "/global/networks'"; gerr.Message != want {
		t.Fatalf("denied message %q, want %q", gerr.Message, want)
	}
	member := "serviceAccount:" + w.Email
	if err := e.f.Server.GCP.Grant(p, "roles/compute.networkViewer", member, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Networks.List(p).Do(); err != nil {
		t.Fatalf("listing as the impersonated account with networkViewer: %v", err)
	}
	_, err = svc.Networks.Insert(p, &compute.Network{Name: "nope"}).Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
	evals := e.f.Server.GCP.Evaluations(member)
	if evals["compute.networks.list"] != (gcp.Decision{Allowed: 1, Denied: 1}) || evals["compute.networks.create"].Denied != 1 {
		t.Fatalf("evaluations recorded for %s: %+v", member, evals)
	}
	calls := e.f.Server.GCP.PrincipalCalls()[member]
	if calls["compute.googleapis.com:networks.list"].Total != 2 {
		t.Fatalf("per-principal calls: %+v", calls)
	}
}

// A token signed by a key the issuer does not publish is refused by STS,
// and nothing is called.
func TestWorkloadIdentityRefusesAForgedToken(t *testing.T) {
	e := start(t)
	p := cloudsimtest.CustomerProject
	w := e.f.AddWorkloadIdentity(t, p, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:hcp:control-plane-operator")
	forged := w.ServiceAccountToken(t, sim.NewSigner(), e.clock.Now())
	svc := e.f.Compute(t, e.f.ExternalAccountTokens(t, w, forged))
	_, err := svc.Networks.List(p).Do()
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("listing with a forged ServiceAccount token: %v, want STS's invalid_grant", err)
	}
	if calls := e.f.Calls(p)["compute.googleapis.com:networks.list"]; calls.Total != 0 {
		t.Fatalf("compute was called %d times with a forged token", calls.Total)
	}
}

// A ServiceAccount the service account's policy does not name cannot
// impersonate it, even with a good token.
func TestImpersonationNeedsTheBinding(t *testing.T) {
	e := start(t)
	p := cloudsimtest.CustomerProject
	w := e.f.AddWorkloadIdentity(t, p, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:hcp:control-plane-operator")
	w.Subject = "system:serviceaccount:other:intruder"
	svc := e.f.Compute(t, e.f.ExternalAccountTokens(t, w, w.ServiceAccountToken(t, w.Signer, e.clock.Now())))
	_, err := svc.Networks.List(p).Do()
	if err == nil || !strings.Contains(err.Error(), "iam.serviceAccounts.getAccessToken") {
		t.Fatalf("impersonating without roles/iam.workloadIdentityUser: %v, want the getAccessToken denial", err)
	}
}

// A custom role grants exactly its permissions, and a condition on
// resource.name narrows a binding.
func TestCustomRolesAndConditions(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	e.network(t, p, "management", "nodes", "10.0.0.0/24")
	if _, err := e.f.Server.GCP.AddCustomRole(p, "pscReader", []string{"compute.subnetworks.get", "compute.subnetworks.list"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Server.GCP.AddCustomRole(p, "typo", []string{"compute.subnetworks.gett"}); err == nil {
		t.Fatal("a custom role with an unknown permission was accepted")
	}
	member := "serviceAccount:operator@" + p + ".iam.gserviceaccount.com"
	if err := e.f.Server.GCP.Grant(p, "projects/"+p+"/roles/pscReader", member, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.f.Server.GCP.Grant(p, "roles/compute.networkViewer", member,
		&gcp.Expr{Expression: `resource.name.startsWith("projects/` + p + `/global/networks/management")`}); err != nil {
		t.Fatal(err)
	}
	svc := e.f.Compute(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	if _, err := svc.Subnetworks.Get(p, region, "nodes").Do(); err != nil {
		t.Fatalf("get with the custom role: %v", err)
	}
	if _, err := svc.Networks.Get(p, "management").Do(); err != nil {
		t.Fatalf("get under the condition: %v", err)
	}
	_, err := svc.Networks.List(p).Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
	_, err = svc.Subnetworks.Delete(p, region, "nodes").Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
}

// Cloud Resource Manager's getIamPolicy and setIamPolicy: a set with a
// stale etag is refused with 409, so that concurrent edits do not lose
// each other's bindings; the new binding takes effect at once.
func TestProjectPolicyReadModifyWrite(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	url := e.f.URL + "/cloudresourcemanager/v1/projects/" + p
	policy := postJSON[gcp.Policy](t, url+":getIamPolicy", gcp.AdminToken, `{}`, http.StatusOK)
	member := "serviceAccount:operator@" + p + ".iam.gserviceaccount.com"
	policy.Bindings = append(policy.Bindings, gcp.Binding{Role: "roles/compute.networkViewer", Members: []string{member}})
	body, _ := json.Marshal(map[string]any{"policy": policy})
	updated := postJSON[gcp.Policy](t, url+":setIamPolicy", gcp.AdminToken, string(body), http.StatusOK)
	if updated.Etag == policy.Etag {
		t.Fatal("the etag did not change")
	}
	postJSON[map[string]any](t, url+":setIamPolicy", gcp.AdminToken, string(body), http.StatusConflict)
	svc := e.f.Compute(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	if _, err := svc.Networks.List(p).Do(); err != nil {
		t.Fatalf("listing after the binding: %v", err)
	}
	postJSON[map[string]any](t, url+":getIamPolicy", e.f.Server.GCP.IssueToken(member), `{}`, http.StatusForbidden)
}

func postJSON[T any](t *testing.T, url, token, body string, wantStatus int) T {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out T
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("POST %s: %s %s, want %d", url, resp.Status, raw, wantStatus)
	}
	_ = json.Unmarshal(raw, &out)
	return out
}

// The same exchange through the generated STS and IAM Credentials clients,
// which speak JSON where the oauth2 library posts a form.
func TestSTSAndIAMCredentialsClients(t *testing.T) {
	e := start(t)
	p := cloudsimtest.CustomerProject
	w := e.f.AddWorkloadIdentity(t, p, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:hcp:control-plane-operator")
	stsSvc, err := sts.NewService(ctx, option.WithEndpoint(e.f.URL+"/sts/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	exchanged, err := stsSvc.V1.Token(&sts.GoogleIdentityStsV1ExchangeTokenRequest{
		GrantType: "urn:ietf:params:oauth:grant-type:token-exchange", Audience: w.Audience(),
		SubjectToken: w.ServiceAccountToken(t, w.Signer, e.clock.Now()), SubjectTokenType: "urn:ietf:params:oauth:token-type:jwt",
		RequestedTokenType: "urn:ietf:params:oauth:token-type:access_token", Scope: compute.CloudPlatformScope,
	}).Do()
	if err != nil || exchanged.AccessToken == "" || exchanged.ExpiresIn != 3600 {
		t.Fatalf("STS exchange: %+v, %v", exchanged, err)
	}
	creds, err := iamcredentials.NewService(ctx, option.WithEndpoint(e.f.URL+"/iamcredentials/"), option.WithTokenSource(staticToken(exchanged.AccessToken)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = creds.Projects.ServiceAccounts.GenerateAccessToken("projects/-/serviceAccounts/"+w.Email,
		&iamcredentials.GenerateAccessTokenRequest{Scope: []string{compute.CloudPlatformScope}, Lifetime: "7200s"}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid") // longer than the default maximum of an hour
	tok, err := creds.Projects.ServiceAccounts.GenerateAccessToken("projects/-/serviceAccounts/"+w.Email,
		&iamcredentials.GenerateAccessTokenRequest{Scope: []string{compute.CloudPlatformScope}, Lifetime: "600s"}).Do()
	if err != nil || tok.AccessToken == "" || tok.ExpireTime != e.clock.Now().Add(10*time.Minute).UTC().Format(time.RFC3339) {
		t.Fatalf("generateAccessToken: %+v, %v", tok, err)
	}
	e.clock.Advance(11 * time.Minute)
	_, err = e.f.Compute(t, staticToken(tok.AccessToken)).Networks.List(p).Do()
	wantError(t, err, http.StatusUnauthorized, "authError") // expired on the sim clock
}

// STS refuses bad exchanges with the OAuth error clients classify.
func TestSTSRefusals(t *testing.T) {
	e := start(t)
	w := e.f.AddWorkloadIdentity(t, cloudsimtest.CustomerProject, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:hcp:control-plane-operator")
	good := w.ServiceAccountToken(t, w.Signer, e.clock.Now())
	expired := w.ServiceAccountToken(t, w.Signer, e.clock.Now().Add(-2*time.Hour))
	otherAudience, _ := w.Signer.Sign(map[string]any{"iss": w.Issuer, "sub": w.Subject, "aud": "kubernetes", "exp": e.clock.Now().Add(time.Hour).Unix()})
	for _, tc := range []struct {
		name, grant, audience, token, want string
	}{
		{"wrong grant type", "client_credentials", w.Audience(), good, "unsupported_grant_type"},
		{"wrong grant type, no token", "client_credentials", w.Audience(), "", "unsupported_grant_type"},
		{"unknown provider", grantExchange, "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/x/providers/y", good, "invalid_target"},
		{"expired token", grantExchange, w.Audience(), expired, "invalid_grant"},
		{"token for another audience", grantExchange, w.Audience(), otherAudience, "invalid_grant"},
		{"not a token", grantExchange, w.Audience(), "garbage", "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"grant_type": {tc.grant}, "audience": {tc.audience}, "subject_token": {tc.token},
				"subject_token_type": {"urn:ietf:params:oauth:token-type:jwt"}, "requested_token_type": {"urn:ietf:params:oauth:token-type:access_token"}}
			resp, err := http.PostForm(e.f.URL+"/sts/v1/token", form)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error string `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != http.StatusBadRequest || body.Error != tc.want {
				t.Fatalf("%s %q, want 400 %q", resp.Status, body.Error, tc.want)
			}
		})
	}
}

const grantExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
