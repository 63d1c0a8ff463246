package cloudsim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
)

// The stock gcloud CLI against cloudsim. What google-cloud-cli (528) needs,
// found by running it: endpoint overrides for compute and dns
// (CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=URL/compute/v1/,
// ..._DNS=URL/dns/v1/ — plain HTTP is accepted), an access token
// (CLOUDSDK_AUTH_ACCESS_TOKEN, no login), and a configuration directory of
// its own. Nothing else had to be turned off.

type gcloudCLI struct {
	t    *testing.T
	path string
	env  []string
}

func newGcloudCLI(t *testing.T, f *cloudsimtest.Fixture) *gcloudCLI {
	path, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skip("the gcloud CLI is not on PATH (CI installs it: google-cloud-cli from Google's apt repository); skipping the stock-gcloud scenario")
	}
	dir := t.TempDir()
	return &gcloudCLI{t: t, path: path, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"CLOUDSDK_CONFIG=" + filepath.Join(dir, "gcloud"),
		"CLOUDSDK_AUTH_ACCESS_TOKEN=" + gcp.AdminToken,
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=" + f.URL + "/compute/v1/",
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS=" + f.URL + "/dns/v1/",
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_IAM=" + f.URL + "/iam/",
		"CLOUDSDK_CORE_DISABLE_PROMPTS=1",
		"CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=1",
		"CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1",
	}}
}

// run runs one command in a project and decodes its JSON output.
func (c *gcloudCLI) run(project string, args ...string) any {
	c.t.Helper()
	cmd := exec.Command(c.path, append(append([]string{}, args...), "--project="+project, "--format=json")...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("gcloud %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 4))
	}
	var out any
	if b := bytes.TrimSpace(stdout.Bytes()); len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			c.t.Fatalf("gcloud %s: output is not JSON: %v: %s", strings.Join(args, " "), err, b)
		}
	}
	return out
}

// TestStockGcloudScenario: the producer publishes a router through a
// service attachment accepting the customer's project; the customer
// reserves an address and creates the PSC endpoint, which is ACCEPTED, and
// a private zone with the API server's A record; then everything is
// deleted and the control API shows nothing left.
func TestStockGcloudScenario(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	g := newGcloudCLI(t, f)
	mgmt, customer := cloudsimtest.ManagementProject, cloudsimtest.CustomerProject
	region := "--region=" + cloudsimtest.GCPRegion

	g.run(mgmt, "compute", "networks", "create", "management", "--subnet-mode=custom")
	g.run(mgmt, "compute", "networks", "subnets", "create", "nodes", "--network=management", region, "--range=10.0.0.0/24")
	g.run(mgmt, "compute", "networks", "subnets", "create", "psc-nat", "--network=management", region, "--range=10.1.0.0/28", "--purpose=PRIVATE_SERVICE_CONNECT")
	g.run(mgmt, "compute", "forwarding-rules", "create", "router", region, "--load-balancing-scheme=INTERNAL",
		"--backend-service=router", "--network=management", "--subnet=nodes", "--ports=443")
	g.run(mgmt, "compute", "service-attachments", "create", "cluster-a", region, "--producer-forwarding-rule=router",
		"--connection-preference=ACCEPT_MANUAL", "--consumer-accept-list="+customer+"=1", "--nat-subnets=psc-nat")

	g.run(mgmt, "compute", "service-attachments", "update", "cluster-a", region, "--consumer-accept-list="+customer+"=2")
	attachment := fmt.Sprintf("projects/%s/regions/%s/serviceAttachments/cluster-a", mgmt, cloudsimtest.GCPRegion)
	g.run(customer, "compute", "networks", "create", "customer", "--subnet-mode=custom")
	g.run(customer, "compute", "networks", "subnets", "create", "workers", "--network=customer", region, "--range=10.10.0.0/24")
	g.run(customer, "compute", "addresses", "create", "api-endpoint", region, "--subnet=workers")
	g.run(customer, "compute", "forwarding-rules", "create", "api-endpoint", region, "--network=customer",
		"--address=api-endpoint", "--target-service-attachment="+attachment)
	endpoint := g.run(customer, "compute", "forwarding-rules", "describe", "api-endpoint", region).(map[string]any)
	if endpoint["pscConnectionStatus"] != "ACCEPTED" {
		t.Fatalf("the customer's endpoint is %v, want ACCEPTED", endpoint["pscConnectionStatus"])
	}
	if rules := g.run(customer, "compute", "forwarding-rules", "list", "--filter=name=api-endpoint").([]any); len(rules) != 1 {
		t.Fatalf("gcloud compute forwarding-rules list (aggregated): %v, want the endpoint", rules)
	}
	published := g.run(mgmt, "compute", "service-attachments", "describe", "cluster-a", region).(map[string]any)
	if eps, _ := published["connectedEndpoints"].([]any); len(eps) != 1 || eps[0].(map[string]any)["status"] != "ACCEPTED" {
		t.Fatalf("the attachment's connectedEndpoints: %v, want the customer's, ACCEPTED", published["connectedEndpoints"])
	}
	if accept, _ := published["consumerAcceptLists"].([]any); len(accept) != 1 || accept[0].(map[string]any)["connectionLimit"] != 2.0 {
		t.Fatalf("the accept list after gcloud's update: %v, want the customer's with limit 2", published["consumerAcceptLists"])
	}

	g.run(customer, "dns", "managed-zones", "create", "cluster-a", "--dns-name=cluster-a.hypershift.local.",
		"--description=cluster-a", "--visibility=private", "--networks=customer")
	g.run(customer, "dns", "record-sets", "create", "api.cluster-a.hypershift.local.", "--zone=cluster-a",
		"--type=A", "--ttl=60", "--rrdatas="+endpoint["IPAddress"].(string))
	if sets := g.run(customer, "dns", "record-sets", "list", "--zone=cluster-a").([]any); len(sets) != 3 {
		t.Fatalf("record sets: %v, want the A record beside NS and SOA", sets)
	}

	g.run(customer, "dns", "record-sets", "delete", "api.cluster-a.hypershift.local.", "--zone=cluster-a", "--type=A")
	g.run(customer, "dns", "managed-zones", "delete", "cluster-a")
	g.run(customer, "compute", "forwarding-rules", "delete", "api-endpoint", region)
	g.run(customer, "compute", "addresses", "delete", "api-endpoint", region)
	g.run(customer, "compute", "networks", "subnets", "delete", "workers", region)
	g.run(customer, "compute", "networks", "delete", "customer")
	g.run(mgmt, "compute", "service-attachments", "delete", "cluster-a", region)
	g.run(mgmt, "compute", "forwarding-rules", "delete", "router", region)
	g.run(mgmt, "compute", "networks", "subnets", "delete", "psc-nat", region)
	g.run(mgmt, "compute", "networks", "subnets", "delete", "nodes", region)
	g.run(mgmt, "compute", "networks", "delete", "management")

	var state struct {
		GCP struct {
			Resources map[string][]any `json:"resources"`
		} `json:"gcp"`
	}
	f.ControlGet(t, "/_cloudsim/state", &state)
	if len(state.GCP.Resources) != 0 {
		t.Fatalf("left behind after the scenario: %v", state.GCP.Resources)
	}
	calls := f.Server.Counters.Snapshot()
	if calls[customer]["compute.googleapis.com:forwardingRules.insert"].Total != 1 || calls[mgmt]["compute.googleapis.com:serviceAttachments.insert"].Total != 1 ||
		calls[customer]["compute.googleapis.com:forwardingRules.aggregatedList"].Total != 1 {
		t.Fatalf("per-project counters missed gcloud's calls: %v", calls)
	}
}

