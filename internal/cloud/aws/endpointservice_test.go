package aws

import (
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestPrincipalWithoutPath(t *testing.T) {
	cases := map[string]string{
		"arn:aws:iam::222222222222:role/path/x-cpo":     "arn:aws:iam::222222222222:role/x-cpo",
		"arn:aws:iam::222222222222:role/a/b/c/x-cpo":    "arn:aws:iam::222222222222:role/x-cpo",
		"arn:aws:iam::222222222222:role/x-cpo":          "arn:aws:iam::222222222222:role/x-cpo",
		"arn:aws:iam::222222222222:user/ops/alice":      "arn:aws:iam::222222222222:user/alice",
		"arn:aws-us-gov:iam::222222222222:role/p/x":     "arn:aws-us-gov:iam::222222222222:role/x",
		"arn:aws:iam::222222222222:root":                "arn:aws:iam::222222222222:root",
		"arn:aws:sts::222222222222:assumed-role/x/sess": "arn:aws:sts::222222222222:assumed-role/x/sess",
		"not-an-arn": "not-an-arn",
	}
	for in, want := range cases {
		if got := PrincipalWithoutPath(in); got != want {
			t.Errorf("PrincipalWithoutPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnsuccessfulIsTyped(t *testing.T) {
	code := "ExistingVpcEndpointConnections"
	err := unsuccessful("deleting", []ec2types.UnsuccessfulItem{{ResourceId: ptr("vpce-svc-1"),
		Error: &ec2types.UnsuccessfulItemError{Code: &code, Message: ptr("Service has existing active VPC Endpoint connections!")}}})
	if ErrorCode(err) != CodeExistingVpcEndpointConnections || Classify(err) != ClassDependency {
		t.Errorf("code %q class %q", ErrorCode(err), Classify(err))
	}
	nf := "InvalidVpcEndpointService.NotFound"
	if err := unsuccessful("deleting", []ec2types.UnsuccessfulItem{{Error: &ec2types.UnsuccessfulItemError{Code: &nf}}}); !IsNotFound(err) {
		t.Errorf("not found item: %v", err)
	}
	if err := unsuccessful("deleting", nil); err != nil {
		t.Errorf("no items: %v", err)
	}
}

func TestConnectionStates(t *testing.T) {
	for s, want := range map[string]bool{"pendingAcceptance": true, "pending": true, "available": true, "rejected": false, "deleting": false, "deleted": false} {
		if got := ConnectionNeedsRejection(ec2types.State(s)); got != want {
			t.Errorf("ConnectionNeedsRejection(%s) = %v", s, got)
		}
	}
}

func ptr(s string) *string { return &s }
