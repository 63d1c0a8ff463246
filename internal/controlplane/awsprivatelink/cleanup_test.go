package awsprivatelink

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// operatorFinalizer stands for the management operator's finalizer, which
// holds a deleting HostedControlPlane in real life.
const operatorFinalizer = "hcplink.io/operator-cleanup"

func (x *fixture) newCleanup() *CleanupReconciler {
	r := x.newReconciler()
	return &CleanupReconciler{Client: env.Client, EC2: r.EC2, Route53: r.Route53}
}

func (x *fixture) cleanupPass(c *CleanupReconciler) ctrl.Result {
	x.t.Helper()
	res, err := c.Reconcile(x.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(x.hcp)})
	if err != nil {
		x.t.Fatalf("cleanup Reconcile: %v", err)
	}
	return res
}

func (x *fixture) cleanupCondition() *metav1.Condition {
	x.t.Helper()
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.hcp), hcp); err != nil {
		x.t.Fatal(err)
	}
	return CloudCleanupComplete(hcp)
}

// deleteHCP marks the HostedControlPlane deleting, held by a finalizer as
// the operator's holds it, released at the end of the test.
func (x *fixture) deleteHCP() {
	x.t.Helper()
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) { controllerutil.AddFinalizer(hcp, operatorFinalizer) })
	x.t.Cleanup(func() {
		ctx := context.Background() // the test's context is done by now
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(x.hcp), hcp); err != nil {
			return
		}
		patch := client.MergeFrom(hcp.DeepCopy())
		controllerutil.RemoveFinalizer(hcp, operatorFinalizer)
		_ = env.Client.Patch(ctx, hcp, patch)
	})
	if err := env.Client.Delete(x.ctx, x.hcp); err != nil {
		x.t.Fatal(err)
	}
}

// TestFinalSweepAfterForcedNamespaceDeletion: the cluster's endpoint,
// security group and records are left in the customer account with no
// AWSEndpointService to clean them (the namespace was force-deleted
// mid-cluster and recreated). When the HostedControlPlane is deleted, the
// final sweep removes them — records, then the endpoint once it is gone,
// then the group — and reports CloudCleanupComplete=True; a customer's own
// record in the zone and a group not tagged for the cluster stay.
func TestFinalSweepAfterForcedNamespaceDeletion(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	// Finalizers stripped, the CR gone: the cloud resources stay behind.
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer)
	})
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	// The customer's own record and group.
	must(x.r53.ChangeResourceRecordSets(x.ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(x.zoneID), ChangeBatch: &r53types.ChangeBatch{
		Changes: []r53types.Change{{Action: r53types.ChangeActionCreate, ResourceRecordSet: &r53types.ResourceRecordSet{Name: aws.String("db.demo.hypershift.local."),
			Type: r53types.RRTypeCname, TTL: aws.Int64(60), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String("db.example.com")}}}}}}}))(t)
	theirs := aws.ToString(must(x.cust.CreateSecurityGroup(x.ctx, &ec2.CreateSecurityGroupInput{VpcId: aws.String(x.vpc), GroupName: aws.String("theirs"), Description: aws.String("x")}))(t).GroupId)

	c := x.newCleanup()
	// Not deleting: nothing is swept, nothing is written.
	x.cleanupPass(c)
	if cond := x.cleanupCondition(); cond != nil || len(x.endpoints()) != 1 {
		t.Fatalf("swept a cluster that is not deleting: %+v", cond)
	}

	x.deleteHCP()
	res := x.cleanupPass(c)
	if cond := x.cleanupCondition(); cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.DeletingReason ||
		!strings.Contains(cond.Message, aws.ToString(x.endpoint().VpcEndpointId)) {
		t.Fatalf("while the endpoint is deleting: %+v", cond)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > time.Minute {
		t.Errorf("requeue %v while waiting for the endpoint", res.RequeueAfter)
	}
	if got := x.records(); len(got) != 1 || got["db.demo.hypershift.local"] == "" {
		t.Errorf("records after the first pass %v, want the customer's only", got)
	}
	x.clk.Advance(endpointDeleting + time.Second)
	x.cleanupPass(c)

	if cond := x.cleanupCondition(); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Fatalf("CloudCleanupComplete = %+v, want True", cond)
	}
	if eps := x.endpoints(); len(eps) != 0 {
		t.Errorf("endpoints left: %v", eps)
	}
	if sgs := x.securityGroups(); len(sgs) != 0 {
		t.Errorf("security groups tagged for the cluster left: %d", len(sgs))
	}
	if got := x.records(); len(got) != 1 || got["db.demo.hypershift.local"] == "" {
		t.Errorf("records %v, want the customer's only", got)
	}
	out := must(x.cust.DescribeSecurityGroups(x.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{theirs}}))(t)
	if len(out.SecurityGroups) != 1 {
		t.Error("the customer's security group was deleted")
	}
}

// TestFinalSweepWaitsForEndpointServices: while an AWSEndpointService is
// still cleaning up, the sweep only says so and calls nothing.
func TestFinalSweepWaitsForEndpointServices(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.deleteHCP()
	before, _, _ := x.calls()
	x.cleanupPass(x.newCleanup())
	if cond := x.cleanupCondition(); cond == nil || cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, x.cr.Name) {
		t.Fatalf("CloudCleanupComplete = %+v, want False naming %s", cond, x.cr.Name)
	}
	if after, _, byOp := x.calls(); after != before {
		t.Errorf("cloud calls while an AWSEndpointService remains: %v", byOp)
	}
}

func TestSweepableRecord(t *testing.T) {
	ours := "vpce-0abc-1x.vpce-svc-0def.us-east-1.vpce.amazonaws.com"
	tagged := map[string]bool{ours: true}
	tests := []struct {
		value  string
		exists bool
		want   bool
	}{
		{ours, true, true},
		{"vpce-0aaa-2y.vpce-svc-0def.us-east-1.vpce.amazonaws.com", false, true}, // an endpoint that no longer exists
		{"vpce-0aaa-2y.vpce-svc-0def.us-east-1.vpce.amazonaws.com", true, false}, // a live endpoint not tagged for the cluster
		{"db.example.com", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := SweepableRecord(tt.value, tagged, tt.exists); got != tt.want {
			t.Errorf("SweepableRecord(%q, exists=%v) = %v, want %v", tt.value, tt.exists, got, tt.want)
		}
	}
}