// TestStockGcloudIAM: gcloud reads and writes IAM's custom roles and
// service accounts on cloudsim, as a person checks what create iam gcp made.
func TestStockGcloudIAM(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	g := newGcloudCLI(t, f)
	mgmt := cloudsimtest.ManagementProject
	g.run(mgmt, "iam", "roles", "create", "hcplinkTester", "--permissions=compute.networks.list,compute.networks.get", "--stage=GA", "--title=tester")
	role := g.run(mgmt, "iam", "roles", "describe", "hcplinkTester").(map[string]any)
	if perms, _ := role["includedPermissions"].([]any); len(perms) != 2 || role["name"] != "projects/"+mgmt+"/roles/hcplinkTester" {
		t.Fatalf("gcloud iam roles describe: %v", role)
	}
	g.run(mgmt, "iam", "service-accounts", "create", "hcplink-operator", "--display-name=operator")
	accounts := g.run(mgmt, "iam", "service-accounts", "list").([]any)
	if len(accounts) != 1 || accounts[0].(map[string]any)["email"] != "hcplink-operator@"+mgmt+".iam.gserviceaccount.com" {
		t.Fatalf("gcloud iam service-accounts list: %v", accounts)
	}
	g.run(mgmt, "iam", "service-accounts", "add-iam-policy-binding", "hcplink-operator@"+mgmt+".iam.gserviceaccount.com",
		"--role=roles/iam.workloadIdentityUser", "--member=serviceAccount:"+mgmt+".svc.id.goog[hcplink/hcplink-operator]")
	policy := g.run(mgmt, "iam", "service-accounts", "get-iam-policy", "hcplink-operator@"+mgmt+".iam.gserviceaccount.com").(map[string]any)
	if bindings, _ := policy["bindings"].([]any); len(bindings) != 1 {
		t.Fatalf("gcloud iam service-accounts get-iam-policy: %v", policy)
	}
	g.run(mgmt, "iam", "workload-identity-pools", "create", "hcplink", "--location=global", "--description=made by gcloud")
	g.run(mgmt, "iam", "workload-identity-pools", "providers", "create-oidc", "mgmt", "--location=global", "--workload-identity-pool=hcplink",
		"--issuer-uri=https://oidc.example.com", "--attribute-mapping=google.subject=assertion.sub")
	provider := g.run(mgmt, "iam", "workload-identity-pools", "providers", "describe", "mgmt", "--location=global", "--workload-identity-pool=hcplink").(map[string]any)
	if provider["state"] != "ACTIVE" {
		t.Fatalf("gcloud iam workload-identity-pools providers describe: %v", provider)
	}
	g.run(mgmt, "iam", "service-accounts", "delete", "hcplink-operator@"+mgmt+".iam.gserviceaccount.com")
	g.run(mgmt, "iam", "roles", "delete", "hcplinkTester")
	if got := g.run(mgmt, "iam", "roles", "describe", "hcplinkTester").(map[string]any); got["deleted"] != true {
		t.Fatalf("the role after gcloud iam roles delete: %v, want deleted", got)
	}
}

func staticTokens(token string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})
}
