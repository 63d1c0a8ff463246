package awsendpointservice

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

func apiErr(code, msg string) error {
	return &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpcEndpointServiceConfiguration",
		Err: &smithy.GenericAPIError{Code: code, Message: msg}}
}

// TestOutcomeOfProviderErrors: the errors the provider wraps turn into the
// shared policy's reasons; anything not from the cloud is unexpected.
func TestOutcomeOfProviderErrors(t *testing.T) {
	p := outcome.DefaultPolicy
	cases := []struct {
		name    string
		err     error
		status  metav1.ConditionStatus
		reason  string
		first   outcome.Step
		passErr bool
	}{
		{"throttled", awscloud.Wrap("creating", apiErr(awscloud.CodeRequestLimitExceeded, "Request limit exceeded.")), metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, p.Throttled, false},
		{"access denied", awscloud.Wrap("creating", apiErr(awscloud.CodeUnauthorizedOperation, "You are not authorized")), metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason, p.Person, false},
		{"invalid input", awscloud.Wrap("creating", apiErr(awscloud.CodeInvalidParameter, "Invalid Principal")), metav1.ConditionFalse, hcplinkv1beta1.InvalidParameterReason, p.Person, false},
		{"dependency", awscloud.Wrap("deleting", apiErr(awscloud.CodeExistingVpcEndpointConnections, "connected")), metav1.ConditionFalse, hcplinkv1beta1.DependencyReason, p.Dependency, false},
		{"transient", awscloud.Wrap("creating", errors.New("connection reset")), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, p.Transient, false},
		{"not a cloud error", errors.New("etcd fell over"), metav1.ConditionUnknown, hcplinkv1beta1.InternalErrorReason, outcome.Step{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := outcome.FromError(tc.err)
			if o.Status != tc.status || o.Reason != tc.reason {
				t.Errorf("status/reason = %s/%s, want %s/%s", o.Status, o.Reason, tc.status, tc.reason)
			}
			if o.After < tc.first.Base || o.After > tc.first.Base+tc.first.Spread {
				t.Errorf("first delay = %v, want in [%v, %v]", o.After, tc.first.Base, tc.first.Base+tc.first.Spread)
			}
			if (o.Err != nil) != tc.passErr {
				t.Errorf("err = %v, want passed on: %v", o.Err, tc.passErr)
			}
			if len(o.Message) > outcome.MaxMessageLength || o.Message == "" {
				t.Errorf("message %q: empty or longer than %d", o.Message, outcome.MaxMessageLength)
			}
		})
	}
}

func TestErrorMessageIsSanitised(t *testing.T) {
	raw := fmt.Errorf("operation error EC2: CreateVpcEndpointServiceConfiguration, https response error StatusCode: 403, RequestID: 0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e, api error UnauthorizedOperation: %s",
		strings.Repeat("You are not authorized to perform this operation. ", 20))
	err := &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpcEndpointServiceConfiguration",
		Err: &smithy.GenericAPIError{Code: awscloud.CodeUnauthorizedOperation, Message: raw.Error()}}
	o := outcome.FromError(awscloud.Wrap("creating the endpoint service", err))
	for _, bad := range []string{"0b1c2d3e-4f5a", "StatusCode", "RequestID", "https response error"} {
		if strings.Contains(o.Message, bad) {
			t.Errorf("message contains %q: %s", bad, o.Message)
		}
	}
	if !strings.Contains(o.Message, awscloud.CodeUnauthorizedOperation) || !strings.HasPrefix(o.Message, "Creating the endpoint service") {
		t.Errorf("message lacks the code or what failed: %s", o.Message)
	}
	if len(o.Message) > outcome.MaxMessageLength {
		t.Errorf("message is %d long", len(o.Message))
	}
}

func subnetIDs(from, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, fmt.Sprintf("subnet-%08x", from+i))
	}
	return out
}

