package platform_test

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/controlplane/platform/gcp"
)

func TestRegistry(t *testing.T) {
	r := platform.New(awsplatform.Platform(), azureplatform.Platform(), gcpplatform.Platform())
	if got := r.Names(); !slices.Equal(got, []string{"AWS", "Azure", "GCP"}) {
		t.Errorf("Names = %v", got)
	}
	if got, want := r.DriftHelp(), "AWS 10m0s, Azure 5m0s, GCP 5m0s"; got != want {
		t.Errorf("DriftHelp = %q, want %q", got, want)
	}
	for _, p := range r.All() {
		if p.Setup == nil || p.IsPrivate == nil {
			t.Errorf("%s has no setup or no private test", p.Name)
		}
	}

	hcp := func(typ hcplinkv1beta1.PlatformType, private bool) *hcplinkv1beta1.HostedControlPlane {
		h := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "demo", Generation: 1}}
		h.Spec.Platform.Type = typ
		switch typ {
		case hcplinkv1beta1.AWSPlatform:
			h.Spec.Platform.AWS = &hcplinkv1beta1.AWSPlatformSpec{EndpointAccess: hcplinkv1beta1.AWSEndpointAccessPublic}
			if private {
				h.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
			}
		case hcplinkv1beta1.AzurePlatform:
			h.Spec.Platform.Azure = &hcplinkv1beta1.AzurePlatformSpec{Topology: hcplinkv1beta1.AzureTopologyPrivate}
			if private {
				h.Spec.Platform.Azure.Private = &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}
			}
		case hcplinkv1beta1.GCPPlatform:
			h.Spec.Platform.GCP = &hcplinkv1beta1.GCPPlatformSpec{EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPublic}
			if private {
				h.Spec.Platform.GCP.EndpointAccess = hcplinkv1beta1.GCPEndpointAccessPrivate
			}
		}
		return h
	}
	for _, tt := range []struct {
		hcp         *hcplinkv1beta1.HostedControlPlane
		want        string
		mayRouters  bool
		description string
	}{
		{hcp(hcplinkv1beta1.AWSPlatform, true), "AWS", true, "private AWS"},
		{hcp(hcplinkv1beta1.AWSPlatform, false), "", true, "public AWS"},
		{hcp(hcplinkv1beta1.AzurePlatform, true), "Azure", false, "Azure with the private configuration, settings not yet validated"},
		{hcp(hcplinkv1beta1.AzurePlatform, false), "", true, "Azure without the private configuration"},
		{hcp(hcplinkv1beta1.GCPPlatform, true), "GCP", false, "private GCP, settings not yet validated"},
		{hcp(hcplinkv1beta1.GCPPlatform, false), "", true, "public GCP"},
		{nil, "", true, "no HostedControlPlane"},
	} {
		got := ""
		if p := r.ForControlPlane(tt.hcp); p != nil {
			got = p.Name
		}
		if got != tt.want {
			t.Errorf("%s: ForControlPlane = %q, want %q", tt.description, got, tt.want)
		}
		if tt.hcp != nil {
			if may := r.MayCreateRouters(tt.hcp); may != tt.mayRouters {
				t.Errorf("%s: MayCreateRouters = %v, want %v", tt.description, may, tt.mayRouters)
			}
		}
	}

	// Settings: the ones given, else the platform's defaults.
	aws := r.Get(awsplatform.Name)
	if got := aws.Drift(platform.Settings{}); got != 10*time.Minute {
		t.Errorf("AWS default drift = %v", got)
	}
	if got := aws.Drift(platform.Settings{DriftInterval: time.Minute}); got != time.Minute {
		t.Errorf("AWS drift given 1m = %v", got)
	}
	if got := platform.Workers(platform.Settings{}); got != 2 {
		t.Errorf("default workers = %d", got)
	}

	// A nil registry knows nothing and says so without panicking.
	var none *platform.Registry
	if none.ForControlPlane(hcp(hcplinkv1beta1.AWSPlatform, true)) != nil || !none.MayCreateRouters(hcp(hcplinkv1beta1.AzurePlatform, true)) {
		t.Error("a nil registry knows a platform")
	}
}
