package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// Resilience scenarios: restarts between a cloud create and the status
// write, resources deleted behind the operators' backs, a missing zone, an
// availability-zone mismatch, throttling, a foreign account's connection at
// deletion, and sanitised condition messages. Each asserts the cloud's
// state, read from cloudsim's model or through the SDK.

const (
	// rsForeignAccount is a third AWS account that connects to a cluster's
	// endpoint service on its own.
	rsForeignAccount = "333333333333"
	// rsDriftWait is one drift interval of the shared devenv (20 s, plus up
	// to 20% jitter) with room for the repair itself on a loaded machine.
	rsDriftWait = 60 * time.Second
	// rsEndpointVisibilityGrace is how long the control-plane operator
	// waits for a new VPC endpoint that EC2 does not describe yet.
	rsEndpointVisibilityGrace = 2 * time.Minute
	// rsZoneRecheckWait covers the control-plane operator's recheck of a
	// missing private zone (2 minutes, plus up to 20% jitter).
	rsZoneRecheckWait = 3*time.Minute + 30*time.Second
	// rsRouterCR is the AWSEndpointService of the private router.
	rsRouterCR = "private-router"
)

// TestResilience runs the scenarios that touch only their own cluster side
// by side (each waits on the operators' timers, not on the CPU), then those
// that change something every cluster shares (the management operator, the
// cloud's faults) one at a time. The missing-zone scenario spends over two
// minutes waiting for a recheck, so it runs alongside all the others; the
// shared changes at most delay it (throttling, a stopped operator), and its
// assertions do not depend on call counts.
func TestResilience(t *testing.T) {
	var zone sync.WaitGroup
	zone.Add(1)
	go func() {
		defer zone.Done()
		t.Run("missing-zone", rsMissingZone)
	}()
	rsConcurrently(t, []rsScenario{
		{"cpo-restart-before-status", rsCPORestartBeforeStatus},
		{"endpoint-deleted", rsEndpointDeletedBehindOurBack},
		{"record-deleted", rsRecordDeletedBehindOurBack},
		{"zone-mismatch", rsZoneMismatch},
		{"foreign-connection-at-deletion", rsForeignConnectionAtDeletion},
	})
	t.Run("operator-restart-before-status", rsOperatorRestartBeforeStatus)
	t.Run("throttled-cloud", rsThrottledCloud)
	t.Run("sanitised-messages", rsSanitisedMessages)
	zone.Wait()
}

type rsScenario struct {
	name string
	run  func(t *testing.T)
}

// rsConcurrently runs each scenario as a subtest in its own goroutine (not
// t.Parallel, which -parallel would cap at the CPU count) and waits for all.
func rsConcurrently(t *testing.T, scenarios []rsScenario) {
	var wg sync.WaitGroup
	for _, s := range scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(s.name, s.run)
		}()
	}
	wg.Wait()
}

// --- scenarios ---

// rsCPORestartBeforeStatus: the control-plane operator created the VPC
// endpoint and its security group, then stopped before writing their IDs to
// status. Restarted, it must adopt both by their tags, not create others.
func rsCPORestartBeforeStatus(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "rs-cpo", "rscpo", env.Customer.Zones[:2], nil)

	var created rsEndpoint
	suite.Eventually(t, e2eutil.LongWait, "the cluster's VPC endpoint in the customer account", func(ctx context.Context) error {
		eps := rsLiveEndpoints(c.infraID)
		if len(eps) == 0 {
			return errors.New("no VPC endpoint tagged for the cluster yet")
		}
		created = eps[0]
		return nil
	})
	env.StopControlPlaneOperator(c.hcpNS)
	// The write that was lost: the endpoint and group exist, status does not say so.
	rsPatchStatus(t, c.hcpNS, map[string]any{"endpointID": nil, "securityGroupID": nil})
	if cr := rsGetCR(t, c.hcpNS); cr.Status.EndpointID != "" || cr.Status.SecurityGroupID != "" {
		t.Fatalf("clearing the status did not take: endpointID=%q securityGroupID=%q", cr.Status.EndpointID, cr.Status.SecurityGroupID)
	}
	if err := env.StartControlPlaneOperator(ctx, c.hcpNS); err != nil {
		t.Fatalf("starting the control-plane operator: %v", err)
	}

	cr := rsWaitReady(t, c, e2eutil.LongWait)
	t.Logf("endpoint %s (created before the restart), status now names %s", created.ID, cr.Status.EndpointID)
	if cr.Status.EndpointID != created.ID {
		t.Errorf("status names endpoint %s after the restart, want the adopted %s", cr.Status.EndpointID, created.ID)
	}
	rsExpectOne(t, c)
	groups := rsSecurityGroups(c.infraID)
	if len(groups) == 1 && cr.Status.SecurityGroupID != groups[0] {
		t.Errorf("status names security group %s, the cloud has %s", cr.Status.SecurityGroupID, groups[0])
	}
}

