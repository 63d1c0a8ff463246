package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/diagnose"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// dgBreak is one broken state made behind hcplink's back: break it, then
// diagnose must mark exactly hop ✗ with a sentence holding fix; restore
// puts the cloud back as it was.
type dgBreak struct {
	name, hop, fix string
	breakIt        func(t *testing.T)
	restore        func(t *testing.T)
}

// TestDiagnose walks one healthy Private cluster (every hop ✓), then
// breaks its private path one hop at a time in cloudsim with both
// operators stopped (so that nothing repairs it), and checks that diagnose
// marks exactly that hop ✗ with the right sentence and makes no mutating
// call in either account. Diagnose runs throughout as the read-only users
// `create iam aws --diagnose` makes, one per account: no call is denied,
// and over the test every action of diagnose's table is evaluated. Last,
// the operators repair a rejected endpoint and the cluster is deleted.
func TestDiagnose(t *testing.T) {
	ctx := context.Background()
	dgUseReadOnlyUsers(t)
	zones := env.Customer.Zones[:2]
	c := plCreateCluster(t, "diag", "diag", zones, nil)
	want := plWant{
		subnets:    []string{env.Customer.SubnetByAZ[zones[0]], env.Customer.SubnetByAZ[zones[1]]},
		cidrs:      []string{env.Customer.CIDR},
		principals: []string{plPrincipal(c.roleARN)},
	}
	s := c.converge(t, "the private path", want)
	suite.Eventually(t, e2eutil.LongWait, "the cluster's conditions", func(ctx context.Context) error { return plClusterConditionsTrue(ctx, c) })

	startOperators := suite.StopOperators(t, c.hcpNS)
	healthy := dgRun(t, c)
	dgExpectAllPass(t, healthy)
	t.Logf("healthy:\n%s", diagnose.Text(healthy))

	// Without the customer's credentials its hops are "?", saying why, and
	// nothing is called broken.
	opts := dgOptions(ctx, c)
	opts.AWSCustomer = diagnose.AWSAccount{Missing: "no customer credentials"}
	partial, err := diagnose.Diagnose(ctx, opts)
	dgMust(t, "diagnosing without the customer's credentials", err)
	var unchecked []string
	for _, h := range partial.Hops {
		if h.Verdict == diagnose.Unknown {
			unchecked = append(unchecked, h.Name)
		}
	}
	if partial.ExitCode() != diagnose.ExitIncomplete || len(unchecked) != 5 || partial.Hops[4].Verdict != diagnose.Pass {
		t.Fatalf("without the customer's credentials want the 4 customer hops and the ExternalName Services ?, the rest ✓, exit 2; got ? %v, exit %d:\n%s",
			unchecked, partial.ExitCode(), diagnose.Text(partial))
	}

	for _, b := range dgBreaks(c, s) {
		b.breakIt(t)
		r := dgRun(t, c)
		dgExpectOnlyBroken(t, b, r)
		b.restore(t)
		dgExpectAllPass(t, dgRun(t, c))
	}
	dgWithoutZoneIDInStatus(t, c, func() { dgExpectAllPass(t, dgRun(t, c)) })

	// Rejected last: a rejected endpoint cannot be accepted again. Doing
	// what diagnose says (delete it) lets the operators replace it, and
	// diagnose sees the repair.
	mgmt := ec2.NewFromConfig(env.ManagementAWS)
	if _, err := mgmt.RejectVpcEndpointConnections(ctx, &ec2.RejectVpcEndpointConnectionsInput{
		ServiceId: s.service.ServiceId, VpcEndpointIds: []string{aws.ToString(s.endpoint.VpcEndpointId)}}); err != nil {
		t.Fatalf("rejecting the endpoint: %v", err)
	}
	dgExpectOnlyBroken(t, dgBreak{name: "endpoint rejected", hop: diagnose.HopEndpoint, fix: "Delete VPC endpoint " + aws.ToString(s.endpoint.VpcEndpointId)}, dgRun(t, c))
	_, err = ec2.NewFromConfig(env.CustomerAWS).DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{aws.ToString(s.endpoint.VpcEndpointId)}})
	dgMust(t, "deleting the rejected endpoint", err)
	startOperators()
	suite.Eventually(t, e2eutil.LongWait, "diagnose to find the repaired path healthy", func(ctx context.Context) error {
		r, err := diagnose.Diagnose(ctx, dgOptions(ctx, c))
		if err != nil {
			return err
		}
		if r.ExitCode() != diagnose.ExitHealthy {
			return fmt.Errorf("not healthy yet:\n%s", diagnose.Text(r))
		}
		return nil
	})
	last := c.converge(t, "the private path after the repair", want)
	c.deleteAndProveNothingLeft(t, last)
	dgExpectEveryActionEvaluated(t)
}

