package platform_test

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

func TestRegistry(t *testing.T) {
	r := platform.New(awsplatform.Platform(awsplatform.Options{}), azureplatform.Platform(azureplatform.Options{}), gcpplatform.Platform(gcpplatform.Options{}))
	if got := r.Names(); !slices.Equal(got, []string{"AWS", "Azure", "GCP"}) {
		t.Errorf("Names = %v", got)
	}
	if got := r.ConditionTypes(); !slices.Equal(got, []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition,
		hcplinkv1beta1.AWSEndpointAvailableCondition, hcplinkv1beta1.AzurePLSCreatedCondition, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition,
		hcplinkv1beta1.GCPServiceAttachmentAvailableCondition, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition}) {
		t.Errorf("ConditionTypes = %v", got)
	}
	if r.Get("AWS") == nil || r.Get("Azure") == nil || r.Get("GCP") == nil || r.Get("OpenStack") != nil {
		t.Error("Get finds the wrong platforms")
	}
	if r.Get("AWS").Setup == nil || r.Get("Azure").Setup == nil || r.Get("GCP").Setup == nil {
		t.Error("AWS, Azure and GCP all have management-side controllers")
	}
	if !r.Get("AWS").FinalSweep || r.Get("Azure").FinalSweep || r.Get("GCP").FinalSweep {
		t.Error("only AWS has a final customer-side sweep today")
	}

	cluster := func(typ hcplinkv1beta1.PlatformType, private bool) *hcplinkv1beta1.HostedCluster {
		hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}
		hc.Spec.Platform.Type = typ
		switch typ {
		case hcplinkv1beta1.AWSPlatform:
			hc.Spec.Platform.AWS = &hcplinkv1beta1.AWSPlatformSpec{EndpointAccess: hcplinkv1beta1.AWSEndpointAccessPublic}
			if private {
				hc.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
			}
		case hcplinkv1beta1.AzurePlatform:
			hc.Spec.Platform.Azure = &hcplinkv1beta1.AzurePlatformSpec{Topology: hcplinkv1beta1.AzureTopologyPublic}
			if private {
				// The CRD requires private whenever the topology is not Public.
				hc.Spec.Platform.Azure.Topology = hcplinkv1beta1.AzureTopologyPrivate
				hc.Spec.Platform.Azure.Private = &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}
			}
		case hcplinkv1beta1.GCPPlatform:
			hc.Spec.Platform.GCP = &hcplinkv1beta1.GCPPlatformSpec{EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPublic}
			if private {
				hc.Spec.Platform.GCP.EndpointAccess = hcplinkv1beta1.GCPEndpointAccessPrivate
			}
		}
		return hc
	}
	for _, tt := range []struct {
		hc   *hcplinkv1beta1.HostedCluster
		want string
	}{
		{cluster(hcplinkv1beta1.AWSPlatform, true), "AWS"},
		{cluster(hcplinkv1beta1.AWSPlatform, false), ""},
		{cluster(hcplinkv1beta1.AzurePlatform, true), "Azure"},
		{cluster(hcplinkv1beta1.AzurePlatform, false), ""},
		{cluster(hcplinkv1beta1.GCPPlatform, true), "GCP"},
		{cluster(hcplinkv1beta1.GCPPlatform, false), ""},
	} {
		got := ""
		if p := r.ForCluster(tt.hc); p != nil {
			got = p.Name
		}
		if got != tt.want {
			t.Errorf("ForCluster(%s, %+v) = %q, want %q", tt.hc.Spec.Platform.Type, tt.hc.Spec.Platform, got, tt.want)
		}
	}

	// A nil registry knows nothing and says so without panicking.
	var none *platform.Registry
	if none.ForCluster(cluster(hcplinkv1beta1.AWSPlatform, true)) != nil || len(none.ConditionTypes()) != 0 {
		t.Error("a nil registry knows a platform")
	}
}