// rsOperatorRestartBeforeStatus: the management operator created the
// endpoint service, then stopped before writing its name to status.
func rsOperatorRestartBeforeStatus(t *testing.T) {
	c := rsCreateCluster(t, "rs-ho", "rsho", env.Customer.Zones[:2], nil)

	var created rsService
	suite.Eventually(t, e2eutil.LongWait, "the cluster's endpoint service in the management account", func(ctx context.Context) error {
		svcs := rsEndpointServices(c.infraID)
		if len(svcs) == 0 {
			return errors.New("no endpoint service tagged for the cluster yet")
		}
		created = svcs[0]
		return nil
	})
	if err := env.StopOperator(); err != nil {
		t.Fatalf("stopping the management operator: %v", err)
	}
	// Whatever happens below, the other scenarios need the operator back.
	t.Cleanup(env.StartOperator)
	rsPatchStatus(t, c.hcpNS, map[string]any{"endpointServiceName": nil})
	if cr := rsGetCR(t, c.hcpNS); cr.Status.EndpointServiceName != "" {
		t.Fatalf("clearing the status did not take: endpointServiceName=%q", cr.Status.EndpointServiceName)
	}
	env.StartOperator()

	cr := rsWaitReady(t, c, e2eutil.LongWait)
	t.Logf("endpoint service %s (created before the restart), status now names %s", created.Name, cr.Status.EndpointServiceName)
	if cr.Status.EndpointServiceName != created.Name {
		t.Errorf("status names endpoint service %s after the restart, want the adopted %s", cr.Status.EndpointServiceName, created.Name)
	}
	rsExpectOne(t, c)
}

// rsEndpointDeletedBehindOurBack: someone deletes the VPC endpoint in the
// customer account; the next drift check replaces it and repoints the
// records.
func rsEndpointDeletedBehindOurBack(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "rs-epdel", "rsepdel", env.Customer.Zones[:2], nil)
	old := rsWaitReady(t, c, e2eutil.LongWait).Status.EndpointID

	if _, err := ec2.NewFromConfig(env.CustomerAWS).DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{old}}); err != nil {
		t.Fatalf("deleting VPC endpoint %s: %v", old, err)
	}
	deleted := time.Now()
	// An endpoint missing from describes within 2 minutes of its creation
	// is waited for (EC2's eventual consistency; endpointVisibilityGrace in
	// awsprivatelink), and this one was made moments ago: the repair comes
	// at the first drift check after that grace.
	suite.Eventually(t, rsEndpointVisibilityGrace+rsDriftWait+e2eutil.LongWait, "a new VPC endpoint in status", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if cr.Status.EndpointID == "" || cr.Status.EndpointID == old {
			return fmt.Errorf("status still names endpoint %q", cr.Status.EndpointID)
		}
		return nil
	})
	t.Logf("the deleted endpoint was replaced in status after %v", time.Since(deleted).Round(time.Second))
	cr := rsWaitReady(t, c, e2eutil.LongWait)
	if cr.Status.EndpointID == old {
		t.Fatalf("status names the deleted endpoint %s again", old)
	}
	t.Logf("endpoint %s deleted, replaced by %s", old, cr.Status.EndpointID)
	rsExpectOne(t, c)
	if eps := rsLiveEndpoints(c.infraID); len(eps) == 1 && eps[0].ID != cr.Status.EndpointID {
		t.Errorf("the live endpoint is %s, status names %s", eps[0].ID, cr.Status.EndpointID)
	}
}

// rsRecordDeletedBehindOurBack: someone deletes the *.apps record; the next
// drift check writes it again.
func rsRecordDeletedBehindOurBack(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "rs-rec", "rsrec", env.Customer.Zones[:1], nil)
	cr := rsWaitReady(t, c, e2eutil.LongWait)

	client := route53.NewFromConfig(env.CustomerAWS)
	name := "*.apps." + c.zoneName()
	var victim *r53types.ResourceRecordSet
	out, err := client.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(cr.Status.DNSZoneID)})
	if err != nil {
		t.Fatalf("listing the records of %s: %v", cr.Status.DNSZoneID, err)
	}
	for i, rs := range out.ResourceRecordSets {
		if rsRecordName(aws.ToString(rs.Name)) == name {
			victim = &out.ResourceRecordSets[i]
		}
	}
	if victim == nil {
		t.Fatalf("zone %s has no %s record to delete", cr.Status.DNSZoneID, name)
	}
	if _, err := client.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: aws.String(cr.Status.DNSZoneID),
		ChangeBatch:  &r53types.ChangeBatch{Changes: []r53types.Change{{Action: r53types.ChangeActionDelete, ResourceRecordSet: victim}}},
	}); err != nil {
		t.Fatalf("deleting %s: %v", name, err)
	}
	if _, ok := rsRecords(c.zoneName())[name]; ok {
		t.Fatalf("%s is still in the zone after its deletion", name)
	}
	deleted := time.Now()
	suite.Eventually(t, rsDriftWait, "the deleted record to be written again within one drift interval", func(ctx context.Context) error {
		return rsCheckRecords(ctx, c, cr.Status.EndpointID)
	})
	t.Logf("the deleted record was restored after %v", time.Since(deleted).Round(time.Second))
}