func TestSubnetUnion(t *testing.T) {
	many := subnetIDs(0, 12)
	slices.Reverse(many)
	// Zone layout: subnets 0..9 in zone az1, 10 in az2, 11 in az3. Capped by
	// sorted ID, az2 and az3 would get no endpoint at all.
	crowded := map[string]string{}
	for i, s := range subnetIDs(0, 12) {
		switch {
		case i < 10:
			crowded[s] = "use1-az1"
		case i == 10:
			crowded[s] = "use1-az2"
		default:
			crowded[s] = "use1-az3"
		}
	}
	// Twelve zones of one subnet each: the first ten zone IDs are kept.
	twelveZones := map[string]string{}
	for i, s := range subnetIDs(0, 12) {
		twelveZones[s] = fmt.Sprintf("use1-az%02d", 12-i) // subnet 0 is in the last zone
	}
	cases := []struct {
		name    string
		in      []string
		zones   map[string]string
		want    []string
		wanted  int
		leftOut []string
	}{
		{"none", nil, nil, nil, 0, nil},
		{"empty IDs skipped", []string{"", ""}, nil, nil, 0, nil},
		{"sorted and unique", []string{"subnet-b", "subnet-a", "subnet-b", ""}, nil, []string{"subnet-a", "subnet-b"}, 2, nil},
		{"zones unknown: capped at 10 by ID", many, nil, subnetIDs(0, 10), 12, nil},
		{"one per zone first", many, crowded, append(subnetIDs(0, 8), subnetIDs(10, 2)...), 12, nil},
		{"more zones than the cap", many, twelveZones, subnetIDs(2, 10), 12, []string{"use1-az11", "use1-az12"}},
		{"unknown zones rank after known ones", many,
			map[string]string{"subnet-0000000b": "use1-az1", "subnet-0000000a": "use1-az2", "subnet-00000009": "use1-az2"},
			append(subnetIDs(0, 7), subnetIDs(9, 3)...), 12, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := subnetUnion(tc.in, tc.zones)
			if !slices.Equal(got.subnets, tc.want) || got.wanted != tc.wanted || !slices.Equal(got.zonesLeftOut, tc.leftOut) {
				t.Errorf("subnetUnion = %v, %d, left out %v; want %v, %d, left out %v", got.subnets, got.wanted, got.zonesLeftOut, tc.want, tc.wanted, tc.leftOut)
			}
		})
	}
}

func TestDesiredPrincipals(t *testing.T) {
	cases := []struct {
		role       string
		additional []string
		want       []string
	}{
		{"arn:aws:iam::222222222222:role/path/x-cpo", nil, []string{"arn:aws:iam::222222222222:role/x-cpo"}},
		{"arn:aws:iam::222222222222:role/a/b/c/x-cpo", []string{"arn:aws:iam::333333333333:root", "arn:aws:iam::222222222222:role/x-cpo"},
			[]string{"arn:aws:iam::222222222222:role/x-cpo", "arn:aws:iam::333333333333:root"}},
		{"arn:aws:iam::222222222222:role/x-cpo", []string{"arn:aws-us-gov:iam::444444444444:user/ops/alice"},
			[]string{"arn:aws-us-gov:iam::444444444444:user/ops/alice", "arn:aws:iam::222222222222:role/x-cpo"}},
		{"", []string{"arn:aws:iam::333333333333:root"}, []string{"arn:aws:iam::333333333333:root"}},
	}
	for _, tc := range cases {
		if got := desiredPrincipals(tc.role, tc.additional); !slices.Equal(got, tc.want) {
			t.Errorf("desiredPrincipals(%q, %v) = %v, want %v", tc.role, tc.additional, got, tc.want)
		}
	}
}

func TestPrincipalDiff(t *testing.T) {
	add, remove := principalDiff([]string{"a", "b", "c"}, []string{"c", "d", "b"})
	if !slices.Equal(add, []string{"a"}) || !slices.Equal(remove, []string{"d"}) {
		t.Errorf("add %v remove %v", add, remove)
	}
	add, remove = principalDiff([]string{"a"}, []string{"a"})
	if len(add)+len(remove) != 0 {
		t.Errorf("equal sets: add %v remove %v", add, remove)
	}
}

