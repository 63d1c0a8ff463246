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

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

func half() float64 { return 0.5 }

func apiErr(code, msg string) error {
	return &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpcEndpointServiceConfiguration",
		Err: &smithy.GenericAPIError{Code: code, Message: msg}}
}

func TestErrorOutcome(t *testing.T) {
	b := defaultBackoff
	cases := []struct {
		name       string
		err        error
		status     metav1.ConditionStatus
		reason     string
		minRequeue time.Duration
		maxRequeue time.Duration
		passErr    bool
	}{
		{"throttled", cloud("creating", apiErr("RequestLimitExceeded", "Request limit exceeded.")), metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, b.throttledMin, b.throttledMax, false},
		{"access denied", cloud("creating", apiErr("UnauthorizedOperation", "You are not authorized")), metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason, b.permanent, b.permanent, false},
		{"invalid input", cloud("creating", apiErr("InvalidPrincipal", "Invalid Principal")), metav1.ConditionFalse, hcplinkv1beta1.InvalidParameterReason, b.permanent, b.permanent, false},
		{"other client error", cloud("creating", apiErr("IncorrectState", "nope")), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, b.permanent, b.permanent, false},
		{"transient", cloud("creating", errors.New("connection reset")), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, b.transientMin, b.transientMax, false},
		{"not a cloud error", errors.New("etcd fell over"), metav1.ConditionUnknown, hcplinkv1beta1.InternalErrorReason, 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := errorOutcome(tc.err, b, half)
			if o.status != tc.status || o.reason != tc.reason {
				t.Errorf("status/reason = %s/%s, want %s/%s", o.status, o.reason, tc.status, tc.reason)
			}
			if o.requeue < tc.minRequeue || o.requeue > tc.maxRequeue {
				t.Errorf("requeue = %v, want in [%v, %v]", o.requeue, tc.minRequeue, tc.maxRequeue)
			}
			if (o.err != nil) != tc.passErr {
				t.Errorf("err = %v, want passed on: %v", o.err, tc.passErr)
			}
			if len(o.message) > awscloud.MaxMessageLength || o.message == "" {
				t.Errorf("message %q: empty or longer than %d", o.message, awscloud.MaxMessageLength)
			}
		})
	}
}

func TestErrorMessageIsSanitised(t *testing.T) {
	raw := fmt.Errorf("operation error EC2: CreateVpcEndpointServiceConfiguration, https response error StatusCode: 403, RequestID: 0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e, api error UnauthorizedOperation: %s",
		strings.Repeat("You are not authorized to perform this operation. ", 20))
	err := &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpcEndpointServiceConfiguration",
		Err: &smithy.GenericAPIError{Code: "UnauthorizedOperation", Message: raw.Error()}}
	o := errorOutcome(cloud("creating the endpoint service", err), defaultBackoff, half)
	for _, bad := range []string{"0b1c2d3e-4f5a", "StatusCode", "RequestID", "https response error"} {
		if strings.Contains(o.message, bad) {
			t.Errorf("message contains %q: %s", bad, o.message)
		}
	}
	if !strings.Contains(o.message, "UnauthorizedOperation") || !strings.HasPrefix(o.message, "Creating the endpoint service") {
		t.Errorf("message lacks the code or what failed: %s", o.message)
	}
	if len(o.message) > awscloud.MaxMessageLength {
		t.Errorf("message is %d long", len(o.message))
	}
}

