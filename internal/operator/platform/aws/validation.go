package aws

import (
	"fmt"
	"regexp"
	"strings"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// validate checks what the CRD cannot of an AWS cluster: a private one
// must be in the operator's region (when AWS is the operator's private
// platform), and its control-plane operator role must be one the cloud
// would accept.
func validate(hc *hcplinkv1beta1.HostedCluster, served bool, region string) []platform.Problem {
	var problems []platform.Problem
	if a := hc.Spec.Platform.AWS; served && isPrivate(hc) && a.Region != region {
		problems = append(problems, platform.Problem{Reason: hcplinkv1beta1.PlatformRegionMismatchReason, Message: fmt.Sprintf(
			"spec.platform.aws.region is %s, but this operator serves AWS PrivateLink in %s (--aws-private-region); a private cluster must be in the operator's region",
			a.Region, orNone(region))})
	}
	if p := checkRoleARN(hc); p != nil {
		problems = append(problems, *p)
	}
	return problems
}

func orNone(s string) string {
	if s == "" {
		return "no region"
	}
	return s
}

// roleARN is an IAM role ARN: partition, account, role path and name.
var roleARN = regexp.MustCompile(`^arn:([a-z][a-z-]*):iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$`)

// partition is the partition of an AWS region: aws-cn for the China
// regions, aws-us-gov for GovCloud, aws for the others.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// checkRoleARN refuses a control-plane operator role the cloud would
// refuse: not an IAM role ARN, or in another partition than the region.
// Nothing is created for such a cluster, so nothing can be left behind.
func checkRoleARN(hc *hcplinkv1beta1.HostedCluster) *platform.Problem {
	arn := controlPlaneOperatorRoleARN(hc)
	if arn == "" {
		return nil
	}
	const field = "spec.platform.aws.rolesRef.controlPlaneOperatorARN"
	region := hc.Spec.Platform.AWS.Region
	want := partition(region)
	m := roleARN.FindStringSubmatch(arn)
	switch {
	case m == nil:
		return &platform.Problem{Reason: hcplinkv1beta1.InvalidRoleARNReason, Message: fmt.Sprintf(
			"%s is %q, which is not an IAM role ARN; use arn:%s:iam::<account>:role/<name>", field, arn, want)}
	case m[1] != want:
		return &platform.Problem{Reason: hcplinkv1beta1.InvalidRoleARNReason, Message: fmt.Sprintf(
			"%s is in partition %s, but region %s is in partition %s, where that role cannot be assumed; use a role ARN that starts with arn:%s:iam::",
			field, m[1], region, want, want)}
	}
	return nil
}