func TestDesiredTagsAndManagedKeys(t *testing.T) {
	tags := desiredTags("infra-1", "private-router", "mc-a", []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "a"}, {Key: "env", Value: "prod"},
		{Key: hcplinkv1beta1.ManagementClusterTagKey, Value: "spoofed"}})
	want := map[string]string{"team": "a", "env": "prod", "kubernetes.io/cluster/infra-1": "owned", "hcplink.io/endpoint-service": "private-router",
		hcplinkv1beta1.ManagementClusterTagKey: "mc-a"}
	if !maps.Equal(tags, want) {
		t.Errorf("desiredTags = %v, want %v", tags, want)
	}
	if _, ok := desiredTags("infra-1", "private-router", "", nil)[hcplinkv1beta1.ManagementClusterTagKey]; ok {
		t.Error("an unknown management cluster ID was written as a tag")
	}
	managed := managedTagKey("infra-1", "mc-a", []string{"env", "team"}, []string{"old"})
	for key, want := range map[string]bool{"team": true, "env": true, "old": true, "kubernetes.io/cluster/infra-1": true,
		"hcplink.io/endpoint-service": true, hcplinkv1beta1.ManagementClusterTagKey: true, "cost-center": false, "kubernetes.io/cluster/other": false} {
		if managed(key) != want {
			t.Errorf("managed(%q) = %v, want %v", key, !want, want)
		}
	}
	if managedTagKey("infra-1", "", nil, nil)(hcplinkv1beta1.ManagementClusterTagKey) {
		t.Error("with no management cluster ID, the management-cluster tag must be left alone")
	}
	actual := map[string]string{"team": "b", "old": "x", "cost-center": "42", "kubernetes.io/cluster/infra-1": "owned"}
	set, remove := awscloud.TagDiff(tags, actual, managed)
	if !maps.Equal(set, map[string]string{"team": "a", "env": "prod", "hcplink.io/endpoint-service": "private-router", hcplinkv1beta1.ManagementClusterTagKey: "mc-a"}) ||
		!slices.Equal(remove, []string{"old"}) {
		t.Errorf("TagDiff = set %v remove %v", set, remove)
	}
	if got := parseKeys(formatKeys([]string{"a", "b"})); !slices.Equal(got, []string{"a", "b"}) || parseKeys("") != nil {
		t.Errorf("key annotation round trip = %v", got)
	}
}

func TestServiceStateOutcome(t *testing.T) {
	cases := []struct {
		state  string
		reason string
		gone   bool
	}{
		{"Available", "", false},
		{"Pending", hcplinkv1beta1.EndpointServicePendingReason, false},
		{"Failed", hcplinkv1beta1.EndpointServiceFailedReason, false},
		{"Deleting", hcplinkv1beta1.EndpointServiceDeletedReason, true},
		{"Deleted", hcplinkv1beta1.EndpointServiceDeletedReason, true},
	}
	for _, tc := range cases {
		svc := &ec2types.ServiceConfiguration{ServiceName: aws.String("com.amazonaws.vpce.us-east-1.vpce-svc-1"), ServiceState: ec2types.ServiceState(tc.state)}
		o, gone := serviceStateOutcome(svc)
		if o.Reason != tc.reason || gone != tc.gone {
			t.Errorf("%s: reason %q gone %v, want %q %v", tc.state, o.Reason, gone, tc.reason, tc.gone)
		}
	}
}

func TestAvailableOutcome(t *testing.T) {
	if o := availableOutcome(subnetChoice{wanted: 10}, time.Hour); o.Status != metav1.ConditionTrue || o.Reason != hcplinkv1beta1.AWSSuccessReason {
		t.Errorf("10 subnets: %+v", o)
	}
	o := availableOutcome(subnetChoice{wanted: 11}, time.Hour)
	if o.Status != metav1.ConditionFalse || o.Reason != hcplinkv1beta1.TooManySubnetsReason || !strings.Contains(o.Message, "11") || strings.Contains(o.Message, "left out") {
		t.Errorf("11 subnets: %+v", o)
	}
	if o.After < 50*time.Minute || o.Grows() {
		t.Errorf("11 subnets: looked at again after %v (grows %v), want the drift interval", o.After, o.Grows())
	}
	o = availableOutcome(subnetChoice{wanted: 12, zonesLeftOut: []string{"use1-az11", "use1-az12"}}, time.Hour)
	if !strings.Contains(o.Message, "use1-az11, use1-az12") {
		t.Errorf("zones left out not named: %s", o.Message)
	}
}

// TestConnectionsPendingGrows: a deletion held by connections is looked at
// again after growing, capped delays, and at once again after success.
func TestConnectionsPendingGrows(t *testing.T) {
	tr := &outcome.Tracker{}
	var last time.Duration
	for i := range 8 {
		o := tr.Resolve("uid", connectionsPending("svc", 1, "Deleting"))
		if o.Reason != hcplinkv1beta1.ConnectionsPendingReason || !strings.Contains(o.Message, "Next check at") {
			t.Fatalf("pass %d: %+v", i, o)
		}
		if o.After > outcome.DefaultPolicy.Dependency.Cap*11/10 {
			t.Errorf("pass %d: delay %v beyond the cap", i, o.After)
		}
		last = o.After
	}
	if last < outcome.DefaultPolicy.Dependency.Cap*9/10 {
		t.Errorf("after 8 passes the delay is %v, want near the cap %v", last, outcome.DefaultPolicy.Dependency.Cap)
	}
	tr.Resolve("uid", outcome.Continue())
	if o := tr.Resolve("uid", connectionsPending("svc", 1, "Deleting")); o.After > outcome.DefaultPolicy.Dependency.Base+outcome.DefaultPolicy.Dependency.Spread {
		t.Errorf("after success the delay is %v, want the first one again", o.After)
	}
}