// rsMissingZone: the cluster's private zone does not exist. The endpoint
// is made, no record is written anywhere, the condition says which zone is
// missing; once the zone exists the records follow at the next recheck.
func rsMissingZone(t *testing.T) {
	ctx := context.Background()
	client := route53.NewFromConfig(env.CustomerAWS)
	c := rsCreateCluster(t, "rs-zone", "rszone", env.Customer.Zones[:1], func(c *rsCluster) {
		if _, err := client.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: aws.String(c.fixture.PrivateZoneID)}); err != nil {
			t.Fatalf("deleting zone %s: %v", c.zoneName(), err)
		}
	})

	suite.Eventually(t, e2eutil.LongWait, "AWSEndpointAvailable=False/DNSZoneNotFound", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.DNSZoneNotFoundReason); err != nil {
			return err
		}
		msg := rsConditionMessage(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
		if !strings.Contains(msg, c.zoneName()) {
			return fmt.Errorf("the message does not name zone %s: %q", c.zoneName(), msg)
		}
		t.Logf("condition message: %s", msg)
		return nil
	})
	if found := rsRecordsMentioning(c.zoneName()); len(found) > 0 {
		t.Fatalf("records were written for a cluster without its zone: %v", found)
	}

	// The customer creates the zone (private, on the cluster's VPC) and
	// grants the role on it, as the infrastructure CLI would.
	if _, err := client.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{
		Name:             aws.String(c.zoneName()),
		CallerReference:  aws.String("rs-zone-" + c.infraID),
		HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true},
		VPC:              &r53types.VPC{VPCId: aws.String(env.Customer.VPCID), VPCRegion: r53types.VPCRegion(devenv.Region)},
	}); err != nil {
		t.Fatalf("creating zone %s: %v", c.zoneName(), err)
	}
	if _, err := env.PrepareAWSCluster(ctx, c.ns, c.name, c.infraID); err != nil {
		t.Fatalf("granting the role on the new zone: %v", err)
	}
	created := time.Now()
	cr := rsWaitReady(t, c, rsZoneRecheckWait)
	t.Logf("records appeared %v after the zone was created", time.Since(created).Round(time.Second))
	if found := rsRecordsMentioning(cr.Status.EndpointID); len(found) != 2 {
		t.Errorf("want exactly the 2 records of the cluster pointing at its endpoint, found %v", found)
	}
}

// rsZoneMismatch: the router's NLB does not balance across zones and one
// NodePool's subnet lies in a zone (by zone ID) the NLB does not serve.
func rsZoneMismatch(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "rs-az", "rsaz", nil, nil) // NodePools come once the NLB is set up

	var lb *elbv2types.LoadBalancer
	suite.Eventually(t, e2eutil.LongWait, "the private router's NLB and the endpoint service", func(ctx context.Context) error {
		var err error
		if lb, err = loadBalancerFor(ctx, c.hcpNS, "private-router"); err != nil {
			return err
		}
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if cr.Status.EndpointServiceName == "" {
			return errors.New("no endpoint service name in status yet")
		}
		return e2eutil.ConditionIs(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.WaitingForSubnetsReason)
	})
	env.StopControlPlaneOperator(c.hcpNS)
	elb := elbv2.NewFromConfig(env.ManagementAWS)
	if _, err := elb.ModifyLoadBalancerAttributes(ctx, &elbv2.ModifyLoadBalancerAttributesInput{
		LoadBalancerArn: lb.LoadBalancerArn,
		Attributes:      []elbv2types.LoadBalancerAttribute{{Key: aws.String("load_balancing.cross_zone.enabled"), Value: aws.String("false")}},
	}); err != nil {
		t.Fatalf("turning cross-zone load balancing off: %v", err)
	}

	// Zone names are per-account aliases: compare zone IDs.
	mgmtZones := rsZoneIDs(t, env.ManagementAWS)
	var served []string
	for _, z := range lb.AvailabilityZones {
		served = append(served, mgmtZones[aws.ToString(z.ZoneName)])
	}
	sort.Strings(served)
	customerZones := rsZoneIDs(t, env.CustomerAWS)
	var servedZone, unservedZone string
	for _, name := range slices.Sorted(maps.Keys(customerZones)) {
		switch in := slices.Contains(served, customerZones[name]); {
		case in && servedZone == "" && env.Customer.SubnetByAZ[name] != "":
			servedZone = name
		case !in && unservedZone == "":
			unservedZone = name
		}
	}
	if servedZone == "" || unservedZone == "" {
		t.Fatalf("the NLB serves zone IDs %v; customer zones %v give no served zone with a subnet and unserved zone", served, customerZones)
	}
	unservedSubnet := rsSubnetIn(t, unservedZone)
	t.Logf("NLB serves %v; NodePools in %s (%s, served) and %s (%s, not served, subnet %s)",
		served, servedZone, customerZones[servedZone], unservedZone, customerZones[unservedZone], unservedSubnet)
	createNodePool(t, c.ns, c.name+"-np1", c.name, env.Customer.SubnetByAZ[servedZone])
	createNodePool(t, c.ns, c.name+"-np2", c.name, unservedSubnet)
	suite.Eventually(t, e2eutil.ShortWait, "both NodePool subnets in the AWSEndpointService", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if !slices.Contains(cr.Spec.SubnetIDs, unservedSubnet) || !slices.Contains(cr.Spec.SubnetIDs, env.Customer.SubnetByAZ[servedZone]) {
			return fmt.Errorf("spec.subnetIDs is %v", cr.Spec.SubnetIDs)
		}
		return nil
	})
	if err := env.StartControlPlaneOperator(ctx, c.hcpNS); err != nil {
		t.Fatalf("starting the control-plane operator: %v", err)
	}

	// The endpoint serves the zones the NLB serves; the True condition
	// names the zone it cannot reach (issue 8 item 6: a mismatch must not
	// block the served zones).
	suite.Eventually(t, e2eutil.LongWait, "AWSEndpointAvailable=True naming the unserved zone", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason); err != nil {
			return err
		}
		msg := rsConditionMessage(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
		for _, want := range append([]string{customerZones[unservedZone], unservedSubnet}, served...) {
			if !strings.Contains(msg, want) {
				return fmt.Errorf("the message does not name %s: %q", want, msg)
			}
		}
		t.Logf("condition message: %s", msg)
		return nil
	})
	servedSubnet := env.Customer.SubnetByAZ[servedZone]
	if eps := rsLiveEndpoints(c.infraID); len(eps) != 1 || !slices.Contains(eps[0].SubnetIDs, servedSubnet) {
		t.Errorf("want one VPC endpoint in the served subnet %s, got %+v", servedSubnet, eps)
	}
	for _, ep := range rsLiveEndpoints(c.infraID) {
		if slices.Contains(ep.SubnetIDs, unservedSubnet) {
			t.Errorf("VPC endpoint %s was made in subnet %s, a zone the NLB does not serve", ep.ID, unservedSubnet)
		}
	}
	// The scenario holds only if nothing turned cross-zone back on meanwhile.
	attrs, err := elb.DescribeLoadBalancerAttributes(ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: lb.LoadBalancerArn})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attrs.Attributes {
		if aws.ToString(a.Key) == "load_balancing.cross_zone.enabled" && aws.ToString(a.Value) != "false" {
			t.Fatalf("cross-zone load balancing is %s again: the scenario did not hold", aws.ToString(a.Value))
		}
	}
}

