package gcp_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"testing"
	"time"

	"golang.org/x/oauth2/google"
	crm "google.golang.org/api/cloudresourcemanager/v1"
	"google.golang.org/api/compute/v1"
	iam "google.golang.org/api/iam/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// IAM's admin API over the wire with google.golang.org/api/iam/v1 and
// cloudresourcemanager/v1: what hcplink create iam gcp calls.

// A custom role is created, read, patched and deleted; deleted, it grants
// nothing and its ID cannot be taken again until it is undeleted.
func TestCustomRolesOverTheWire(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	admin := e.f.IAM(t, cloudsimtest.GCPAdminTokens())
	parent := "projects/" + p
	role, err := admin.Projects.Roles.Create(parent, &iam.CreateRoleRequest{RoleId: "tester",
		Role: &iam.Role{Title: "t", Description: "made by a test", Stage: "GA", IncludedPermissions: []string{"compute.networks.list"}}}).Do()
	if err != nil || role.Name != parent+"/roles/tester" || role.Etag == "" || role.Deleted {
		t.Fatalf("create: %+v, %v", role, err)
	}
	_, err = admin.Projects.Roles.Create(parent, &iam.CreateRoleRequest{RoleId: "tester", Role: &iam.Role{}}).Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")
	_, err = admin.Projects.Roles.Create(parent, &iam.CreateRoleRequest{RoleId: "bad", Role: &iam.Role{IncludedPermissions: []string{"compute.nothing.done"}}}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")

	member := "serviceAccount:someone@" + p + ".iam.gserviceaccount.com"
	if err := e.f.Server.GCP.Grant(p, role.Name, member, nil); err != nil {
		t.Fatal(err)
	}
	svc := e.f.Compute(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	if _, err := svc.Networks.List(p).Do(); err != nil {
		t.Fatalf("listing with the role: %v", err)
	}
	patched, err := admin.Projects.Roles.Patch(role.Name, &iam.Role{IncludedPermissions: []string{"compute.networks.get"}}).UpdateMask("includedPermissions").Do()
	if err != nil || !slices.Equal(patched.IncludedPermissions, []string{"compute.networks.get"}) || patched.Title != "t" {
		t.Fatalf("patch: %+v, %v", patched, err)
	}
	_, err = admin.Projects.Roles.Patch(role.Name, &iam.Role{Etag: role.Etag, Title: "stale"}).UpdateMask("title").Do()
	wantError(t, err, http.StatusConflict, "aborted")
	if _, err := svc.Networks.List(p).Do(); err == nil {
		t.Fatal("listing after the permission was patched out of the role succeeded")
	}

	deleted, err := admin.Projects.Roles.Delete(role.Name).Do()
	if err != nil || !deleted.Deleted {
		t.Fatalf("delete: %+v, %v", deleted, err)
	}
	if got, err := admin.Projects.Roles.Get(role.Name).Do(); err != nil || !got.Deleted {
		t.Fatalf("get after delete: %+v, %v; want it, deleted", got, err)
	}
	if l, err := admin.Projects.Roles.List(parent).Do(); err != nil || len(l.Roles) != 0 {
		t.Fatalf("list without showDeleted: %+v, %v; want none", l, err)
	}
	_, err = admin.Projects.Roles.Create(parent, &iam.CreateRoleRequest{RoleId: "tester", Role: &iam.Role{}}).Do()
	wantError(t, err, http.StatusBadRequest, "failedPrecondition")
	_, err = svc.Networks.Get(p, "any").Do()
	wantError(t, err, http.StatusForbidden, "forbidden") // a deleted role grants nothing
	if r, err := admin.Projects.Roles.Undelete(role.Name, &iam.UndeleteRoleRequest{}).Do(); err != nil || r.Deleted {
		t.Fatalf("undelete: %+v, %v", r, err)
	}
	_, err = svc.Networks.Get(p, "any").Do()
	wantError(t, err, http.StatusNotFound, "notFound")
}

// Without iam.roles.create the call is refused with IAM's 403 and the
// decision is recorded; roles/iam.roleAdmin grants it.
func TestIAMAdminCallsArePermissionChecked(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	member := "user:installer@example.com"
	as := e.f.IAM(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	req := &iam.CreateRoleRequest{RoleId: "tester", Role: &iam.Role{IncludedPermissions: []string{"compute.networks.list"}}}
	_, err := as.Projects.Roles.Create("projects/"+p, req).Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
	_, err = as.Projects.ServiceAccounts.Create("projects/"+p, &iam.CreateServiceAccountRequest{AccountId: "someone"}).Do()
	wantError(t, err, http.StatusForbidden, "forbidden")
	if err := e.f.Server.GCP.Grant(p, "roles/iam.roleAdmin", member, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := as.Projects.Roles.Create("projects/"+p, req).Do(); err != nil {
		t.Fatalf("create as roleAdmin: %v", err)
	}
	evals := e.f.Server.GCP.Evaluations(member)
	if evals["iam.roles.create"] != (gcp.Decision{Allowed: 1, Denied: 1}) || evals["iam.serviceAccounts.create"].Denied != 1 {
		t.Fatalf("evaluations: %+v", evals)
	}
}

// A service account, its own policy (who may impersonate it), a key that
// signs in through the oauth2 library, and its deletion, which leaves its
// project bindings as deleted members as IAM does.
func TestServiceAccountsPoliciesAndKeysOverTheWire(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	admin := e.f.IAM(t, cloudsimtest.GCPAdminTokens())
	sa, err := admin.Projects.ServiceAccounts.Create("projects/"+p, &iam.CreateServiceAccountRequest{AccountId: "hcplink-operator",
		ServiceAccount: &iam.ServiceAccount{DisplayName: "op", Description: "made by hcplink"}}).Do()
	if err != nil || sa.Email != "hcplink-operator@"+p+".iam.gserviceaccount.com" || sa.UniqueId == "" || sa.Description != "made by hcplink" {
		t.Fatalf("create: %+v, %v", sa, err)
	}
	_, err = admin.Projects.ServiceAccounts.Create("projects/"+p, &iam.CreateServiceAccountRequest{AccountId: "hcplink-operator"}).Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")
	if got, err := admin.Projects.ServiceAccounts.Get("projects/-/serviceAccounts/" + sa.Email).Do(); err != nil || got.UniqueId != sa.UniqueId {
		t.Fatalf("get by projects/-: %+v, %v", got, err)
	}
	_, err = admin.Projects.ServiceAccounts.Get("projects/" + p + "/serviceAccounts/nobody@" + p + ".iam.gserviceaccount.com").Do()
	wantError(t, err, http.StatusNotFound, "notFound")
	if l, err := admin.Projects.ServiceAccounts.List("projects/" + p).Do(); err != nil || len(l.Accounts) != 1 {
		t.Fatalf("list: %+v, %v", l, err)
	}

	resource := "projects/" + p + "/serviceAccounts/" + sa.Email
	policy, err := admin.Projects.ServiceAccounts.GetIamPolicy(resource).Do()
	if err != nil {
		t.Fatal(err)
	}
	subject := "principal://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/subject/s"
	policy.Bindings = append(policy.Bindings, &iam.Binding{Role: "roles/iam.workloadIdentityUser", Members: []string{subject}})
	if _, err := admin.Projects.ServiceAccounts.SetIamPolicy(resource, &iam.SetIamPolicyRequest{Policy: policy}).Do(); err != nil {
		t.Fatalf("setIamPolicy: %v", err)
	}
	_, err = admin.Projects.ServiceAccounts.SetIamPolicy(resource, &iam.SetIamPolicyRequest{Policy: policy}).Do()
	wantError(t, err, http.StatusConflict, "aborted")

	key, err := admin.Projects.ServiceAccounts.Keys.Create(resource, &iam.CreateServiceAccountKeyRequest{}).Do()
	if err != nil || key.PrivateKeyData == "" {
		t.Fatalf("key: %+v, %v", key, err)
	}
	file, _ := base64.StdEncoding.DecodeString(key.PrivateKeyData)
	creds, err := google.CredentialsFromJSON(context.Background(), file, compute.CloudPlatformScope)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.f.Server.GCP.Grant(p, "roles/compute.networkViewer", "serviceAccount:"+sa.Email, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Compute(t, creds.TokenSource).Networks.List(p).Do(); err != nil {
		t.Fatalf("listing signed in with the key from the API: %v", err)
	}
	if _, err := admin.Projects.ServiceAccounts.Keys.Delete(key.Name).Do(); err != nil {
		t.Fatal(err)
	}
	if l, err := admin.Projects.ServiceAccounts.Keys.List(resource).Do(); err != nil || len(l.Keys) != 0 {
		t.Fatalf("keys after delete: %+v, %v", l, err)
	}

	if _, err := admin.Projects.ServiceAccounts.Delete(resource).Do(); err != nil {
		t.Fatal(err)
	}
	rm := e.f.ResourceManager(t, cloudsimtest.GCPAdminTokens())
	pp, err := rm.Projects.GetIamPolicy(p, &crm.GetIamPolicyRequest{}).Do()
	if err != nil {
		t.Fatal(err)
	}
	want := "deleted:serviceAccount:" + sa.Email + "?uid=" + sa.UniqueId
	if !slices.ContainsFunc(pp.Bindings, func(b *crm.Binding) bool { return slices.Contains(b.Members, want) }) {
		t.Fatalf("the project's bindings after the account's deletion: %+v; want %s", pp.Bindings, want)
	}
	if got, err := rm.Projects.Get(p).Do(); err != nil || got.ProjectNumber != 100000000001 {
		t.Fatalf("projects.get: %+v, %v", got, err)
	}
}

// A pool and its OIDC provider answer long-running operations, done once
// the operation delay has passed; STS signs in through the provider until
// it is deleted, and again once it is undeleted.
func TestPoolsAndProvidersOverTheWire(t *testing.T) {
	e := start(t)
	p, number := cloudsimtest.CustomerProject, cloudsimtest.CustomerProjectNumber
	admin := e.f.IAM(t, cloudsimtest.GCPAdminTokens())
	parent := "projects/" + p + "/locations/global"
	op, err := admin.Projects.Locations.WorkloadIdentityPools.Create(parent, &iam.WorkloadIdentityPool{DisplayName: "hcplink", Description: "made by hcplink"}).
		WorkloadIdentityPoolId("hcplink").Do()
	if err != nil || op.Done {
		t.Fatalf("create pool: %+v, %v; want a running operation", op, err)
	}
	e.clock.Advance(time.Second)
	if op, err = admin.Projects.Locations.WorkloadIdentityPools.Operations.Get(op.Name).Do(); err != nil || !op.Done {
		t.Fatalf("the pool's operation a second later: %+v, %v; want done", op, err)
	}
	pool := "projects/" + number + "/locations/global/workloadIdentityPools/hcplink"
	if got, err := admin.Projects.Locations.WorkloadIdentityPools.Get(pool).Do(); err != nil || got.State != "ACTIVE" || got.Description != "made by hcplink" {
		t.Fatalf("get pool: %+v, %v", got, err)
	}
	_, err = admin.Projects.Locations.WorkloadIdentityPools.Create(parent, &iam.WorkloadIdentityPool{}).WorkloadIdentityPoolId("hcplink").Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")
	_, err = admin.Projects.Locations.WorkloadIdentityPools.Providers.Create(pool, &iam.WorkloadIdentityPoolProvider{
		Oidc: &iam.Oidc{IssuerUri: "https://issuer.test"}}).WorkloadIdentityPoolProviderId("mgmt").Do()
	wantError(t, err, http.StatusBadRequest, "invalid") // no google.subject mapping

	w := &cloudsimtest.WorkloadIdentity{Issuer: "https://issuer.test/cluster", Subject: "system:serviceaccount:hcp:control-plane-operator"}
	w.Signer = sim.NewSigner()
	e.f.Server.GCP.SetIssuerKeys(w.Issuer, w.Signer.JWKS())
	if _, err := admin.Projects.Locations.WorkloadIdentityPools.Providers.Create(pool, &iam.WorkloadIdentityPoolProvider{
		AttributeMapping: map[string]string{"google.subject": "assertion.sub"}, Oidc: &iam.Oidc{IssuerUri: w.Issuer}}).
		WorkloadIdentityPoolProviderId("mgmt").Do(); err != nil {
		t.Fatalf("create provider: %v", err)
	}
	e.clock.Advance(time.Second)
	w.Provider = gcp.Provider{ProjectNumber: number, PoolID: "hcplink", ProviderID: "mgmt", IssuerURI: w.Issuer}
	sa, err := admin.Projects.ServiceAccounts.Create("projects/"+p, &iam.CreateServiceAccountRequest{AccountId: "cpo-cluster"}).Do()
	if err != nil {
		t.Fatal(err)
	}
	w.Email = sa.Email
	resource := "projects/-/serviceAccounts/" + sa.Email
	_, err = admin.Projects.ServiceAccounts.SetIamPolicy(resource, &iam.SetIamPolicyRequest{Policy: &iam.Policy{Bindings: []*iam.Binding{{
		Role: "roles/iam.workloadIdentityUser", Members: []string{"principal://iam.googleapis.com/" + pool + "/subject/" + w.Subject}}}}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.f.Server.GCP.Grant(p, "roles/compute.networkViewer", "serviceAccount:"+sa.Email, nil); err != nil {
		t.Fatal(err)
	}
	signIn := func() error {
		_, err := e.f.Compute(t, e.f.ExternalAccountTokens(t, w, w.ServiceAccountToken(t, w.Signer, e.clock.Now()))).Networks.List(p).Do()
		return err
	}
	if err := signIn(); err != nil {
		t.Fatalf("signing in through the provider made over the wire: %v", err)
	}
	provider := pool + "/providers/mgmt"
	if _, err := admin.Projects.Locations.WorkloadIdentityPools.Providers.Delete(provider).Do(); err != nil {
		t.Fatal(err)
	}
	if err := signIn(); err == nil {
		t.Fatal("signed in through a deleted provider")
	}
	if _, err := admin.Projects.Locations.WorkloadIdentityPools.Providers.Undelete(provider, &iam.UndeleteWorkloadIdentityPoolProviderRequest{}).Do(); err != nil {
		t.Fatal(err)
	}
	if err := signIn(); err != nil {
		t.Fatalf("signing in after the undelete: %v", err)
	}
	if _, err := admin.Projects.Locations.WorkloadIdentityPools.Delete(pool).Do(); err != nil {
		t.Fatal(err)
	}
	if err := signIn(); err == nil {
		t.Fatal("signed in through a deleted pool")
	}
}

// serviceAccounts.list pages as IAM does: 20 a page by default, up to 100
// on request, the next page by its token; the Go client's Pages follows it.
func TestServiceAccountsListPages(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	admin := e.f.IAM(t, cloudsimtest.GCPAdminTokens())
	for i := range 25 {
		if _, err := e.f.Server.GCP.AddServiceAccount(p, "account-"+string(rune('a'+i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	first, err := admin.Projects.ServiceAccounts.List("projects/" + p).Do()
	if err != nil || len(first.Accounts) != 20 || first.NextPageToken == "" {
		t.Fatalf("first page: %d accounts, token %q, %v; want 20 and a token", len(first.Accounts), first.NextPageToken, err)
	}
	rest, err := admin.Projects.ServiceAccounts.List("projects/" + p).PageToken(first.NextPageToken).Do()
	if err != nil || len(rest.Accounts) != 5 || rest.NextPageToken != "" {
		t.Fatalf("second page: %d accounts, token %q, %v; want the other 5 and no token", len(rest.Accounts), rest.NextPageToken, err)
	}
	if all, err := admin.Projects.ServiceAccounts.List("projects/" + p).PageSize(500).Do(); err != nil || len(all.Accounts) != 25 {
		t.Fatalf("pageSize 500 (capped at 100): %d accounts, %v", len(all.Accounts), err)
	}
	var seen []string
	if err := admin.Projects.ServiceAccounts.List("projects/"+p).PageSize(7).Pages(t.Context(), func(page *iam.ListServiceAccountsResponse) error {
		for _, sa := range page.Accounts {
			seen = append(seen, sa.Email)
		}
		return nil
	}); err != nil || len(slices.Compact(slices.Sorted(slices.Values(seen)))) != 25 {
		t.Fatalf("Pages: %d accounts (%d distinct), %v", len(seen), len(slices.Compact(slices.Sorted(slices.Values(seen)))), err)
	}
	_, err = admin.Projects.ServiceAccounts.List("projects/" + p).PageToken("not-a-token").Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
}
