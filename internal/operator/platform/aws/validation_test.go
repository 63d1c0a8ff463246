package aws

import (
	"strings"
	"testing"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func withRoleARN(hc *hcplinkv1beta1.HostedCluster, arn string) *hcplinkv1beta1.HostedCluster {
	hc.Spec.Platform.AWS.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: arn}
	return hc
}

// Issue item 9: a role the cloud would refuse is refused before anything
// is created.
func TestCheckRoleARN(t *testing.T) {
	private := func(region, arn string) *hcplinkv1beta1.HostedCluster {
		hc := withRoleARN(cluster(hcplinkv1beta1.AWSEndpointAccessPrivate), arn)
		hc.Spec.Platform.AWS.Region = region
		return hc
	}
	tests := []struct {
		name     string
		hc       *hcplinkv1beta1.HostedCluster
		contains []string // empty: accepted
	}{
		{name: "aws role in us-east-1", hc: private("us-east-1", "arn:aws:iam::222222222222:role/hcplink/demo")},
		{name: "aws-cn role in cn-north-1", hc: private("cn-north-1", "arn:aws-cn:iam::222222222222:role/demo")},
		{name: "aws-us-gov role in us-gov-west-1", hc: private("us-gov-west-1", "arn:aws-us-gov:iam::222222222222:role/demo")},
		{name: "public cluster without a role", hc: cluster(hcplinkv1beta1.AWSEndpointAccessPublic)},
		{name: "aws-cn role in us-east-1", hc: private("us-east-1", "arn:aws-cn:iam::222222222222:role/demo"),
			contains: []string{"spec.platform.aws.rolesRef.controlPlaneOperatorARN", "partition aws-cn", "region us-east-1 is in partition aws", "arn:aws:iam::"}},
		{name: "aws role in cn-northwest-1", hc: private("cn-northwest-1", "arn:aws:iam::222222222222:role/demo"),
			contains: []string{"partition aws,", "partition aws-cn", "arn:aws-cn:iam::"}},
		{name: "aws role in us-gov-east-1", hc: private("us-gov-east-1", "arn:aws:iam::222222222222:role/demo"),
			contains: []string{"partition aws-us-gov", "arn:aws-us-gov:iam::"}},
		{name: "a user, not a role", hc: private("us-east-1", "arn:aws:iam::222222222222:user/demo"),
			contains: []string{"controlPlaneOperatorARN", "not an IAM role ARN", "arn:aws:iam::<account>:role/<name>"}},
		{name: "an STS assumed-role ARN", hc: private("us-east-1", "arn:aws:sts::222222222222:assumed-role/demo/session"),
			contains: []string{"not an IAM role ARN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkRoleARN(tt.hc)
			if len(tt.contains) == 0 {
				if got != nil {
					t.Fatalf("refused: %+v", got)
				}
				return
			}
			if got == nil || got.Reason != hcplinkv1beta1.InvalidRoleARNReason {
				t.Fatalf("problem = %+v, want %s", got, hcplinkv1beta1.InvalidRoleARNReason)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not contain %q", got.Message, s)
				}
			}
		})
	}
}