// rsThrottledCloud: a minute of 30% throttling on EC2 and Route 53 while a
// cluster is created. It converges without duplicates and without a hot
// loop: the calls in that minute stay within what the same work needs
// without faults (measured first, on a cluster made the same way) times
// the retries a 30% failure rate justifies.
func rsThrottledCloud(t *testing.T) {
	const faultRate = 0.3
	rsWaitUntilNoClusterIsDeleting(t)
	baseline, _ := rsCallsInFirstMinute(t, "rs-thrbase", "rsthrbase", nil)
	bound := int64(math.Ceil(float64(baseline) * rsRetryFactor(faultRate, rsCallsPerPass)))
	t.Logf("EC2 + Route 53 calls in the first minute of a cluster without faults: %d; bound with 30%% throttling: %d (factor %.2f)",
		baseline, bound, rsRetryFactor(faultRate, rsCallsPerPass))

	total, throttled := rsCallsInFirstMinute(t, "rs-thr", "rsthr", func(c *rsCluster) {
		rsSetFaults(t, sim.FaultConfig{Seed: 7, Errors: []sim.ErrorRule{
			{Rate: faultRate, Code: "RequestLimitExceeded", Service: "ec2", For: sim.Duration(time.Minute)},
			{Rate: faultRate, Code: "Throttling", Service: "route53", For: sim.Duration(time.Minute)},
		}})
	})
	t.Logf("EC2 + Route 53 calls in the throttled minute, both accounts: %d (%d failed as throttled)", total, throttled)
	if total > bound {
		t.Errorf("%d EC2 + Route 53 calls in the throttled minute, more than %d (%d without faults x %.2f): the operators retry more than the faults justify",
			total, bound, baseline, rsRetryFactor(faultRate, rsCallsPerPass))
	}
	if throttled == 0 {
		t.Errorf("no call was throttled: the faults did not apply")
	}
}

// rsCallsPerPass is about the most calls either operator makes in one pass
// before a call whose result persists (a create, or a status write), so a
// failure makes it repeat at most that many.
const rsCallsPerPass = 5

// rsRetryFactor is how many calls, on average, a pass of k calls costs per
// call when each call fails with probability p and a failure restarts the
// pass: (1-q^k) / (q^k p) calls for k, with q = 1-p (3.3 for p = 0.3, k = 5).
func rsRetryFactor(p float64, k int) float64 {
	q := 1 - p
	qk := math.Pow(q, float64(k))
	return (1 - qk) / (qk * p) / float64(k)
}

// rsCallsInFirstMinute creates a Private cluster (beforeCreate runs just
// before, to set faults), waits until it is Available and one minute has
// passed since its creation, and returns the EC2 and Route 53 calls of that
// minute in every account (and how many failed as throttled), having
// checked that the cluster has one endpoint service, endpoint and security
// group. It then deletes the cluster and waits until it
// is gone, so that the next measurement is not disturbed.
func rsCallsInFirstMinute(t *testing.T, prefix, name string, beforeCreate func(c *rsCluster)) (total, throttled int64) {
	t.Helper()
	var before map[string]map[string]sim.CallCount
	atMinute := make(chan map[string]map[string]sim.CallCount, 1)
	start := time.Now()
	c := rsCreateCluster(t, prefix, name, env.Customer.Zones[:2], func(c *rsCluster) {
		if beforeCreate != nil {
			beforeCreate(c)
		}
		before, start = env.Cloud.Counters.Snapshot(), time.Now()
		time.AfterFunc(time.Minute, func() { atMinute <- env.Cloud.Counters.Snapshot() })
	})
	suite.Eventually(t, 3*time.Minute, "the cluster "+name+" to become Available", func(ctx context.Context) error {
		return flClusterAvailable(ctx, c)
	})
	t.Logf("%s became Available %v after its creation", name, time.Since(start).Round(time.Second))
	rsWaitReady(t, c, e2eutil.LongWait)
	rsExpectOne(t, c)
	after := <-atMinute
	total, throttled = rsCallsBetween(before, after, "ec2:", "route53:")
	flDeleteCluster(t, c)
	return total, throttled
}

