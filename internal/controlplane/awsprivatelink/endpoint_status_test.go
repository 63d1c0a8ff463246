package awsprivatelink

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/smithy-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

func TestEndpointStateOutcome(t *testing.T) {
	tests := []struct {
		state  ec2types.State
		reason string
	}{
		{"available", ""},
		{"pending", hcplinkv1beta1.EndpointPendingReason},
		{"pendingAcceptance", hcplinkv1beta1.EndpointPendingAcceptanceReason},
		{"rejected", hcplinkv1beta1.EndpointRejectedReason},
		{"failed", hcplinkv1beta1.EndpointFailedReason},
		{"Failed", hcplinkv1beta1.EndpointFailedReason},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		o := endpointStateOutcome("vpce-1", tt.state)
		if tt.reason == "" {
			if !o.Done() {
				t.Errorf("%s: %+v, want ready", tt.state, o)
			}
			continue
		}
		if o.Reason != tt.reason || o.Status != metav1.ConditionFalse || !strings.Contains(o.Message, "vpce-1") || o.After <= 0 {
			t.Errorf("%s: %+v, want False/%s", tt.state, o, tt.reason)
		}
		// Every waiting state rechecks soon, then less often; only those a
		// person must clear say when the next check is (a poll of a
		// pending endpoint keeps its message, so it writes nothing).
		if !o.Grows() {
			t.Errorf("%s: the recheck does not grow", tt.state)
		}
		resolved := (&outcome.Tracker{}).Resolve("k", o)
		if person := tt.reason != hcplinkv1beta1.EndpointPendingReason; strings.Contains(resolved.Message, "Next check at") != person {
			t.Errorf("%s: message %q; says when the next check is: want %v", tt.state, resolved.Message, person)
		}
		if tt.state != "Failed" {
			if seen[o.Message] {
				t.Errorf("%s shares its message with another state", tt.state)
			}
			seen[o.Message] = true
		}
	}
}

