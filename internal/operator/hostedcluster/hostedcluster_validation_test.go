package hostedcluster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

func TestValidateCluster(t *testing.T) {
	namespace := func(annotations map[string]string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "clusters-demo", Annotations: annotations}}
	}
	longName := strings.Repeat("n", 63-len("clusters-")) // "clusters-" + 54 = 63: fits
	tests := []struct {
		name     string
		hc       *hcplinkv1beta1.HostedCluster
		cfg      Config
		existing *corev1.Namespace
		// reasons of the problems, in order; none means valid.
		reasons []string
		// each message must contain these.
		contains []string
	}{
		{name: "private AWS cluster on an AWS operator in its region", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), cfg: awsConfig()},
		{name: "PublicAndPrivate AWS cluster on an AWS operator", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate), cfg: awsConfig()},
		{name: "public AWS cluster on an operator without private platform", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic), cfg: Config{PrivatePlatform: PrivatePlatformNone}},
		{name: "public AWS cluster in another region", hc: withRegion(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic), "eu-west-1"), cfg: awsConfig()},
		{name: "public Azure cluster on an AWS operator", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPublic), cfg: awsConfig()},
		{name: "private Azure cluster on an Azure operator", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPrivate), cfg: Config{PrivatePlatform: azureplatform.Name}},
		{name: "namespace already ours", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), cfg: awsConfig(),
			existing: namespace(map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/demo"})},
		{name: "namespace name of exactly 63 characters", hc: awsCluster("clusters", longName, hcplinkv1beta1.AWSEndpointAccessPublic), cfg: awsConfig()},

		{name: "(a) private AWS cluster, operator serves no private platform", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate),
			cfg: Config{}, reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"endpointAccess is Private", "None", "--private-platform=AWS"}},
		{name: "(a) PublicAndPrivate AWS cluster, Azure operator", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate),
			cfg: Config{PrivatePlatform: azureplatform.Name}, reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"PublicAndPrivate", "Azure"}},
		{name: "(b) private AWS cluster in another region", hc: withRegion(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), "eu-west-1"),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.PlatformRegionMismatchReason}, contains: []string{"eu-west-1", "us-east-1"}},
		{name: "(b) private AWS cluster, operator without a region", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate),
			cfg: Config{PrivatePlatform: awsplatform.Name, Platforms: platformsWith("", "")}, reasons: []string{hcplinkv1beta1.PlatformRegionMismatchReason}, contains: []string{"no region"}},
		{name: "(c) private Azure cluster on an AWS operator", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPrivate),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"topology is Private", "--private-platform=Azure"}},
		{name: "(c) PublicAndPrivate Azure cluster without private platform", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPublicAndPrivate),
			cfg: Config{PrivatePlatform: PrivatePlatformNone}, reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"PublicAndPrivate"}},
		{name: "(c) private GCP cluster on an AWS operator", hc: gcpCluster(hcplinkv1beta1.GCPEndpointAccessPrivate),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"endpointAccess is Private", "GCP Private Service Connect", "--private-platform=GCP"}},
		{name: "private GCP cluster on a GCP operator in its region", hc: gcpCluster(hcplinkv1beta1.GCPEndpointAccessPrivate), cfg: Config{PrivatePlatform: gcpplatform.Name}},
		{name: "(b) private GCP cluster in another region", hc: withGCPRegion(gcpCluster(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate), "europe-west4"),
			cfg: Config{PrivatePlatform: gcpplatform.Name}, reasons: []string{hcplinkv1beta1.PlatformRegionMismatchReason}, contains: []string{"europe-west4", testGCPRegion, "--gcp-region"}},
		// The generic rule for a cloud whose API exists but whose private
		// path the operator's registry does not serve (as GCP was before it
		// was registered): refused, never reported Available.
		{name: "(c) private cluster on a cloud the registry does not serve", hc: gcpCluster(hcplinkv1beta1.GCPEndpointAccessPrivate),
			cfg: Config{PrivatePlatform: awsplatform.Name, Platforms: withoutGCP()}, reasons: []string{hcplinkv1beta1.UnsupportedPrivatePlatformReason}, contains: []string{"private path on GCP", "AWS and Azure", "Public"}},
		{name: "public cluster on a cloud the registry does not serve", hc: gcpCluster(hcplinkv1beta1.GCPEndpointAccessPublic), cfg: Config{PrivatePlatform: awsplatform.Name, Platforms: withoutGCP()}},
		{name: "public GCP cluster on an AWS operator", hc: gcpCluster(hcplinkv1beta1.GCPEndpointAccessPublic), cfg: awsConfig()},
		{name: "(d) namespace name of 64 characters", hc: awsCluster("clusters", longName+"x", hcplinkv1beta1.AWSEndpointAccessPublic),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.NamespaceNameTooLongReason}, contains: []string{"64 characters", "63"}},
		{name: "(d) dots count after replacement", hc: awsCluster("clusters", strings.Repeat("a.", 28)+"b", hcplinkv1beta1.AWSEndpointAccessPublic),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.NamespaceNameTooLongReason}},
		{name: "(e) namespace exists without annotation", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), cfg: awsConfig(),
			existing: namespace(nil), reasons: []string{hcplinkv1beta1.NamespaceConflictReason}, contains: []string{"clusters-demo", "not created by hcplink"}},
		{name: "(e) namespace belongs to another cluster (a-b/c vs a/b-c)", hc: awsCluster("a", "b-c", hcplinkv1beta1.AWSEndpointAccessPublic), cfg: awsConfig(),
			existing: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a-b-c", Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "a-b/c"}}},
			reasons:  []string{hcplinkv1beta1.NamespaceConflictReason}, contains: []string{"a-b-c", "a-b/c", "rename"}},
		{name: "two problems at once, most fundamental first", hc: withRegion(awsCluster("clusters", longName+"x", hcplinkv1beta1.AWSEndpointAccessPrivate), "eu-west-1"),
			cfg: awsConfig(), reasons: []string{hcplinkv1beta1.PlatformRegionMismatchReason, hcplinkv1beta1.NamespaceNameTooLongReason}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := validateCluster(tt.hc, withPlatforms(tt.cfg), tt.existing)
			var reasons []string
			for _, p := range got {
				reasons = append(reasons, p.Reason)
				if p.Message == "" {
					t.Errorf("problem %s has no message", p.Reason)
				}
			}
			if strings.Join(reasons, ",") != strings.Join(tt.reasons, ",") {
				t.Fatalf("reasons = %v, want %v (problems: %+v)", reasons, tt.reasons, got)
			}
			msg := joinProblems(got)
			for _, s := range tt.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not contain %q", msg, s)
				}
			}
			cond := validConfigurationCondition(got, 7)
			if cond.ObservedGeneration != 7 {
				t.Errorf("observedGeneration = %d, want 7", cond.ObservedGeneration)
			}
			wantStatus := metav1.ConditionTrue
			if len(tt.reasons) > 0 {
				wantStatus = metav1.ConditionFalse
				if cond.Reason != tt.reasons[0] {
					t.Errorf("condition reason = %s, want %s", cond.Reason, tt.reasons[0])
				}
			}
			if cond.Status != wantStatus {
				t.Errorf("condition status = %s, want %s", cond.Status, wantStatus)
			}
		})
	}
}

func withRegion(hc *hcplinkv1beta1.HostedCluster, region string) *hcplinkv1beta1.HostedCluster {
	hc.Spec.Platform.AWS.Region = region
	return hc
}

// withoutGCP is a registry of AWS (in testRegion) and Azure only.
func withoutGCP() *platform.Registry {
	return platform.New(awsplatform.Platform(awsplatform.Options{Region: testRegion}), azureplatform.Platform(azureplatform.Options{}))
}

func withGCPRegion(hc *hcplinkv1beta1.HostedCluster, region string) *hcplinkv1beta1.HostedCluster {
	hc.Spec.Platform.GCP.Region = region
	return hc
}

// gcpCluster is a GCP cluster with the given endpoint access.
func gcpCluster(access hcplinkv1beta1.GCPEndpointAccessType) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: "demo"},
		Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform,
			GCP: &hcplinkv1beta1.GCPPlatformSpec{Project: "customer-project", Region: "us-central1", EndpointAccess: access}}},
	}
}