// rsWaitUntilNoClusterIsDeleting lets the clusters of earlier scenarios
// finish their deletion, whose calls would count towards a measurement.
func rsWaitUntilNoClusterIsDeleting(t *testing.T) {
	t.Helper()
	suite.Eventually(t, e2eutil.LongWait, "earlier scenarios' clusters to finish deleting", func(ctx context.Context) error {
		var list hcplinkv1beta1.HostedClusterList
		if err := env.Client.List(ctx, &list); err != nil {
			return err
		}
		for _, hc := range list.Items {
			if !hc.DeletionTimestamp.IsZero() {
				return fmt.Errorf("HostedCluster %s/%s is still deleting", hc.Namespace, hc.Name)
			}
		}
		return nil
	})
}

// rsForeignConnectionAtDeletion: a third account connects to the cluster's
// endpoint service; deleting the cluster rejects that connection and
// removes the service.
func rsForeignConnectionAtDeletion(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "rs-foreign", "rsforeign", env.Customer.Zones[:2], nil)
	cr := rsWaitReady(t, c, e2eutil.LongWait)
	serviceName := cr.Status.EndpointServiceName
	principal := "arn:aws:iam::" + rsForeignAccount + ":root"

	var hc hcplinkv1beta1.HostedCluster
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hc); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(hc.DeepCopy())
	hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = append(hc.Spec.Platform.AWS.AdditionalAllowedPrincipals, principal)
	if err := env.Client.Patch(ctx, &hc, patch); err != nil {
		t.Fatalf("allowing %s: %v", principal, err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the foreign account among the service's allowed principals", func(ctx context.Context) error {
		for _, s := range rsEndpointServices(c.infraID) {
			if slices.Contains(s.AllowedPrincipals, principal) {
				return nil
			}
		}
		return fmt.Errorf("endpoint services of the cluster: %+v", rsEndpointServices(c.infraID))
	})

	foreign := ec2.NewFromConfig(rsAccountConfig(t, rsForeignAccount))
	svcs, err := foreign.DescribeVpcEndpointServices(ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{serviceName}})
	if err != nil || len(svcs.ServiceDetails) != 1 || len(svcs.ServiceDetails[0].AvailabilityZones) == 0 {
		t.Fatalf("the foreign account cannot see endpoint service %s: %v %+v", serviceName, err, svcs)
	}
	zone := svcs.ServiceDetails[0].AvailabilityZones[0]
	vpc, err := foreign.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.3.0.0/16")})
	if err != nil {
		t.Fatalf("foreign VPC: %v", err)
	}
	vpcID := aws.ToString(vpc.Vpc.VpcId)
	subnet, err := foreign.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: &vpcID, AvailabilityZone: &zone, CidrBlock: aws.String("10.3.0.0/20")})
	if err != nil {
		t.Fatalf("foreign subnet in %s: %v", zone, err)
	}
	sg, err := foreign.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: &vpcID, GroupName: aws.String("rs-foreign-vpce"), Description: aws.String("foreign endpoint")})
	if err != nil {
		t.Fatalf("foreign security group: %v", err)
	}
	ep, err := foreign.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{
		VpcEndpointType: ec2types.VpcEndpointTypeInterface, VpcId: &vpcID, ServiceName: &serviceName,
		SubnetIds: []string{aws.ToString(subnet.Subnet.SubnetId)}, SecurityGroupIds: []string{aws.ToString(sg.GroupId)},
	})
	if err != nil {
		t.Fatalf("foreign VPC endpoint to %s: %v", serviceName, err)
	}
	foreignEndpoint := aws.ToString(ep.VpcEndpoint.VpcEndpointId)
	t.Cleanup(func() {
		_, _ = foreign.DeleteVpcEndpoints(context.Background(), &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{foreignEndpoint}})
	})
	suite.Eventually(t, e2eutil.LongWait, "the foreign endpoint to be available", func(ctx context.Context) error {
		if state := rsEndpointState(rsForeignAccount, foreignEndpoint); state != cloudaws.EndpointAvailable {
			return fmt.Errorf("foreign endpoint %s is %q", foreignEndpoint, state)
		}
		return nil
	})

	if err := env.Client.Delete(ctx, c.hc); err != nil {
		t.Fatalf("deleting the HostedCluster: %v", err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the HostedCluster and its endpoint service to go, the foreign connection rejected", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hcplinkv1beta1.HostedCluster{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("HostedCluster still exists (err=%v)", err)
		}
		if svcs := rsEndpointServices(c.infraID); len(svcs) > 0 {
			return fmt.Errorf("endpoint services remain: %+v", svcs)
		}
		if state := rsEndpointState(rsForeignAccount, foreignEndpoint); state != cloudaws.EndpointRejected {
			return fmt.Errorf("foreign endpoint %s is %q, want rejected", foreignEndpoint, state)
		}
		if eps := rsLiveEndpoints(c.infraID); len(eps) > 0 {
			return fmt.Errorf("the cluster's own endpoints remain: %+v", eps)
		}
		return nil
	})
}