// dgWithoutZoneIDInStatus runs check while the AWSEndpointService's status
// does not name the private zone (as before the control-plane operator
// first records it): diagnose then finds the zone by its name.
func dgWithoutZoneIDInStatus(t *testing.T, c *plCluster, check func()) {
	t.Helper()
	ctx := context.Background()
	key := types.NamespacedName{Namespace: c.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName}
	setZoneID := func(id string) (was string) {
		cr := &hcplinkv1beta1.AWSEndpointService{}
		dgMust(t, "reading AWSEndpointService "+key.String(), env.Client.Get(ctx, key, cr))
		was, cr.Status.DNSZoneID = cr.Status.DNSZoneID, id
		dgMust(t, "writing the zone ID in the status of "+key.String(), env.Client.Status().Update(ctx, cr))
		return was
	}
	zoneID := setZoneID("")
	check()
	setZoneID(zoneID)
}

// dgReader is diagnose's read-only user in one account.
type dgReader struct {
	userARN string
	cfg     aws.Config
}

// dgReaders are the users every diagnose of this package runs as, made
// once (by whichever test diagnoses first) and kept while devenv lives.
var dgReaders struct {
	sync.Mutex
	management, customer dgReader
	err                  error
}

// dgReadOnlyUsers makes diagnose's user in the management and the customer
// account with the code of `create iam aws --diagnose`, its key written to
// a credentials file and read back as a user would.
func dgReadOnlyUsers() (management, customer dgReader, err error) {
	dgReaders.Lock()
	defer dgReaders.Unlock()
	if dgReaders.management.userARN == "" && dgReaders.err == nil {
		dgReaders.management, dgReaders.err = dgNewReader("management", env.ManagementAWS)
		if dgReaders.err == nil {
			dgReaders.customer, dgReaders.err = dgNewReader("customer", env.CustomerAWS)
		}
	}
	return dgReaders.management, dgReaders.customer, dgReaders.err
}

// dgUseReadOnlyUsers fails the test when the users cannot be made.
func dgUseReadOnlyUsers(t *testing.T) {
	t.Helper()
	_, _, err := dgReadOnlyUsers()
	dgMust(t, "making diagnose's read-only users", err)
}

func dgNewReader(account string, admin aws.Config) (dgReader, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hcplink-diagnose-")
	if err != nil {
		return dgReader{}, err
	}
	defer os.RemoveAll(dir) // the SDK reads the file when it loads the configuration
	creds := filepath.Join(dir, account+".credentials")
	out, err := awsiam.CreateDiagnoseUser(ctx, iam.NewFromConfig(admin), nil, awsiam.DefaultDiagnoseUser, creds)
	if err != nil {
		return dgReader{}, fmt.Errorf("creating diagnose's user in the %s account: %w", account, err)
	}
	loaded, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{creds}), config.WithSharedConfigFiles([]string{}),
		config.WithRegion(devenv.Region))
	if err != nil {
		return dgReader{}, fmt.Errorf("loading the key of diagnose's %s user: %w", account, err)
	}
	cfg := admin.Copy()
	cfg.Credentials = loaded.Credentials
	return dgReader{userARN: out.UserARN, cfg: cfg}, nil
}

// dgUnevaluated are the actions of diagnose's table that cloudsim never
// evaluates, and why.
var dgUnevaluated = map[string]string{
	"sts:GetCallerIdentity": "needs no permission: AWS answers it for any valid key, and cloudsim does not evaluate it either",
}

// dgExpectNoDenial fails the test when either user was refused an action:
// the table misses a call diagnose makes.
func dgExpectNoDenial(t *testing.T) {
	t.Helper()
	mgmt, cust, _ := dgReadOnlyUsers()
	for _, r := range []dgReader{mgmt, cust} {
		for action, d := range env.Cloud.AWS.Evaluations(r.userARN) {
			if d.Denied > 0 {
				t.Fatalf("%s was denied %s %d times: add it to diagnose's table (internal/diagnose/permissions.go)", r.userARN, action, d.Denied)
			}
		}
	}
}