func TestManagementClaim(t *testing.T) {
	tagged := func(v string) []ec2types.Tag {
		if v == "" {
			return awscloud.EC2Tags(map[string]string{"team": "x"})
		}
		return awscloud.EC2Tags(map[string]string{hcplinkv1beta1.ManagementClusterTagKey: v})
	}
	cases := []struct {
		tag, id string
		want    claim
	}{
		{"", "mc-a", unclaimed},
		{"", "", unclaimed},
		{"mc-a", "mc-a", claimedByUs},
		{"mc-b", "mc-a", claimedByAnother},
		{"mc-a", "", claimedByAnother}, // cannot tell: never adopt
	}
	for _, tc := range cases {
		if got := managementClaim(tagged(tc.tag), tc.id); got != tc.want {
			t.Errorf("tag %q, id %q: claim %v, want %v", tc.tag, tc.id, got, tc.want)
		}
	}
}

func TestSweepable(t *testing.T) {
	owned := func(mc string) map[string]string {
		m := map[string]string{"kubernetes.io/cluster/infra-1": "owned", "hcplink.io/endpoint-service": "private-router", "team": "x"}
		if mc != "" {
			m[hcplinkv1beta1.ManagementClusterTagKey] = mc
		}
		return m
	}
	if o, ok := sweepable(owned("mc-a"), "mc-a"); !ok || o.InfraID != "infra-1" || o.Name != "private-router" {
		t.Errorf("own service: %+v, %v", o, ok)
	}
	for name, tc := range map[string]struct {
		tags map[string]string
		id   string
	}{
		"another management cluster's": {owned("mc-b"), "mc-a"},
		"no management-cluster tag":    {owned(""), "mc-a"},
		"own ID unknown":               {owned("mc-a"), ""},
		"shared, not owned":            {map[string]string{"kubernetes.io/cluster/infra-1": "shared", "hcplink.io/endpoint-service": "x", hcplinkv1beta1.ManagementClusterTagKey: "mc-a"}, "mc-a"},
		"no endpoint-service tag":      {map[string]string{"kubernetes.io/cluster/infra-1": "owned", hcplinkv1beta1.ManagementClusterTagKey: "mc-a"}, "mc-a"},
	} {
		if _, ok := sweepable(tc.tags, tc.id); ok {
			t.Errorf("%s: sweepable", name)
		}
	}
}

func nodePool(subnet *string, aws bool) *hcplinkv1beta1.NodePool {
	np := &hcplinkv1beta1.NodePool{}
	if aws {
		np.Spec.Platform.AWS = &hcplinkv1beta1.AWSNodePoolPlatform{}
		if subnet != nil {
			np.Spec.Platform.AWS.Subnet = &hcplinkv1beta1.AWSSubnetReference{ID: *subnet}
		}
	}
	return np
}

func TestNodePoolSubnetChanged(t *testing.T) {
	a, b := "subnet-a", "subnet-b"
	cases := []struct {
		name     string
		old, new client.Object
		want     bool
	}{
		{"same subnet", nodePool(&a, true), nodePool(&a, true), false},
		{"another subnet", nodePool(&a, true), nodePool(&b, true), true},
		{"from empty", nodePool(nil, true), nodePool(&a, true), true},
		{"to empty", nodePool(&a, true), nodePool(nil, true), true},
		{"AWS platform added with a subnet", nodePool(nil, false), nodePool(&a, true), true},
		{"AWS platform removed", nodePool(&a, true), nodePool(nil, false), true},
		{"both empty", nodePool(nil, false), nodePool(nil, true), false},
		{"not NodePools", &hcplinkv1beta1.HostedCluster{}, &hcplinkv1beta1.HostedCluster{}, true},
	}
	for _, tc := range cases {
		if got := nodePoolSubnetChanged.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEndpointServiceChanged(t *testing.T) {
	base := &hcplinkv1beta1.AWSEndpointService{}
	base.Generation = 1
	zones := base.DeepCopy()
	zones.Status.SubnetZoneIDs = map[string]string{"subnet-a": "use1-az1"}
	otherStatus := base.DeepCopy()
	otherStatus.Status.EndpointServiceName = "svc"
	nextGen := base.DeepCopy()
	nextGen.Generation = 2
	for name, tc := range map[string]struct {
		new  client.Object
		want bool
	}{
		"status written":     {otherStatus, false},
		"zones reported":     {zones, true},
		"spec changed (NLB)": {nextGen, true},
	} {
		if got := endpointServiceChanged.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
