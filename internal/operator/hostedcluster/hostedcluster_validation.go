package hostedcluster

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// PrivatePlatformNone is the operator's private platform when it serves
// none (Config.PrivatePlatform).
const PrivatePlatformNone = "None"

// problem is one reason the operator refuses a cluster.
type problem = platform.Problem

// validateCluster checks what the CRD cannot: a private cluster on an
// operator that serves another platform, the cluster's platform's own
// checks (Platform.Validate), and the control-plane namespace.
// existing is the control-plane namespace when it exists, else nil. It
// returns every problem found, most fundamental first; none means valid.
func validateCluster(hc *hcplinkv1beta1.HostedCluster, cfg Config, existing *corev1.Namespace) []problem {
	var problems []problem
	served := cfg.privatePlatform()
	if p := cfg.Platforms.ForCluster(hc); p != nil && p.Name != served {
		field, value := p.PrivacySetting(hc)
		setting := field[strings.LastIndex(field, ".")+1:]
		problems = append(problems, problem{Reason: hcplinkv1beta1.UnsupportedPrivatePlatformReason, Message: fmt.Sprintf(
			"%s is %s, which needs %s, but this operator's private platform is %s; use %s Public, or run the operator with --private-platform=%s",
			field, value, p.Mechanism, served, setting, p.Name)})
	} else if p == nil && hc.Spec.Platform.IsPrivate() {
		// The API may know a cloud before this operator serves its private
		// path (GCP's API came first): refuse rather than report a private
		// cluster Available with no private path.
		problems = append(problems, problem{Reason: hcplinkv1beta1.UnsupportedPrivatePlatformReason, Message: fmt.Sprintf(
			"the cluster asks for a private path on %s, which this operator cannot build (it builds private paths on %s); make the cluster Public, or run a version of hcplink that serves private %s clusters",
			hc.Spec.Platform.Type, strings.Join(cfg.Platforms.Names(), " and "), hc.Spec.Platform.Type)})
	}
	if p := cfg.Platforms.ForType(hc.Spec.Platform.Type); p != nil && p.Validate != nil {
		problems = append(problems, p.Validate(hc, p.Name == served)...)
	}

	ns := hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
	if len(ns) > validation.DNS1123LabelMaxLength {
		problems = append(problems, problem{Reason: hcplinkv1beta1.NamespaceNameTooLongReason, Message: fmt.Sprintf(
			"the control-plane namespace %q would be %d characters long, more than the %d a namespace name allows; shorten the HostedCluster's name or namespace (together at most %d characters)",
			ns, len(ns), validation.DNS1123LabelMaxLength, validation.DNS1123LabelMaxLength-1)})
	} else if existing != nil {
		want := hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name)
		switch owner, ok := existing.Annotations[hcplinkv1beta1.ClusterAnnotation]; {
		case !ok:
			problems = append(problems, problem{Reason: hcplinkv1beta1.NamespaceConflictReason, Message: fmt.Sprintf(
				"the control-plane namespace %s already exists and was not created by hcplink for this cluster (it has no %s annotation); delete or rename that namespace, or rename the HostedCluster",
				ns, hcplinkv1beta1.ClusterAnnotation)})
		case owner != want:
			problems = append(problems, problem{Reason: hcplinkv1beta1.NamespaceConflictReason, Message: fmt.Sprintf(
				"the control-plane namespace %s already belongs to HostedCluster %s, whose name maps to the same namespace; rename one of the two clusters",
				ns, owner)})
		}
	}
	return problems
}

// joinProblems renders problems as one condition message.
func joinProblems(problems []problem) string {
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.Message)
	}
	return strings.Join(msgs, "; ")
}