// dgExpectEveryActionEvaluated: over the test, each action of the table
// was allowed at least once in one of the accounts, but those listed in
// dgUnevaluated.
func dgExpectEveryActionEvaluated(t *testing.T) {
	t.Helper()
	dgExpectNoDenial(t)
	allowed := map[string]int{}
	mgmt, cust, _ := dgReadOnlyUsers()
	for _, r := range []dgReader{mgmt, cust} {
		for action, d := range env.Cloud.AWS.Evaluations(r.userARN) {
			allowed[action] += d.Allowed
		}
	}
	for _, action := range awscloud.Actions(awscloud.Diagnose) {
		if _, skip := dgUnevaluated[action]; skip {
			continue
		}
		if allowed[action] == 0 {
			t.Errorf("diagnose's table grants %s, which no run of this test evaluated", action)
		}
	}
	for action, why := range dgUnevaluated {
		if !slices.Contains(awscloud.Actions(awscloud.Diagnose), action) || allowed[action] > 0 {
			t.Errorf("%s is listed as never evaluated (%s), but it is not in the table or was evaluated", action, why)
		}
	}
	t.Logf("evaluated as diagnose's users: %v", allowed)
}

func dgBreaks(c *plCluster, s *plState) []dgBreak {
	ctx := context.Background()
	mgmt, cust, r53 := ec2.NewFromConfig(env.ManagementAWS), ec2.NewFromConfig(env.CustomerAWS), route53.NewFromConfig(env.CustomerAWS)
	serviceID, groupID := aws.ToString(s.service.ServiceId), aws.ToString(s.sg.GroupId)
	principal := plPrincipal(c.roleARN)
	rule := []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443), IpRanges: []ec2types.IpRange{{CidrIp: aws.String(env.Customer.CIDR)}}}}
	apiRecord := "api." + c.name + ".hypershift.local"
	setRecord := func(t *testing.T, value string) {
		t.Helper()
		_, err := r53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(c.zoneID), ChangeBatch: &r53types.ChangeBatch{
			Changes: []r53types.Change{{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &r53types.ResourceRecordSet{
				Name: aws.String(apiRecord + "."), Type: r53types.RRTypeCname, TTL: aws.Int64(300), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(value)}}}}}}})
		dgMust(t, "changing record "+apiRecord, err)
	}
	var otherVPC string
	var nlb *cloudaws.LoadBalancer
	return []dgBreak{
		{name: "allowed principal removed", hop: diagnose.HopEndpointService, fix: "Allow principal " + principal + " on endpoint service " + serviceID,
			breakIt: func(t *testing.T) {
				_, err := mgmt.ModifyVpcEndpointServicePermissions(ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: aws.String(serviceID), RemoveAllowedPrincipals: []string{principal}})
				dgMust(t, "removing the principal", err)
			},
			restore: func(t *testing.T) {
				_, err := mgmt.ModifyVpcEndpointServicePermissions(ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: aws.String(serviceID), AddAllowedPrincipals: []string{principal}})
				dgMust(t, "allowing the principal again", err)
			}},
		{name: "security group rule revoked", hop: diagnose.HopSecurityGroup, fix: "Allow tcp 443 from " + env.Customer.CIDR + " in security group " + groupID,
			breakIt: func(t *testing.T) {
				_, err := cust.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(groupID), IpPermissions: rule})
				dgMust(t, "revoking the rule", err)
			},
			restore: func(t *testing.T) {
				_, err := cust.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(groupID), IpPermissions: rule})
				dgMust(t, "authorizing the rule again", err)
			}},
		{name: "record pointing elsewhere", hop: diagnose.HopRecords, fix: "Point " + apiRecord + " at " + s.target(),
			breakIt: func(t *testing.T) { setRecord(t, "elsewhere.example.test") },
			restore: func(t *testing.T) { setRecord(t, s.target()) }},
		{name: "zone disassociated from the VPC", hop: diagnose.HopPrivateZone, fix: "Associate private zone " + c.zoneID + " with VPC " + env.Customer.VPCID,
			breakIt: func(t *testing.T) {
				// A private zone keeps at least one VPC: move it to another.
				vpc, err := cust.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.250.0.0/16")})
				dgMust(t, "creating another VPC", err)
				otherVPC = aws.ToString(vpc.Vpc.VpcId)
				dgZoneVPC(t, r53, c.zoneID, otherVPC, true)
				dgZoneVPC(t, r53, c.zoneID, env.Customer.VPCID, false)
			},
			restore: func(t *testing.T) {
				dgZoneVPC(t, r53, c.zoneID, env.Customer.VPCID, true)
				dgZoneVPC(t, r53, c.zoneID, otherVPC, false)
				_, err := cust.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: aws.String(otherVPC)})
				dgMust(t, "deleting the other VPC", err)
			}},
		{name: "NLB deleted", hop: diagnose.HopLoadBalancer, fix: "Delete Service " + c.hcpNS + "/private-router",
			// AWS refuses to delete an NLB an endpoint service uses; the
			// state is made in cloudsim's model, as a forced deletion would.
			breakIt: func(t *testing.T) {
				env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
					lbs := accounts[devenv.ManagementAccount].Regions[devenv.Region].ELB.LoadBalancers
					nlb = lbs[s.nlbARN]
					delete(lbs, s.nlbARN)
				})
				if nlb == nil {
					t.Fatalf("no NLB %s in cloudsim's model", s.nlbARN)
				}
			},
			restore: func(t *testing.T) {
				env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
					accounts[devenv.ManagementAccount].Regions[devenv.Region].ELB.LoadBalancers[s.nlbARN] = nlb
				})
			}},
	}
}

