package gcpiam_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	crm "google.golang.org/api/cloudresourcemanager/v1"
	"google.golang.org/api/compute/v1"
	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/infra/gcpiam"
)

const issuer = "https://oidc.management.example.com"

var ctx = context.Background()

func clients(t *testing.T, f *cloudsimtest.Fixture, tokens oauth2.TokenSource) gcpiam.Clients {
	t.Helper()
	c, err := gcpiam.NewClients(ctx, tokens, f.URL+"/iam/", f.URL+"/cloudresourcemanager/")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func clusterOptions(infraID, name string) gcpiam.Options {
	return gcpiam.Options{InfraID: infraID, Namespace: "clusters", Name: name, IssuerURL: issuer, ProjectID: cloudsimtest.CustomerProject}
}

// signIn is the control-plane operator's sign-in through what Create
// made: its projected token for subject, exchanged at the output's
// provider, then the output's service account impersonated.
func signIn(t *testing.T, f *cloudsimtest.Fixture, signer *sim.Signer, out *gcpiam.Output, subject string) *compute.Service {
	t.Helper()
	parts := strings.Split(out.PoolProvider, "/")
	w := &cloudsimtest.WorkloadIdentity{Issuer: issuer, Signer: signer, Subject: subject, Email: out.ServiceAccount,
		Provider: gcp.Provider{ProjectNumber: parts[1], PoolID: parts[5], ProviderID: parts[7], IssuerURI: issuer}}
	return f.Compute(t, f.ExternalAccountTokens(t, w, w.ServiceAccountToken(t, signer, time.Now())))
}

func status(err error) int {
	if ge, ok := gcpcloud.APIError(err); ok {
		return ge.Code
	}
	return 0
}

// writes counts the calls that change IAM (create, patch, delete,
// undelete, setIamPolicy) made so far.
func writes(f *cloudsimtest.Fixture) int {
	n := 0
	for _, ops := range f.Server.GCP.PrincipalCalls() {
		for op, c := range ops {
			admin := strings.HasPrefix(op, "iam.googleapis.com:") || strings.HasPrefix(op, "cloudresourcemanager.googleapis.com:")
			if admin && !strings.HasSuffix(op, ".get") && !strings.HasSuffix(op, ".list") && !strings.HasSuffix(op, ".getIamPolicy") {
				n += int(c.Total)
			}
		}
	}
	return n
}

// A cluster's identity end to end: made as a principal holding only
// CreatorRoles; the cluster's control-plane operator signs in through it
// and holds exactly its role; another subject cannot; running Create again
// writes nothing; a second cluster shares the pool, provider and role,
// which go only with the last cluster; created again, they are undeleted.
func TestClusterIdentityCreateSignInDestroy(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	p := cloudsimtest.CustomerProject
	signer := sim.NewSigner()
	f.Server.GCP.SetIssuerKeys(issuer, signer.JWKS())
	creator := "user:platform-team@example.com"
	for _, role := range gcpiam.CreatorRoles {
		if err := f.Server.GCP.Grant(p, role, creator, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := clients(t, f, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.Server.GCP.IssueToken(creator)}))

	out, err := gcpiam.Create(ctx, c, io.Discard, clusterOptions("demo-x1", "demo"))
	if err != nil {
		t.Fatalf("create as the creator roles: %v", err)
	}
	wantProvider := "projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink/providers/" + gcpiam.ProviderID(issuer)
	if out.ServiceAccount != "cpo-demo-x1@"+p+".iam.gserviceaccount.com" || out.PoolProvider != wantProvider ||
		out.Subject != "system:serviceaccount:clusters-demo:control-plane-operator" {
		t.Fatalf("output %+v", out)
	}
	if denied := deniedOf(f, creator); len(denied) != 0 {
		t.Fatalf("the creator roles were denied %v", denied)
	}
	svc := signIn(t, f, signer, out, out.Subject)
	_, err = svc.Addresses.Get(p, cloudsimtest.GCPRegion, "none").Do()
	if status(err) != http.StatusNotFound {
		t.Fatalf("reading an address as the cluster's identity: %v; want 404 (allowed, absent)", err)
	}
	_, err = svc.Networks.List(p).Do()
	if status(err) != http.StatusForbidden {
		t.Fatalf("listing networks as the cluster's identity: %v; want 403, outside its role", err)
	}
	if _, err := signIn(t, f, signer, out, "system:serviceaccount:clusters-other:control-plane-operator").Addresses.Get(p, cloudsimtest.GCPRegion, "none").Do(); err == nil || status(err) == http.StatusNotFound {
		t.Fatalf("another cluster's control-plane operator signed in as this one: %v", err)
	}

	before := writes(f)
	if _, err := gcpiam.Create(ctx, c, io.Discard, clusterOptions("demo-x1", "demo")); err != nil {
		t.Fatal(err)
	}
	if n := writes(f) - before; n != 0 {
		t.Fatalf("running create again made %d writes; want 0", n)
	}
	second, err := gcpiam.Create(ctx, c, io.Discard, clusterOptions("demo-x2", "demo2"))
	if err != nil || second.PoolProvider != out.PoolProvider {
		t.Fatalf("second cluster: %+v, %v; want the same provider", second, err)
	}

	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	if err := gcpiam.Destroy(ctx, c, io.Discard, clusterOptions("demo-x1", "demo")); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.IAM.Projects.ServiceAccounts.Get("projects/-/serviceAccounts/" + out.ServiceAccount).Do(); status(err) != http.StatusForbidden && status(err) != http.StatusNotFound {
		t.Fatalf("the first cluster's account after destroy: %v; want it gone", err)
	}
	if members := roleMembers(t, admin, p, "projects/"+p+"/roles/hcplinkControlPlaneOperator"); !slices.Equal(members, []string{"serviceAccount:" + second.ServiceAccount}) {
		t.Fatalf("the role's members after the first destroy: %v; want only the second cluster's", members)
	}
	if _, err := signIn(t, f, signer, second, second.Subject).Addresses.Get(p, cloudsimtest.GCPRegion, "none").Do(); status(err) != http.StatusNotFound {
		t.Fatalf("the second cluster after the first's destroy: %v; want it still signed in", err)
	}
	if err := gcpiam.Destroy(ctx, c, io.Discard, clusterOptions("demo-x2", "demo2")); err != nil {
		t.Fatal(err)
	}
	if role, err := admin.IAM.Projects.Roles.Get("projects/" + p + "/roles/hcplinkControlPlaneOperator").Do(); err != nil || !role.Deleted {
		t.Fatalf("the role after the last destroy: %+v, %v; want it deleted", role, err)
	}
	if got, err := admin.IAM.Projects.Locations.WorkloadIdentityPools.Providers.Get(out.PoolProvider).Do(); err != nil || got.State != "DELETED" {
		t.Fatalf("the provider after the last destroy: %+v, %v; want DELETED", got, err)
	}
	if members := roleMembers(t, admin, p, "projects/"+p+"/roles/hcplinkControlPlaneOperator"); len(members) != 0 {
		t.Fatalf("bindings left: %v", members)
	}

	again, err := gcpiam.Create(ctx, c, io.Discard, clusterOptions("demo-x1", "demo"))
	if err != nil {
		t.Fatalf("create after destroy (the pool, provider and role were deleted, not purged): %v", err)
	}
	if _, err := signIn(t, f, signer, again, again.Subject).Addresses.Get(p, cloudsimtest.GCPRegion, "none").Do(); status(err) != http.StatusNotFound {
		t.Fatalf("signing in after the undeletes: %v", err)
	}
}

// Nothing hcplink did not make is adopted or deleted: an account of the
// cluster's name that is someone else's is refused and left; a custom role
// of hcplink's ID that is someone else's is refused; another member of the
// project's bindings and a pool someone made stay through destroy.
func TestClusterIdentityLeavesWhatItDidNotMake(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	p := cloudsimtest.CustomerProject
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	if _, err := f.Server.GCP.AddServiceAccount(p, "cpo-taken", "a customer's"); err != nil {
		t.Fatal(err)
	}
	_, err := gcpiam.Create(ctx, admin, io.Discard, clusterOptions("taken", "taken"))
	if err == nil || !strings.Contains(err.Error(), "hcplink did not make it") {
		t.Fatalf("create over a customer's account: %v; want a refusal", err)
	}
	if err := gcpiam.Destroy(ctx, admin, io.Discard, clusterOptions("taken", "taken")); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.IAM.Projects.ServiceAccounts.Get("projects/-/serviceAccounts/cpo-taken@" + p + ".iam.gserviceaccount.com").Do(); err != nil {
		t.Fatalf("the customer's account after destroy: %v", err)
	}

	other := clusterOptions("theirs-1", "theirs")
	other.ProjectID = "other-project"
	f.AddGCPProject(t, other.ProjectID, "300000000003")
	if _, err := f.Server.GCP.AddCustomRole(other.ProjectID, gcpcloud.RoleID(gcpcloud.ControlPlaneOperator), []string{"compute.networks.list"}); err != nil {
		t.Fatal(err)
	}
	if _, err := gcpiam.Create(ctx, admin, io.Discard, other); err == nil || !strings.Contains(err.Error(), "custom role") {
		t.Fatalf("create over a customer's role of hcplink's ID: %v; want a refusal", err)
	}

	op, err := admin.IAM.Projects.Locations.WorkloadIdentityPools.Create("projects/"+p+"/locations/global", &iam.WorkloadIdentityPool{Description: "the customer's"}).
		WorkloadIdentityPoolId("hcplink").Do()
	if err != nil || op == nil {
		t.Fatal(err)
	}
	if err := f.Server.GCP.Grant(p, "roles/viewer", "user:auditor@example.com", nil); err != nil {
		t.Fatal(err)
	}
	o := clusterOptions("mine-1", "mine")
	if _, err := gcpiam.Create(ctx, admin, io.Discard, o); err != nil {
		t.Fatal(err)
	}
	if err := gcpiam.Destroy(ctx, admin, io.Discard, o); err != nil {
		t.Fatal(err)
	}
	pool, err := admin.IAM.Projects.Locations.WorkloadIdentityPools.Get("projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink").Do()
	if err != nil || pool.State != "ACTIVE" {
		t.Fatalf("the customer's pool after destroy: %+v, %v; want it left ACTIVE", pool, err)
	}
	if members := roleMembers(t, admin, p, "roles/viewer"); !slices.Equal(members, []string{"user:auditor@example.com"}) {
		t.Fatalf("roles/viewer after destroy: %v; want the auditor kept", members)
	}
}

// The management operator's identity, signed in with the key written by
// CreateOperator, holds exactly the management operator's role; a second
// run keeps the key; with workload identity install's ServiceAccount as
// GKE names it may act as the account; destroy removes both.
func TestOperatorIdentity(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	p := cloudsimtest.ManagementProject
	creator := "user:platform-team@example.com"
	for _, role := range gcpiam.CreatorRoles {
		if err := f.Server.GCP.Grant(p, role, creator, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := clients(t, f, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.Server.GCP.IssueToken(creator)}))
	keyFile := filepath.Join(t.TempDir(), "operator-key.json")
	o := gcpiam.OperatorOptions{ProjectID: p, KeyFile: keyFile}
	out, err := gcpiam.CreateOperator(ctx, c, io.Discard, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.InstallFlags, []string{"--private-platform", "GCP", "--gcp-project", p, "--gcp-creds", keyFile}) {
		t.Fatalf("install flags %v", out.InstallFlags)
	}
	key, _ := os.ReadFile(keyFile)
	creds, err := google.CredentialsFromJSON(ctx, key, compute.CloudPlatformScope)
	if err != nil {
		t.Fatal(err)
	}
	svc := f.Compute(t, creds.TokenSource)
	if _, err := svc.ServiceAttachments.List(p, cloudsimtest.GCPRegion).Do(); err != nil {
		t.Fatalf("listing attachments with the key: %v", err)
	}
	if _, err := svc.Networks.List(p).Do(); status(err) != http.StatusForbidden {
		t.Fatalf("listing networks with the key: %v; want 403, outside the management role", err)
	}
	before := writes(f)
	if _, err := gcpiam.CreateOperator(ctx, c, io.Discard, o); err != nil {
		t.Fatal(err)
	}
	if n := writes(f) - before; n != 0 {
		t.Fatalf("running create --operator again made %d writes; want 0 (the key kept)", n)
	}
	o.KeyFile, o.WorkloadIdentity, o.Namespace = "", true, "hcplink"
	wi, err := gcpiam.CreateOperator(ctx, c, io.Discard, o)
	if err != nil || wi.Member != "serviceAccount:"+p+".svc.id.goog[hcplink/hcplink-operator]" {
		t.Fatalf("workload identity: %+v, %v", wi, err)
	}
	policy, err := c.IAM.Projects.ServiceAccounts.GetIamPolicy("projects/-/serviceAccounts/" + out.ServiceAccount).Do()
	if err != nil || len(policy.Bindings) != 1 || !slices.Equal(policy.Bindings[0].Members, []string{wi.Member}) {
		t.Fatalf("the account's policy: %+v, %v", policy, err)
	}
	if err := gcpiam.DestroyOperator(ctx, c, io.Discard, o); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ServiceAttachments.List(p, cloudsimtest.GCPRegion).Do(); err == nil {
		t.Fatal("the key still signs in after destroy --operator")
	}
	if denied := deniedOf(f, creator); len(denied) != 0 {
		t.Fatalf("the creator roles were denied %v", denied)
	}
}

func deniedOf(f *cloudsimtest.Fixture, principal string) []string {
	var out []string
	for perm, d := range f.Server.GCP.Evaluations(principal) {
		if d.Denied > 0 {
			out = append(out, perm)
		}
	}
	return out
}

func roleMembers(t *testing.T, c gcpiam.Clients, project, role string) []string {
	t.Helper()
	policy, err := c.ResourceManager.Projects.GetIamPolicy(project, &crm.GetIamPolicyRequest{}).Do()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range policy.Bindings {
		if b.Role == role {
			return b.Members
		}
	}
	return nil
}

// A destroy that stopped after deleting the account (here: the account
// deleted behind its back) finishes when run again: the shared role,
// provider and pool it made go.
func TestDestroyFinishesWhenRunAgain(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	p := cloudsimtest.CustomerProject
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	out, err := gcpiam.Create(ctx, admin, io.Discard, clusterOptions("half-1", "half"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.IAM.Projects.ServiceAccounts.Delete("projects/-/serviceAccounts/" + out.ServiceAccount).Do(); err != nil {
		t.Fatal(err)
	}
	if err := gcpiam.Destroy(ctx, admin, io.Discard, clusterOptions("half-1", "half")); err != nil {
		t.Fatal(err)
	}
	if role, err := admin.IAM.Projects.Roles.Get("projects/" + p + "/roles/hcplinkControlPlaneOperator").Do(); err != nil || !role.Deleted {
		t.Fatalf("the role after destroy without the account: %+v, %v; want it deleted", role, err)
	}
	if got, err := admin.IAM.Projects.Locations.WorkloadIdentityPools.Providers.Get(out.PoolProvider).Do(); err != nil || got.State != "DELETED" {
		t.Fatalf("the provider after destroy without the account: %+v, %v; want DELETED", got, err)
	}
}

// Two customer projects' clusters on one Shared VPC host project: the
// host's role, which both are granted, stays until the last of them goes.
func TestSharedVPCHostRoleStaysWhileUsed(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	host := cloudsimtest.ManagementProject // any other project serves as the host
	f.AddGCPProject(t, "second-customer", "300000000003")
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	a, b := clusterOptions("shared-a", "a"), clusterOptions("shared-b", "b")
	b.ProjectID = "second-customer"
	a.NetworkProjectID, b.NetworkProjectID = host, host
	for _, o := range []gcpiam.Options{a, b} {
		if _, err := gcpiam.Create(ctx, admin, io.Discard, o); err != nil {
			t.Fatal(err)
		}
	}
	role := "projects/" + host + "/roles/hcplinkControlPlaneOperator"
	if err := gcpiam.Destroy(ctx, admin, io.Discard, a); err != nil {
		t.Fatal(err)
	}
	if got, err := admin.IAM.Projects.Roles.Get(role).Do(); err != nil || got.Deleted {
		t.Fatalf("the host's role after the first project's last cluster went: %+v, %v; want it kept for the other", got, err)
	}
	if err := gcpiam.Destroy(ctx, admin, io.Discard, b); err != nil {
		t.Fatal(err)
	}
	if got, err := admin.IAM.Projects.Roles.Get(role).Do(); err != nil || !got.Deleted {
		t.Fatalf("the host's role after both: %+v, %v; want it deleted", got, err)
	}
}

// Trust, as devenv calls it at start, makes the pool and provider a
// cluster's Create then finds: Create makes no pool or provider of its own.
func TestTrustIsWhatCreateFinds(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	o := clusterOptions("trusted-1", "trusted")
	provider, err := gcpiam.Trust(ctx, admin, io.Discard, gcpiam.Options{ProjectID: o.ProjectID, IssuerURL: issuer})
	if err != nil {
		t.Fatal(err)
	}
	out, err := gcpiam.Create(ctx, admin, io.Discard, o)
	if err != nil || out.PoolProvider != provider {
		t.Fatalf("create after trust: %+v, %v; want the provider %s", out, err, provider)
	}
	calls := f.Server.GCP.PrincipalCalls()[gcp.AdminPrincipal]
	for _, op := range []string{"projects.locations.workloadIdentityPools.create", "projects.locations.workloadIdentityPools.providers.create"} {
		if n := calls["iam.googleapis.com:"+op].Total; n != 1 {
			t.Errorf("%s called %d times; want once, by Trust", op, n)
		}
	}
}

// A project with more service accounts than IAM lists in one page (20):
// destroying one cluster's identity keeps the shared pool, provider and
// role while another cluster's account, on the second page, still uses
// them.
func TestDestroyReadsEveryPageOfAccounts(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	p := cloudsimtest.CustomerProject
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	first, second := clusterOptions("paged-x1", "paged1"), clusterOptions("paged-x2", "paged2")
	for _, o := range []gcpiam.Options{first, second} {
		if _, err := gcpiam.Create(ctx, admin, io.Discard, o); err != nil {
			t.Fatal(err)
		}
	}
	// Accounts of the customer's whose emails sort before hcplink's, so
	// that the second cluster's is on the second page.
	for i := range 20 {
		if _, err := f.Server.GCP.AddServiceAccount(p, "aaa-"+strconv.Itoa(100+i), "the customer's"); err != nil {
			t.Fatal(err)
		}
	}
	page, err := admin.IAM.Projects.ServiceAccounts.List("projects/" + p).Do()
	if err != nil || page.NextPageToken == "" {
		t.Fatalf("the first page of %d accounts has no next page (%v): the test proves nothing", len(page.Accounts), err)
	}
	if err := gcpiam.Destroy(ctx, admin, io.Discard, first); err != nil {
		t.Fatal(err)
	}
	role, err := admin.IAM.Projects.Roles.Get("projects/" + p + "/roles/" + gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)).Do()
	if err != nil || role.Deleted {
		t.Fatalf("the shared role after destroying one of two clusters: %+v, %v; want it kept for the other", role, err)
	}
	pool, err := admin.IAM.Projects.Locations.WorkloadIdentityPools.Get("projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink").Do()
	if err != nil || pool.State != "ACTIVE" {
		t.Fatalf("the shared pool after destroying one of two clusters: %+v, %v; want it ACTIVE", pool, err)
	}
}

// A permission IAM will not put in a custom role (support level
// NOT_SUPPORTED) refuses the role; create says which predefined role to
// bind instead, as hcplink permissions gcp --explain does.
func TestCreateNamesThePredefinedRoleWhenIAMRefusesAPermission(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	admin := clients(t, f, cloudsimtest.GCPAdminTokens())
	f.Server.GCP.SetCustomRolesSupport("compute.forwardingRules.pscCreate", "NOT_SUPPORTED")
	_, err := gcpiam.Create(ctx, admin, io.Discard, clusterOptions("refused-x1", "refused"))
	if err == nil {
		t.Fatal("IAM refused a permission of the role, and create succeeded")
	}
	for _, want := range []string{"compute.forwardingRules.pscCreate is not valid", "compute.forwardingRules.pscCreate: roles/compute.networkAdmin on the customer's project"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("create's error does not say %q:\n%v", want, err)
		}
	}
	// Another refusal (not the role's content) says nothing of roles.
	err = gcpiam.Destroy(ctx, clients(t, f, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.Server.GCP.IssueToken("user:nobody@example.com")})),
		io.Discard, clusterOptions("refused-x1", "refused"))
	if err == nil || strings.Contains(err.Error(), "bind instead") {
		t.Fatalf("a denied destroy: %v", err)
	}
}