// rsSanitisedMessages: AWS refuses CreateVpcEndpoint; the condition says so
// without request IDs or HTTP wording, in a few hundred characters.
func rsSanitisedMessages(t *testing.T) {
	awsMessage := "You are not authorized to perform this operation. User: arn:aws:sts::222222222222:assumed-role/rsmsg-control-plane-operator/session " +
		"is not authorized to perform: ec2:CreateVpcEndpoint on resource: arn:aws:ec2:us-east-1:222222222222:vpc-endpoint/* because no identity-based policy allows the ec2:CreateVpcEndpoint action. " +
		"Encoded authorization failure message: " + strings.Repeat("Xk3vQ9bZ", 120)
	c := rsCreateCluster(t, "rs-msg", "rsmsg", env.Customer.Zones[:1], func(*rsCluster) {
		rsSetFaults(t, sim.FaultConfig{Errors: []sim.ErrorRule{{
			Service: "ec2", Operation: "CreateVpcEndpoint", Account: devenv.CustomerAccount,
			Code: "UnauthorizedOperation", HTTPStatus: 403, Message: awsMessage, Rate: 1,
		}}})
	})

	var crMsg, hcMsg string
	suite.Eventually(t, e2eutil.LongWait, "AWSEndpointAvailable=False/AccessDenied on the CR and the HostedCluster", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason); err != nil {
			return err
		}
		crMsg = rsConditionMessage(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
		var hc hcplinkv1beta1.HostedCluster
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hc); err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionFalse, ""); err != nil {
			return err
		}
		hcMsg = rsConditionMessage(hc.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
		// The HostedCluster folds the CR's condition in a moment later; an
		// earlier False ("waiting for the endpoint service") is not the one
		// under test.
		if !strings.Contains(hcMsg, "UnauthorizedOperation") {
			return fmt.Errorf("the HostedCluster does not show the endpoint error yet: %q", hcMsg)
		}
		return nil
	})
	t.Logf("condition message: %s", crMsg)
	for where, msg := range map[string]string{"AWSEndpointService": crMsg, "HostedCluster": hcMsg} {
		if problem := rsUnsanitised(msg); problem != "" {
			t.Errorf("%s's AWSEndpointAvailable message %s: %q", where, problem, msg)
		}
		if !strings.Contains(msg, "UnauthorizedOperation") {
			t.Errorf("%s's AWSEndpointAvailable message does not name the AWS error code: %q", where, msg)
		}
	}
	if eps := rsLiveEndpoints(c.infraID); len(eps) > 0 {
		t.Errorf("a VPC endpoint exists although every create was refused: %+v", eps)
	}
}

// rsUnsanitised says what is wrong with a condition message, "" if nothing.
func rsUnsanitised(msg string) string {
	uuid := regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	requestID := regexp.MustCompile(`(?i)request[ _-]?id`)
	switch {
	case msg == "":
		return "is empty"
	case uuid.MatchString(msg):
		return "carries a UUID (a request ID)"
	case requestID.MatchString(msg):
		return "mentions a request ID"
	case strings.Contains(msg, "StatusCode"), strings.Contains(strings.ToLower(msg), "https response error"),
		strings.Contains(msg, "http://"), strings.Contains(msg, "https://"):
		return "carries raw HTTP text"
	case len(msg) > 400:
		return fmt.Sprintf("is %d characters long", len(msg))
	}
	return ""
}

// --- cluster helpers ---

// rsCluster is one scenario's cluster.
type rsCluster struct {
	ns, name, infraID, hcpNS string
	hc                       *hcplinkv1beta1.HostedCluster
	fixture                  devenv.AWSClusterFixture
}

func (c *rsCluster) zoneName() string { return c.name + ".hypershift.local" }

// rsCreateCluster prepares the customer account for a Private cluster,
// runs beforeCreate (which may undo part of the preparation or set faults),
// then creates the HostedCluster and one NodePool per zone. The cluster is
// deleted when the test ends.
func rsCreateCluster(t *testing.T, prefix, name string, zones []string, beforeCreate func(c *rsCluster)) *rsCluster {
	t.Helper()
	ctx := context.Background()
	c := &rsCluster{ns: suite.CreateNamespace(t, prefix), name: name, infraID: name + "-" + strings.ToLower(e2eutil.RandomSuffix(5))}
	c.hcpNS = hcplinkv1beta1.HostedControlPlaneNamespace(c.ns, name)
	var err error
	if c.fixture, err = env.PrepareAWSCluster(ctx, c.ns, name, c.infraID); err != nil {
		t.Fatalf("preparing the customer account: %v", err)
	}
	c.hc = &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.ns, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: c.infraID,
			DNS:     hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{
				MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}},
			},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type:  hcplinkv1beta1.RoutePublishing,
					Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + name + ".example.test"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS: &hcplinkv1beta1.AWSPlatformSpec{
					Region:              devenv.Region,
					EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
					CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
					RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.fixture.ControlPlaneOperatorRoleARN},
				},
			},
		},
	}
	t.Cleanup(func() {
		// Leave nothing running at the 20 s drift interval for later scenarios.
		if err := env.Client.Delete(context.Background(), c.hc); err != nil && !apierrors.IsNotFound(err) {
			t.Logf("deleting HostedCluster %s/%s: %v", c.ns, c.name, err)
		}
	})
	if beforeCreate != nil {
		beforeCreate(c)
	}
	if err := env.Client.Create(ctx, c.hc); err != nil {
		t.Fatalf("creating HostedCluster: %v", err)
	}
	for i, zone := range zones {
		createNodePool(t, c.ns, fmt.Sprintf("%s-np%d", name, i+1), name, env.Customer.SubnetByAZ[zone])
	}
	return c
}

// rsSetFaults sets the cloud's faults and restores the previous ones when
// the test ends (before its cluster is deleted).
func rsSetFaults(t *testing.T, faults sim.FaultConfig) {
	previous := env.Cloud.Faults.Get()
	env.Cloud.Faults.Set(faults)
	t.Cleanup(func() { env.Cloud.Faults.Set(previous) })
}

