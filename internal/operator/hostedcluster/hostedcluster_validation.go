package hostedcluster

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Private platforms the operator can serve (Config.PrivatePlatform).
const (
	PrivatePlatformAWS   = "AWS"
	PrivatePlatformAzure = "Azure"
	PrivatePlatformNone  = "None"
)

// problem is one reason the operator refuses a cluster.
type problem struct {
	reason  string
	message string
}

// validateCluster checks what the CRD cannot: the operator's own
// configuration against the cluster's, and the control-plane namespace.
// existing is the control-plane namespace when it exists, else nil. It
// returns every problem found, most fundamental first; none means valid.
func validateCluster(hc *hcplinkv1beta1.HostedCluster, cfg Config, existing *corev1.Namespace) []problem {
	var problems []problem
	platform := cfg.privatePlatform()

	switch p := hc.Spec.Platform; {
	case p.Type == hcplinkv1beta1.AWSPlatform && p.AWS != nil && p.AWS.EndpointAccess.IsPrivate():
		if platform != PrivatePlatformAWS {
			problems = append(problems, problem{hcplinkv1beta1.UnsupportedPrivatePlatformReason, fmt.Sprintf(
				"spec.platform.aws.endpointAccess is %s, which needs AWS PrivateLink, but this operator's private platform is %s; use endpointAccess Public, or run the operator with --private-platform=AWS",
				p.AWS.EndpointAccess, platform)})
		} else if p.AWS.Region != cfg.AWSPrivateRegion {
			problems = append(problems, problem{hcplinkv1beta1.PlatformRegionMismatchReason, fmt.Sprintf(
				"spec.platform.aws.region is %s, but this operator serves AWS PrivateLink in %s (--aws-private-region); a private cluster must be in the operator's region",
				p.AWS.Region, orNone(cfg.AWSPrivateRegion))})
		}
	case p.Type == hcplinkv1beta1.AzurePlatform && p.Azure != nil && p.Azure.Topology.IsPrivate():
		if platform != PrivatePlatformAzure {
			problems = append(problems, problem{hcplinkv1beta1.UnsupportedPrivatePlatformReason, fmt.Sprintf(
				"spec.platform.azure.topology is %s, which needs Azure Private Link, but this operator's private platform is %s; use topology Public, or run the operator with --private-platform=Azure",
				p.Azure.Topology, platform)})
		}
	}

	if p := checkRoleARN(hc); p != nil {
		problems = append(problems, *p)
	}

	ns := hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
	if len(ns) > validation.DNS1123LabelMaxLength {
		problems = append(problems, problem{hcplinkv1beta1.NamespaceNameTooLongReason, fmt.Sprintf(
			"the control-plane namespace %q would be %d characters long, more than the %d a namespace name allows; shorten the HostedCluster's name or namespace (together at most %d characters)",
			ns, len(ns), validation.DNS1123LabelMaxLength, validation.DNS1123LabelMaxLength-1)})
	} else if existing != nil {
		want := hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name)
		switch owner, ok := existing.Annotations[hcplinkv1beta1.ClusterAnnotation]; {
		case !ok:
			problems = append(problems, problem{hcplinkv1beta1.NamespaceConflictReason, fmt.Sprintf(
				"the control-plane namespace %s already exists and was not created by hcplink for this cluster (it has no %s annotation); delete or rename that namespace, or rename the HostedCluster",
				ns, hcplinkv1beta1.ClusterAnnotation)})
		case owner != want:
			problems = append(problems, problem{hcplinkv1beta1.NamespaceConflictReason, fmt.Sprintf(
				"the control-plane namespace %s already belongs to HostedCluster %s, whose name maps to the same namespace; rename one of the two clusters",
				ns, owner)})
		}
	}
	return problems
}

// roleARN is an IAM role ARN: partition, account, role path and name.
var roleARN = regexp.MustCompile(`^arn:([a-z][a-z-]*):iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$`)

// awsPartition is the partition of an AWS region: aws-cn for the China
// regions, aws-us-gov for GovCloud, aws for the others.
func awsPartition(region string) string {
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
func checkRoleARN(hc *hcplinkv1beta1.HostedCluster) *problem {
	arn := controlPlaneOperatorRoleARN(hc)
	if arn == "" {
		return nil
	}
	const field = "spec.platform.aws.rolesRef.controlPlaneOperatorARN"
	region := hc.Spec.Platform.AWS.Region
	want := awsPartition(region)
	m := roleARN.FindStringSubmatch(arn)
	switch {
	case m == nil:
		return &problem{hcplinkv1beta1.InvalidRoleARNReason, fmt.Sprintf(
			"%s is %q, which is not an IAM role ARN; use arn:%s:iam::<account>:role/<name>", field, arn, want)}
	case m[1] != want:
		return &problem{hcplinkv1beta1.InvalidRoleARNReason, fmt.Sprintf(
			"%s is in partition %s, but region %s is in partition %s, where that role cannot be assumed; use a role ARN that starts with arn:%s:iam::",
			field, m[1], region, want, want)}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no region"
	}
	return s
}

// joinProblems renders problems as one condition message.
func joinProblems(problems []problem) string {
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.message)
	}
	return strings.Join(msgs, "; ")
}