func TestSubnetUnion(t *testing.T) {
	many := make([]string, 0, 12)
	for i := 11; i >= 0; i-- {
		many = append(many, fmt.Sprintf("subnet-%08x", i))
	}
	cases := []struct {
		name   string
		in     []string
		want   []string
		wanted int
	}{
		{"none", nil, nil, 0},
		{"empty IDs skipped", []string{"", ""}, nil, 0},
		{"sorted and unique", []string{"subnet-b", "subnet-a", "subnet-b", ""}, []string{"subnet-a", "subnet-b"}, 2},
		{"capped at 10", many, []string{"subnet-00000000", "subnet-00000001", "subnet-00000002", "subnet-00000003", "subnet-00000004",
			"subnet-00000005", "subnet-00000006", "subnet-00000007", "subnet-00000008", "subnet-00000009"}, 12},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, wanted := subnetUnion(tc.in)
			if !slices.Equal(got, tc.want) || wanted != tc.wanted {
				t.Errorf("subnetUnion(%v) = %v, %d; want %v, %d", tc.in, got, wanted, tc.want, tc.wanted)
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
	tags := desiredTags("infra-1", "private-router", []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "a"}, {Key: "env", Value: "prod"}})
	want := map[string]string{"team": "a", "env": "prod", "kubernetes.io/cluster/infra-1": "owned", "hcplink.io/endpoint-service": "private-router"}
	if !maps.Equal(tags, want) {
		t.Errorf("desiredTags = %v, want %v", tags, want)
	}
	managed := managedTagKey("infra-1", []string{"env", "team"}, []string{"old"})
	for key, want := range map[string]bool{"team": true, "env": true, "old": true, "kubernetes.io/cluster/infra-1": true,
		"hcplink.io/endpoint-service": true, "cost-center": false, "kubernetes.io/cluster/other": false} {
		if managed(key) != want {
			t.Errorf("managed(%q) = %v, want %v", key, !want, want)
		}
	}
	actual := map[string]string{"team": "b", "old": "x", "cost-center": "42", "kubernetes.io/cluster/infra-1": "owned"}
	set, remove := awscloud.TagDiff(tags, actual, managed)
	if !maps.Equal(set, map[string]string{"team": "a", "env": "prod", "hcplink.io/endpoint-service": "private-router"}) || !slices.Equal(remove, []string{"old"}) {
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
		{"Pending", EndpointServicePendingReason, false},
		{"Failed", hcplinkv1beta1.EndpointServiceFailedReason, false},
		{"Deleting", EndpointServiceDeletedReason, true},
		{"Deleted", EndpointServiceDeletedReason, true},
	}
	for _, tc := range cases {
		svc := &ec2types.ServiceConfiguration{ServiceName: aws.String("com.amazonaws.vpce.us-east-1.vpce-svc-1"), ServiceState: ec2types.ServiceState(tc.state)}
		o, gone := serviceStateOutcome(svc, time.Second, time.Hour)
		if o.reason != tc.reason || gone != tc.gone {
			t.Errorf("%s: reason %q gone %v, want %q %v", tc.state, o.reason, gone, tc.reason, tc.gone)
		}
	}
}

func TestAvailableCondition(t *testing.T) {
	if o := availableCondition(10); o.status != metav1.ConditionTrue || o.reason != hcplinkv1beta1.AWSSuccessReason {
		t.Errorf("10 subnets: %+v", o)
	}
	if o := availableCondition(11); o.status != metav1.ConditionFalse || o.reason != hcplinkv1beta1.TooManySubnetsReason || !strings.Contains(o.message, "11") {
		t.Errorf("11 subnets: %+v", o)
	}
}

func TestJitter(t *testing.T) {
	for _, f := range []float64{0, 0.5, 0.999} {
		d := jittered(10*time.Minute, func() float64 { return f })
		if d < 8*time.Minute+30*time.Second || d > 11*time.Minute+30*time.Second {
			t.Errorf("jittered(10m, %v) = %v", f, d)
		}
	}
}

func TestTaggedOwner(t *testing.T) {
	o, ok := taggedOwner(awscloud.EC2Tags(map[string]string{"kubernetes.io/cluster/infra-1": "owned", "hcplink.io/endpoint-service": "private-router", "team": "x"}))
	if !ok || o != (owner{infraID: "infra-1", name: "private-router"}) {
		t.Errorf("taggedOwner = %+v, %v", o, ok)
	}
	if _, ok := taggedOwner(awscloud.EC2Tags(map[string]string{"kubernetes.io/cluster/infra-1": "shared", "hcplink.io/endpoint-service": "x"})); ok {
		t.Error("a shared cluster tag must not make a service ours")
	}
	if _, ok := taggedOwner(awscloud.EC2Tags(map[string]string{"kubernetes.io/cluster/infra-1": "owned"})); ok {
		t.Error("a service without the endpoint-service tag is not hcplink's")
	}
}