func rsCR(ctx context.Context, hcpNS string) (*hcplinkv1beta1.AWSEndpointService, error) {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: rsRouterCR}, cr); err != nil {
		return nil, fmt.Errorf("AWSEndpointService %s: %w", rsRouterCR, err)
	}
	return cr, nil
}

func rsGetCR(t *testing.T, hcpNS string) *hcplinkv1beta1.AWSEndpointService {
	t.Helper()
	cr, err := rsCR(context.Background(), hcpNS)
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

// rsPatchStatus merge-patches the router CR's status (null clears a field).
func rsPatchStatus(t *testing.T, hcpNS string, fields map[string]any) {
	t.Helper()
	raw := []byte(rsJSON(map[string]any{"status": fields}))
	cr := rsGetCR(t, hcpNS)
	if err := env.Client.Status().Patch(context.Background(), cr, client.RawPatch(types.MergePatchType, raw)); err != nil {
		t.Fatalf("patching the status of %s: %v", rsRouterCR, err)
	}
}

func rsConditionMessage(conditions []metav1.Condition, condType string) string {
	if c := meta.FindStatusCondition(conditions, condType); c != nil {
		return c.Message
	}
	return ""
}

// rsWaitReady waits until the router CR is served end to end: both
// conditions True, its endpoint available in the cloud, and the records
// pointing at the endpoint's DNS name.
func rsWaitReady(t *testing.T, c *rsCluster, timeout time.Duration) *hcplinkv1beta1.AWSEndpointService {
	t.Helper()
	var ready *hcplinkv1beta1.AWSEndpointService
	suite.Eventually(t, timeout, "the private router's VPC endpoint and records", func(ctx context.Context) error {
		cr, err := rsCR(ctx, c.hcpNS)
		if err != nil {
			return err
		}
		for _, cond := range []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AWSEndpointAvailableCondition} {
			if err := e2eutil.ConditionIs(cr.Status.Conditions, cond, metav1.ConditionTrue, ""); err != nil {
				return err
			}
		}
		if state := rsEndpointState(devenv.CustomerAccount, cr.Status.EndpointID); state != cloudaws.EndpointAvailable {
			return fmt.Errorf("VPC endpoint %q is %q in the cloud", cr.Status.EndpointID, state)
		}
		if err := rsCheckRecords(ctx, c, cr.Status.EndpointID); err != nil {
			return err
		}
		ready = cr
		return nil
	})
	return ready
}

// rsExpectOne checks that the cloud holds exactly one endpoint service,
// one live VPC endpoint and one security group tagged for the cluster.
func rsExpectOne(t *testing.T, c *rsCluster) {
	t.Helper()
	if svcs := rsEndpointServices(c.infraID); len(svcs) != 1 {
		t.Errorf("want 1 endpoint service tagged for %s, the management account has %d: %+v", c.infraID, len(svcs), svcs)
	}
	if eps := rsLiveEndpoints(c.infraID); len(eps) != 1 {
		t.Errorf("want 1 VPC endpoint tagged for %s, the customer account has %d: %+v", c.infraID, len(eps), eps)
	}
	if sgs := rsSecurityGroups(c.infraID); len(sgs) != 1 {
		t.Errorf("want 1 security group tagged for %s, the customer account has %d: %v", c.infraID, len(sgs), sgs)
	}
}

// rsCheckRecords checks that *.apps and api in the cluster's zone are
// CNAMEs to the endpoint's first DNS name, as the SDK reports it.
func rsCheckRecords(ctx context.Context, c *rsCluster, endpointID string) error {
	out, err := ec2.NewFromConfig(env.CustomerAWS).DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{endpointID}})
	if err != nil {
		return fmt.Errorf("describing VPC endpoint %s: %w", endpointID, err)
	}
	if len(out.VpcEndpoints) != 1 || len(out.VpcEndpoints[0].DnsEntries) == 0 {
		return fmt.Errorf("VPC endpoint %s has no DNS names", endpointID)
	}
	target := strings.TrimSuffix(aws.ToString(out.VpcEndpoints[0].DnsEntries[0].DnsName), ".")
	records := rsRecords(c.zoneName())
	for _, name := range []string{"*.apps." + c.zoneName(), "api." + c.zoneName()} {
		rs, ok := records[name]
		switch {
		case !ok:
			return fmt.Errorf("zone %s has no record %s", c.zoneName(), name)
		case rs.Type != "CNAME" || len(rs.Values) != 1 || strings.TrimSuffix(rs.Values[0], ".") != target:
			return fmt.Errorf("record %s is %s %v, want CNAME %s", name, rs.Type, rs.Values, target)
		}
	}
	return nil
}

// --- cloud views (cloudsim's model, read under its lock) ---

type rsEndpoint struct {
	ID, State, ServiceName string
	SubnetIDs              []string
}

type rsService struct {
	ID, Name, State   string
	AllowedPrincipals []string
}

// rsTaggedFor reports whether a resource carries the cluster's ownership
// tag and names the router CR.
func rsTaggedFor(tags map[string]string, infraID string) bool {
	return tags[hcplinkv1beta1.ClusterTagKey(infraID)] == hcplinkv1beta1.ClusterTagValueOwned &&
		tags[hcplinkv1beta1.EndpointServiceTagKey] == rsRouterCR
}

