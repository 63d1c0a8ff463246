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

	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/testenv"
)

// awsCLI runs the stock aws CLI against cloudsim as one account. The
// endpoint goes on every command line: the CLI packaged by Debian (2.9)
// predates AWS_ENDPOINT_URL.
type awsCLI struct {
	t        *testing.T
	path     string
	endpoint string
	account  string
	env      []string
}

func newAWSCLI(t *testing.T, endpoint, account string) *awsCLI {
	path, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the aws CLI is not on PATH (CI installs it: apt-get install awscli); skipping the stock-CLI scenario")
	}
	if version, err := exec.Command(path, "--version").CombinedOutput(); err == nil {
		t.Logf("%s as %s: %s", path, account, bytes.TrimSpace(version))
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return &awsCLI{t: t, path: path, endpoint: endpoint, account: account, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir, // keeps the CLI's caches and the developer's ~/.aws out of the test
		"AWS_ACCESS_KEY_ID=" + account,
		"AWS_SECRET_ACCESS_KEY=x",
		"AWS_DEFAULT_REGION=" + cloudsimtest.Region,
		"AWS_CONFIG_FILE=" + empty,
		"AWS_SHARED_CREDENTIALS_FILE=" + empty,
		"AWS_PAGER=",
		"AWS_EC2_METADATA_DISABLED=true",
	}}
}

// try runs one command and returns its decoded JSON output, or the CLI's
// error text when it exits non-zero.
func (c *awsCLI) try(args ...string) (map[string]any, error) {
	c.t.Helper()
	full := append(append([]string{}, args...), "--endpoint-url", c.endpoint, "--output", "json")
	cmd := exec.Command(c.path, full...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("aws %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	out := map[string]any{}
	if b := bytes.TrimSpace(stdout.Bytes()); len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("aws %s: output is not JSON: %v: %s", strings.Join(args, " "), err, b)
		}
	}
	return out, nil
}

func (c *awsCLI) run(args ...string) map[string]any {
	c.t.Helper()
	out, err := c.try(args...)
	if err != nil {
		c.t.Fatalf("[%s] %v", c.account, err)
	}
	return out
}

// field walks a decoded document: names index objects, numbers index lists.
func field(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("looking up %v: %q is not in %v", path, k, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("looking up %v: no item %d in %v", path, k, v)
			}
			v = l[k]
		}
	}
	return v
}

func str(t *testing.T, v any, path ...any) string {
	t.Helper()
	s, ok := field(t, v, path...).(string)
	if !ok {
		t.Fatalf("%v of %v is not a string", path, v)
	}
	return s
}