// TestWithCredentialsCause: AccessDenied while the HostedControlPlane
// says the credentials are invalid names the credentials, not a missing
// permission; with valid (or unchecked) credentials it stays AccessDenied.
func TestWithCredentialsCause(t *testing.T) {
	denied := outcome.FromError(awscloud.Wrap("describing security group sg-1",
		&smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeSecurityGroups", Err: &smithy.GenericAPIError{Code: "UnauthorizedOperation", Message: "m"}}))
	hcp := func(status metav1.ConditionStatus) *hcplinkv1beta1.HostedControlPlane {
		h := &hcplinkv1beta1.HostedControlPlane{}
		if status != "" {
			h.Status.Conditions = []metav1.Condition{{Type: hcplinkv1beta1.ValidCloudCredentialsCondition, Status: status,
				Reason: hcplinkv1beta1.InvalidCredentialsReason, Message: "AWS refused role arn:aws:iam::1:role/x"}}
		}
		return h
	}
	if o := withCredentialsCause(denied, hcp(metav1.ConditionFalse)); o.Reason != hcplinkv1beta1.InvalidCredentialsReason ||
		!strings.Contains(o.Message, "arn:aws:iam::1:role/x") || strings.Contains(o.Message, "grant") || !o.Grows() {
		t.Errorf("invalid credentials: %+v", o)
	}
	for _, status := range []metav1.ConditionStatus{metav1.ConditionTrue, ""} {
		if o := withCredentialsCause(denied, hcp(status)); o.Reason != hcplinkv1beta1.AccessDeniedReason {
			t.Errorf("credentials %q: reason %s, want AccessDenied", status, o.Reason)
		}
	}
	pending := endpointStateOutcome("vpce-1", "pending")
	if o := withCredentialsCause(pending, hcp(metav1.ConditionFalse)); o.Reason != hcplinkv1beta1.EndpointPendingReason {
		t.Errorf("a non-error outcome changed: %+v", o)
	}
}

func TestSubnetsPerZone(t *testing.T) {
	sn := func(id, zone string) ec2types.Subnet {
		return ec2types.Subnet{SubnetId: aws.String(id), AvailabilityZoneId: aws.String(zone)}
	}
	got := SubnetsPerZone([]ec2types.Subnet{sn("subnet-c", "az1"), sn("subnet-a", "az1"), sn("subnet-b", "az2"), sn("subnet-d", "az3"), sn("subnet-0", "az3")})
	if ids := subnetIDs(got); !reflect.DeepEqual(ids, []string{"subnet-0", "subnet-a", "subnet-b"}) {
		t.Errorf("SubnetsPerZone = %v", ids)
	}
	if u := UnservedSubnets(got, []string{"az1", "az2"}); !reflect.DeepEqual(u, []string{"subnet-0 (az3)"}) {
		t.Errorf("UnservedSubnets = %v", u)
	}
	if u := UnservedSubnets(got, nil); u != nil {
		t.Errorf("unknown zones gave %v", u)
	}
}

func TestSubnetsOfVPC(t *testing.T) {
	sn := func(id, vpc string) ec2types.Subnet {
		return ec2types.Subnet{SubnetId: aws.String(id), VpcId: aws.String(vpc)}
	}
	tests := []struct {
		name      string
		subnets   []ec2types.Subnet
		wantIn    []string
		wantOther []string
	}{
		{"all in the VPC", []ec2types.Subnet{sn("subnet-a", "vpc-1"), sn("subnet-b", "vpc-1")}, []string{"subnet-a", "subnet-b"}, nil},
		{"one of another VPC", []ec2types.Subnet{sn("subnet-a", "vpc-1"), sn("subnet-x", "vpc-2")}, []string{"subnet-a"}, []string{"subnet-x"}},
		{"none in the VPC", []ec2types.Subnet{sn("subnet-x", "vpc-2")}, []string{}, []string{"subnet-x"}},
		{"none at all", nil, []string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, other := SubnetsOfVPC(tc.subnets, "vpc-1")
			if ids := subnetIDs(in); !reflect.DeepEqual(ids, tc.wantIn) || !reflect.DeepEqual(other, tc.wantOther) {
				t.Errorf("SubnetsOfVPC = %v, %v; want %v, %v", ids, other, tc.wantIn, tc.wantOther)
			}
		})
	}
}

func TestRuleDiff(t *testing.T) {
	desired := DesiredIngress(443, []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.2.0.0/16"}, {CIDR: "10.1.0.0/16"}, {CIDR: "10.1.0.0/16"}})
	if len(desired) != 2 || desired[0].CIDR != "10.1.0.0/16" {
		t.Fatalf("DesiredIngress = %v", desired)
	}
	actual := []IngressRule{{Protocol: "tcp", From: 443, To: 443, CIDR: "10.1.0.0/16"}, {Protocol: "tcp", From: 443, To: 443, CIDR: "10.9.0.0/16"}, {Protocol: "tcp", From: 22, To: 22, CIDR: "0.0.0.0/0"}}
	add, revoke := awscloud.RuleDiff(desired, actual)
	if !reflect.DeepEqual(add, []IngressRule{{Protocol: "tcp", From: 443, To: 443, CIDR: "10.2.0.0/16"}}) {
		t.Errorf("authorize %v", add)
	}
	if !reflect.DeepEqual(revoke, []IngressRule{{Protocol: "tcp", From: 443, To: 443, CIDR: "10.9.0.0/16"}, {Protocol: "tcp", From: 22, To: 22, CIDR: "0.0.0.0/0"}}) {
		t.Errorf("revoke %v", revoke)
	}
	if add, revoke := awscloud.RuleDiff(desired, desired); add != nil || revoke != nil {
		t.Errorf("no change gave %v %v", add, revoke)
	}
	if IngressPort("kube-apiserver-private") != 6443 || IngressPort("private-router") != 443 {
		t.Error("ports")
	}
}

func TestEndpointModification(t *testing.T) {
	add, remove, groups := EndpointModification([]string{"s1", "s2"}, []string{"s2", "s3"}, []string{"sg-customer"}, "sg-ours")
	if !reflect.DeepEqual(add, []string{"s3"}) || !reflect.DeepEqual(remove, []string{"s1"}) || !reflect.DeepEqual(groups, []string{"sg-ours"}) {
		t.Errorf("got %v %v %v", add, remove, groups)
	}
	add, remove, groups = EndpointModification([]string{"s1"}, []string{"s1"}, []string{"sg-customer", "sg-ours"}, "sg-ours")
	if add != nil || remove != nil || groups != nil {
		t.Errorf("no change gave %v %v %v (customer groups are never removed)", add, remove, groups)
	}
}

func TestRecordChanges(t *testing.T) {
	cname := func(name, value string, ttl int64) r53types.ResourceRecordSet {
		return r53types.ResourceRecordSet{Name: aws.String(name + "."), Type: r53types.RRTypeCname, TTL: aws.Int64(ttl), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(value)}}}
	}
	ours := endpointOwnsValue("vpce-1")
	target := "vpce-1-abc.vpce-svc-1.us-east-1.vpce.amazonaws.com"
	want := map[string]string{"*.apps.c1.hypershift.local": target}
	tests := []struct {
		name    string
		have    map[string]r53types.ResourceRecordSet
		written []string
		actions []string
	}{
		{"in place: nothing", map[string]r53types.ResourceRecordSet{"*.apps.c1.hypershift.local": cname(`\052.apps.c1.hypershift.local`, target, 300)}, nil, nil},
		{"missing: upsert", nil, nil, []string{"UPSERT *.apps.c1.hypershift.local."}},
		{"other TTL: upsert", map[string]r53types.ResourceRecordSet{"*.apps.c1.hypershift.local": cname("*.apps.c1.hypershift.local", target, 60)}, nil, []string{"UPSERT *.apps.c1.hypershift.local."}},
		{"stale ours: delete", map[string]r53types.ResourceRecordSet{
			"*.apps.c1.hypershift.local": cname("*.apps.c1.hypershift.local", target, 300),
			"api.c1.hypershift.local":    cname("api.c1.hypershift.local", target, 300)},
			[]string{"api.c1.hypershift.local"}, []string{"DELETE api.c1.hypershift.local."}},
		{"stale someone else's: left", map[string]r53types.ResourceRecordSet{
			"*.apps.c1.hypershift.local": cname("*.apps.c1.hypershift.local", target, 300),
			"api.c1.hypershift.local":    cname("api.c1.hypershift.local", "elsewhere.example.com", 300)},
			[]string{"api.c1.hypershift.local"}, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range RecordChanges(want, tt.have, tt.written, ours) {
			got = append(got, string(c.Action)+" "+aws.ToString(c.ResourceRecordSet.Name))
		}
		if !reflect.DeepEqual(got, tt.actions) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.actions)
		}
	}
	if awscloud.RecordName(`\052.Apps.C1.hypershift.local.`) != "*.apps.c1.hypershift.local" {
		t.Error("recordName does not decode the escape")
	}
}