// rsLiveEndpoints lists the customer account's VPC endpoints tagged for
// the cluster that are not being deleted.
func rsLiveEndpoints(infraID string) []rsEndpoint {
	var out []rsEndpoint
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, devenv.CustomerAccount)
		if r == nil {
			return
		}
		for id, ep := range r.PrivateLink.Endpoints {
			if rsTaggedFor(r.Tags[id], infraID) && ep.State != cloudaws.EndpointDeleting && ep.State != "deleted" {
				out = append(out, rsEndpoint{ID: id, State: ep.State, ServiceName: ep.ServiceName, SubnetIDs: slices.Clone(ep.SubnetIDs)})
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// rsEndpointState is a VPC endpoint's state in an account ("" when gone).
func rsEndpointState(account, id string) string {
	var state string
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		if r := rsRegion(accounts, account); r != nil {
			if ep := r.PrivateLink.Endpoints[id]; ep != nil {
				state = ep.State
			}
		}
	})
	return state
}

func rsSecurityGroups(infraID string) []string {
	var out []string
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, devenv.CustomerAccount)
		if r == nil {
			return
		}
		for id := range r.EC2.SecurityGroups {
			if rsTaggedFor(r.Tags[id], infraID) {
				out = append(out, id)
			}
		}
	})
	sort.Strings(out)
	return out
}

func rsEndpointServices(infraID string) []rsService {
	var out []rsService
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, devenv.ManagementAccount)
		if r == nil {
			return
		}
		for id, svc := range r.PrivateLink.Services {
			if rsTaggedFor(r.Tags[id], infraID) {
				out = append(out, rsService{ID: id, Name: svc.Name, State: svc.State, AllowedPrincipals: slices.Clone(svc.AllowedPrincipals)})
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func rsRegion(accounts map[string]*cloudaws.Account, account string) *cloudaws.Region {
	if a := accounts[account]; a != nil {
		return a.Regions[devenv.Region]
	}
	return nil
}

// rsRecordName normalises a record name: no trailing dot, \052 → *.
func rsRecordName(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSuffix(name, ".")), `\052`, "*")
}

// rsRecords returns the records (by normalised name) of the customer's
// private zones named zone.
func rsRecords(zone string) map[string]cloudaws.RecordSet {
	return flRecords(devenv.CustomerAccount, zone)
}

// rsRecordsMentioning lists, across every account and zone, the CNAME
// records whose name or value contains s.
func rsRecordsMentioning(s string) []string {
	var out []string
	s = strings.ToLower(s)
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, a := range accounts {
			for _, z := range a.Route53.HostedZones {
				for _, rs := range z.Records {
					if rs.Type != "CNAME" {
						continue
					}
					name := rsRecordName(rs.Name)
					hit := strings.Contains(name, s)
					for _, v := range rs.Values {
						hit = hit || strings.Contains(strings.ToLower(v), s)
					}
					if hit {
						out = append(out, a.ID+" "+z.ID+" "+name)
					}
				}
			}
		}
	})
	sort.Strings(out)
	return out
}

// rsCallsBetween sums, over every account, the calls of the given service
// prefixes between two counter snapshots.
func rsCallsBetween(before, after map[string]map[string]sim.CallCount, prefixes ...string) (total, throttled int64) {
	for account, ops := range after {
		for op, n := range ops {
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(op, p) }) {
				continue
			}
			prev := before[account][op]
			total += n.Total - prev.Total
			throttled += n.Throttled - prev.Throttled
		}
	}
	return total, throttled
}

// --- SDK helpers ---

// rsAccountConfig is an SDK configuration for any cloudsim account, built
// as devenv builds its own.
func rsAccountConfig(t *testing.T, account string) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(devenv.Region),
		config.WithBaseEndpoint(env.CloudURL),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(account, "devenv", "")),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
	if err != nil {
		t.Fatalf("SDK configuration for account %s: %v", account, err)
	}
	awshttp.Apply(&cfg)
	return cfg
}

// rsZoneIDs maps an account's zone names to zone IDs.
func rsZoneIDs(t *testing.T, cfg aws.Config) map[string]string {
	t.Helper()
	out, err := ec2.NewFromConfig(cfg).DescribeAvailabilityZones(context.Background(), &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		t.Fatalf("describing availability zones: %v", err)
	}
	m := map[string]string{}
	for _, z := range out.AvailabilityZones {
		m[aws.ToString(z.ZoneName)] = aws.ToString(z.ZoneId)
	}
	return m
}

// rsSubnetIn returns a subnet of the customer VPC in zone, creating one in
// a free /20 when there is none.
func rsSubnetIn(t *testing.T, zone string) string {
	t.Helper()
	ctx := context.Background()
	client := ec2.NewFromConfig(env.CustomerAWS)
	out, err := client.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{env.Customer.VPCID}},
		{Name: aws.String("availability-zone"), Values: []string{zone}},
	}})
	if err != nil {
		t.Fatalf("describing subnets in %s: %v", zone, err)
	}
	if len(out.Subnets) > 0 {
		return aws.ToString(out.Subnets[0].SubnetId)
	}
	for third := 240; third >= 192; third -= 16 {
		created, err := client.CreateSubnet(ctx, &ec2.CreateSubnetInput{
			VpcId: aws.String(env.Customer.VPCID), AvailabilityZone: aws.String(zone), CidrBlock: aws.String(fmt.Sprintf("10.1.%d.0/20", third)),
		})
		if err == nil {
			return aws.ToString(created.Subnet.SubnetId)
		}
		t.Logf("subnet 10.1.%d.0/20 in %s: %v", third, zone, err)
	}
	t.Fatalf("no free /20 for a subnet in %s", zone)
	return ""
}

func rsJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