// TestStockAWSCLIScenario drives a PrivateLink setup and teardown across two
// accounts with nothing but the aws CLI, and checks that nothing is left.
func TestStockAWSCLIScenario(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	mgmt := newAWSCLI(t, f.URL, cloudsimtest.ManagementAccount)
	cust := newAWSCLI(t, f.URL, cloudsimtest.CustomerAccount)

	// Management account: VPC, two subnets, an internal NLB, an endpoint service.
	mVPC := str(t, mgmt.run("ec2", "create-vpc", "--cidr-block", "10.0.0.0/16"), "Vpc", "VpcId")
	var mSubnets []string
	for i, az := range []string{"us-east-1a", "us-east-1b"} {
		out := mgmt.run("ec2", "create-subnet", "--vpc-id", mVPC, "--cidr-block", fmt.Sprintf("10.0.%d.0/24", i+1), "--availability-zone", az)
		mSubnets = append(mSubnets, str(t, out, "Subnet", "SubnetId"))
	}
	lb := mgmt.run("elbv2", "create-load-balancer", "--name", "private-router", "--type", "network", "--scheme", "internal",
		"--subnets", mSubnets[0], mSubnets[1])
	lbARN := str(t, lb, "LoadBalancers", 0, "LoadBalancerArn")
	testenv.Eventually(t, "the NLB is active", func() bool {
		out := mgmt.run("elbv2", "describe-load-balancers", "--load-balancer-arns", lbARN)
		return str(t, out, "LoadBalancers", 0, "State", "Code") == "active"
	})
	svc := mgmt.run("ec2", "create-vpc-endpoint-service-configuration", "--network-load-balancer-arns", lbARN, "--no-acceptance-required")
	serviceID := str(t, svc, "ServiceConfiguration", "ServiceId")
	serviceName := str(t, svc, "ServiceConfiguration", "ServiceName")
	testenv.Eventually(t, "the endpoint service is available", func() bool {
		out := mgmt.run("ec2", "describe-vpc-endpoint-service-configurations", "--service-ids", serviceID)
		return str(t, out, "ServiceConfigurations", 0, "ServiceState") == "Available"
	})
	mgmt.run("ec2", "modify-vpc-endpoint-service-permissions", "--service-id", serviceID,
		"--add-allowed-principals", "arn:aws:iam::"+cloudsimtest.CustomerAccount+":root")

	// Customer account: sees the service, connects a VPC to it, names it in a private zone.
	details := cust.run("ec2", "describe-vpc-endpoint-services", "--service-names", serviceName)
	if got := str(t, details, "ServiceDetails", 0, "ServiceName"); got != serviceName {
		t.Fatalf("customer sees service %s, want %s", got, serviceName)
	}
	// Zone names differ between accounts: use one the service offers in the customer's own naming.
	customerAZ := str(t, details, "ServiceDetails", 0, "AvailabilityZones", 0)
	cVPC := str(t, cust.run("ec2", "create-vpc", "--cidr-block", "10.1.0.0/16"), "Vpc", "VpcId")
	cSubnet := str(t, cust.run("ec2", "create-subnet", "--vpc-id", cVPC, "--cidr-block", "10.1.1.0/24", "--availability-zone", customerAZ), "Subnet", "SubnetId")
	cSG := str(t, cust.run("ec2", "create-security-group", "--group-name", "private-link", "--description", "hcplink endpoint", "--vpc-id", cVPC), "GroupId")
	ep := cust.run("ec2", "create-vpc-endpoint", "--vpc-endpoint-type", "Interface", "--vpc-id", cVPC, "--service-name", serviceName,
		"--subnet-ids", cSubnet, "--security-group-ids", cSG)
	endpointID := str(t, ep, "VpcEndpoint", "VpcEndpointId")
	endpointDNS := str(t, ep, "VpcEndpoint", "DnsEntries", 0, "DnsName")
	testenv.Eventually(t, "the endpoint is available", func() bool {
		out := cust.run("ec2", "describe-vpc-endpoints", "--vpc-endpoint-ids", endpointID)
		return str(t, out, "VpcEndpoints", 0, "State") == "available"
	})

	zoneName := "demo.hypershift.local"
	zone := cust.run("route53", "create-hosted-zone", "--name", zoneName, "--caller-reference", "awscli-scenario",
		"--vpc", "VPCRegion=us-east-1,VPCId="+cVPC, "--hosted-zone-config", "Comment=hcplink,PrivateZone=true")
	zoneID := str(t, zone, "HostedZone", "Id")
	if private, _ := field(t, zone, "HostedZone", "Config", "PrivateZone").(bool); !private {
		t.Errorf("hosted zone is not private: %v", zone)
	}
	record := func(action string) string {
		return `{"Changes":[{"Action":"` + action + `","ResourceRecordSet":{"Name":"api.` + zoneName + `","Type":"CNAME","TTL":300,` +
			`"ResourceRecords":[{"Value":"` + endpointDNS + `"}]}}]}`
	}
	change := cust.run("route53", "change-resource-record-sets", "--hosted-zone-id", zoneID, "--change-batch", record("UPSERT"))
	if status := str(t, change, "ChangeInfo", "Status"); status != "PENDING" && status != "INSYNC" {
		t.Errorf("change status = %s", status)
	}
	sets, _ := field(t, cust.run("route53", "list-resource-record-sets", "--hosted-zone-id", zoneID), "ResourceRecordSets").([]any)
	var listed []string
	for _, rs := range sets {
		listed = append(listed, str(t, rs, "Name")+" "+str(t, rs, "Type"))
		if str(t, rs, "Name") == "api."+zoneName+"." && str(t, rs, "ResourceRecords", 0, "Value") != endpointDNS {
			t.Errorf("api record points at %v, want %s", field(t, rs, "ResourceRecords"), endpointDNS)
		}
	}
	if want := []string{zoneName + ". NS", zoneName + ". SOA", "api." + zoneName + ". CNAME"}; strings.Join(listed, "|") != strings.Join(want, "|") {
		t.Errorf("records = %v, want %v", listed, want)
	}

	// Teardown, customer first: records, zone, endpoint (until gone), SG, subnet, VPC.
	cust.run("route53", "change-resource-record-sets", "--hosted-zone-id", zoneID, "--change-batch", record("DELETE"))
	cust.run("route53", "delete-hosted-zone", "--id", zoneID)
	cust.run("ec2", "delete-vpc-endpoints", "--vpc-endpoint-ids", endpointID)
	testenv.Eventually(t, "the endpoint is gone", func() bool {
		out, err := cust.try("ec2", "describe-vpc-endpoints", "--vpc-endpoint-ids", endpointID)
		if err != nil {
			return strings.Contains(err.Error(), "InvalidVpcEndpointId.NotFound")
		}
		eps, _ := out["VpcEndpoints"].([]any)
		return len(eps) == 0 || str(t, eps[0], "State") == "deleted"
	})
	cust.run("ec2", "delete-security-group", "--group-id", cSG)
	cust.run("ec2", "delete-subnet", "--subnet-id", cSubnet)
	cust.run("ec2", "delete-vpc", "--vpc-id", cVPC)

	// Then the management account: connections, service, NLB (until gone), subnets, VPC.
	conns, _ := field(t, mgmt.run("ec2", "describe-vpc-endpoint-connections", "--filters", "Name=service-id,Values="+serviceID), "VpcEndpointConnections").([]any)
	var open []string
	for _, c := range conns {
		if state := str(t, c, "VpcEndpointState"); state != "rejected" && state != "deleted" {
			open = append(open, str(t, c, "VpcEndpointId"))
		}
	}
	if len(open) > 0 {
		mgmt.run(append([]string{"ec2", "reject-vpc-endpoint-connections", "--service-id", serviceID, "--vpc-endpoint-ids"}, open...)...)
	}
	mgmt.run("ec2", "delete-vpc-endpoint-service-configurations", "--service-ids", serviceID)
	mgmt.run("elbv2", "delete-load-balancer", "--load-balancer-arn", lbARN)
	testenv.Eventually(t, "the NLB is gone", func() bool {
		_, err := mgmt.try("elbv2", "describe-load-balancers", "--load-balancer-arns", lbARN)
		return err != nil && strings.Contains(err.Error(), "LoadBalancerNotFound")
	})
	for _, s := range mSubnets {
		mgmt.run("ec2", "delete-subnet", "--subnet-id", s)
	}
	mgmt.run("ec2", "delete-vpc", "--vpc-id", mVPC)

	// Nothing is left in either account, as the control API reports it.
	var state struct {
		AWS map[string]*cloudaws.Account `json:"aws"`
	}
	f.ControlGet(t, "/_cloudsim/state", &state)
	if len(state.AWS) == 0 {
		t.Fatalf("the control API's state lists no accounts")
	}
	f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		if len(accounts) != len(state.AWS) {
			t.Errorf("control API lists %d accounts, the model has %d", len(state.AWS), len(accounts))
		}
	})
	for id, a := range state.AWS {
		if n := len(a.Route53.HostedZones); n != 0 {
			t.Errorf("account %s keeps %d hosted zones", id, n)
		}
		for name, r := range a.Regions {
			left := map[string]int{
				"VPCs": len(r.EC2.VPCs), "subnets": len(r.EC2.Subnets), "security groups": len(r.EC2.SecurityGroups),
				"VPC endpoints": len(r.PrivateLink.Endpoints), "endpoint services": len(r.PrivateLink.Services),
				"load balancers": len(r.ELB.LoadBalancers),
			}
			for what, n := range left {
				if n != 0 {
					t.Errorf("account %s keeps %d %s in %s", id, n, what, name)
				}
			}
		}
	}
}
