package gcp

import (
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/controlplane/gcpprivateserviceconnect"
)

// The descriptor serves private GCP control planes, and what the
// management operator renders and the routers controller sets is what the
// GCP controllers read: the internal router's annotation is the one the
// observer takes for an internal load balancer, and the token file the
// Deployment names is the one the sign-in reads.
func TestPlatformMatchesWhatTheControllersRead(t *testing.T) {
	p := Platform()
	if p.Name != "GCP" || p.Type != hcplinkv1beta1.GCPPlatform || p.DefaultDriftInterval != 5*time.Minute || p.Setup == nil {
		t.Fatalf("descriptor %+v", p)
	}
	hcp := func(access hcplinkv1beta1.GCPEndpointAccessType) *hcplinkv1beta1.HostedControlPlane {
		return &hcplinkv1beta1.HostedControlPlane{Spec: hcplinkv1beta1.HostedControlPlaneSpec{Platform: hcplinkv1beta1.PlatformSpec{
			Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{EndpointAccess: access}}}}
	}
	if !p.IsPrivate(hcp(hcplinkv1beta1.GCPEndpointAccessPrivate)) || !p.IsPrivate(hcp(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)) || p.IsPrivate(hcp(hcplinkv1beta1.GCPEndpointAccessPublic)) {
		t.Error("IsPrivate does not follow endpointAccess")
	}
	internal := p.RouterAnnotations(hcp(hcplinkv1beta1.GCPEndpointAccessPrivate), true)
	if internal[gcpprivateserviceconnect.LoadBalancerTypeAnnotation] != gcpprivateserviceconnect.LoadBalancerTypeInternal {
		t.Errorf("the internal router's annotations %v are not what the observer reads (%s: %s)", internal,
			gcpprivateserviceconnect.LoadBalancerTypeAnnotation, gcpprivateserviceconnect.LoadBalancerTypeInternal)
	}
	if public := p.RouterAnnotations(hcp(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate), false); len(public) != 0 {
		t.Errorf("the public router carries %v; GKE's default, external, needs none", public)
	}
	for k := range internal {
		if len(p.RouterAnnotationKeys) != 1 || p.RouterAnnotationKeys[0] != k {
			t.Errorf("RouterAnnotationKeys %v do not own %s", p.RouterAnnotationKeys, k)
		}
	}
	if gcpcloud.EnvTokenFile != gcpprivateserviceconnect.EnvTokenFile || gcpcloud.DefaultTokenFile != gcpprivateserviceconnect.DefaultTokenFile {
		t.Errorf("the rendered token (%s=%s) is not where the sign-in reads it (%s=%s)", gcpcloud.EnvTokenFile, gcpcloud.DefaultTokenFile,
			gcpprivateserviceconnect.EnvTokenFile, gcpprivateserviceconnect.DefaultTokenFile)
	}
}