func dgZoneVPC(t *testing.T, r53 *route53.Client, zoneID, vpcID string, associate bool) {
	t.Helper()
	ctx := context.Background()
	vpc := &r53types.VPC{VPCId: aws.String(vpcID), VPCRegion: r53types.VPCRegion(devenv.Region)}
	var err error
	if associate {
		_, err = r53.AssociateVPCWithHostedZone(ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc})
	} else {
		_, err = r53.DisassociateVPCFromHostedZone(ctx, &route53.DisassociateVPCFromHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc})
	}
	dgMust(t, fmt.Sprintf("associating (%v) zone %s with %s", associate, zoneID, vpcID), err)
}

func dgMust(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func dgOptions(ctx context.Context, c *plCluster) diagnose.Options {
	mgmt, cust, err := dgReadOnlyUsers()
	if err != nil { // every hop of the clouds says so
		missing := diagnose.AWSAccount{Missing: "diagnose's read-only users could not be made: " + err.Error()}
		return diagnose.Options{Kube: env.Client, Namespace: c.namespace, Name: c.name, AWSManagement: missing, AWSCustomer: missing}
	}
	return diagnose.Options{Kube: env.Client, Namespace: c.namespace, Name: c.name,
		AWSManagement: diagnose.AWSAccountFromConfig(ctx, mgmt.cfg), AWSCustomer: diagnose.AWSAccountFromConfig(ctx, cust.cfg)}
}

// dgRun diagnoses the cluster and fails the test if it made a mutating
// call in the management or the customer account, or was denied a call.
func dgRun(t *testing.T, c *plCluster) diagnose.Report {
	t.Helper()
	ctx := context.Background()
	before := dgMutatingCalls()
	r, err := diagnose.Diagnose(ctx, dgOptions(ctx, c))
	if err != nil {
		t.Fatalf("diagnose: %v", err)
	}
	if after := dgMutatingCalls(); after != before {
		t.Fatalf("diagnose made %d mutating calls (before %v, after %v)", after.total()-before.total(), before, after)
	}
	dgExpectNoDenial(t)
	return r
}

type dgCounts struct{ management, customer int64 }

func (d dgCounts) total() int64 { return d.management + d.customer }

func dgMutatingCalls() dgCounts {
	snap := env.Cloud.Counters.Snapshot()
	return dgCounts{management: sim.Sum(snap[devenv.ManagementAccount]).Mutating, customer: sim.Sum(snap[devenv.CustomerAccount]).Mutating}
}

func dgExpectAllPass(t *testing.T, r diagnose.Report) {
	t.Helper()
	if err := e2eutil.AllPass(r, 10); err != nil {
		t.Fatal(err)
	}
}

func dgExpectOnlyBroken(t *testing.T, b dgBreak, r diagnose.Report) {
	t.Helper()
	f, err := e2eutil.OnlyBroken(r, b.hop, "", b.fix)
	if err == nil && r.ExitCode() != diagnose.ExitBroken {
		err = fmt.Errorf("exit %d, want %d:\n%s", r.ExitCode(), diagnose.ExitBroken, diagnose.Text(r))
	}
	if err != nil {
		t.Fatalf("%s: %v", b.name, err)
	}
	t.Logf("%s: %s ✗ seen %q: %s", b.name, f.Name, f.Seen, f.Fix)
}
