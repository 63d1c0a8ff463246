package gcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/oauth2/google"
	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
)

// A service account key file, read by golang.org/x/oauth2/google as any
// Google key file is, signs in at cloudsim's token endpoint: the calls run
// as the account, and IAM decides them by its bindings.
func TestServiceAccountKeySignIn(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	sa, err := e.f.Server.GCP.AddServiceAccount(p, "hcplink-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile, err := e.f.Server.GCP.AddServiceAccountKey(sa.Email, e.f.URL+"/oauth2/token")
	if err != nil {
		t.Fatal(err)
	}
	creds, err := google.CredentialsFromJSONWithType(context.Background(), keyFile, google.ServiceAccount, compute.CloudPlatformScope)
	if err != nil {
		t.Fatalf("reading the key file: %v", err)
	}
	svc := e.f.Compute(t, creds.TokenSource)
	_, err = svc.Networks.List(p).Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
	member := "serviceAccount:" + sa.Email
	if err := e.f.Server.GCP.Grant(p, "roles/compute.networkViewer", member, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Networks.List(p).Do(); err != nil {
		t.Fatalf("listing as the key's account with networkViewer: %v", err)
	}
	if d := e.f.Server.GCP.Evaluations(member)["compute.networks.list"]; d != (gcp.Decision{Allowed: 1, Denied: 1}) {
		t.Fatalf("evaluations recorded for %s: %+v", member, d)
	}
	if calls := e.f.Calls("global")["oauth2.googleapis.com:token"]; calls.Total != 1 {
		t.Fatalf("token endpoint calls: %+v, want one (the token is reused)", calls)
	}
}

// A key file whose key cloudsim did not issue for the account is refused
// with invalid_grant, and nothing is called.
func TestServiceAccountKeyOfAnotherAccountIsRefused(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	a, _ := e.f.Server.GCP.AddServiceAccount(p, "account-a", "")
	b, _ := e.f.Server.GCP.AddServiceAccount(p, "account-b", "")
	keyOfB, err := e.f.Server.GCP.AddServiceAccountKey(b.Email, e.f.URL+"/oauth2/token")
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(keyOfB), b.Email, a.Email, 1) // b's key, claiming to be a
	creds, err := google.CredentialsFromJSONWithType(context.Background(), []byte(forged), google.ServiceAccount, compute.CloudPlatformScope)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.f.Compute(t, creds.TokenSource).Networks.List(p).Do()
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("signing in with another account's key: %v, want invalid_grant", err)
	}
	if _, err := e.f.Server.GCP.AddServiceAccountKey("nobody@"+p+".iam.gserviceaccount.com", e.f.URL+"/oauth2/token"); err == nil {
		t.Fatal("a key was made for an account that does not exist")
	}
}
