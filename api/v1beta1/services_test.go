package v1beta1

import (
	"reflect"
	"testing"
)

func TestAWSExternalNames(t *testing.T) {
	hcp := func(access AWSEndpointAccessType, apiHostname string) *HostedControlPlane {
		return &HostedControlPlane{Spec: HostedControlPlaneSpec{
			Platform: PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{EndpointAccess: access}},
			Services: []ServicePublishingStrategyMapping{
				{Service: APIServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: RoutePublishing, Route: &RoutePublishingStrategy{Hostname: apiHostname}}},
				{Service: OAuthServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: RoutePublishing, Route: &RoutePublishingStrategy{Hostname: "oauth.example.com"}}},
			},
		}}
	}
	tests := []struct {
		name string
		hcp  *HostedControlPlane
		want map[string]string
	}{
		{"Private: both", hcp(AWSEndpointAccessPrivate, "api.example.com"),
			map[string]string{KubeAPIServerPrivateExternalService: "api.example.com", OAuthPrivateExternalService: "oauth.example.com"}},
		{"PublicAndPrivate: none", hcp(AWSEndpointAccessPublicAndPrivate, "api.example.com"), map[string]string{}},
		{"a Route without hostname: skipped", hcp(AWSEndpointAccessPrivate, ""), map[string]string{OAuthPrivateExternalService: "oauth.example.com"}},
	}
	for _, tt := range tests {
		if got := AWSExternalNames(tt.hcp); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestGCPExternalNames(t *testing.T) {
	hcp := func(access GCPEndpointAccessType, apiHostname string) *HostedControlPlane {
		return &HostedControlPlane{Spec: HostedControlPlaneSpec{
			Platform: PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{EndpointAccess: access}},
			Services: []ServicePublishingStrategyMapping{
				{Service: APIServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: RoutePublishing, Route: &RoutePublishingStrategy{Hostname: apiHostname}}},
				{Service: OAuthServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: RoutePublishing, Route: &RoutePublishingStrategy{Hostname: "oauth.example.com"}}},
			},
		}}
	}
	tests := []struct {
		name string
		hcp  *HostedControlPlane
		want map[string]string
	}{
		{"Private: both", hcp(GCPEndpointAccessPrivate, "api.example.com"),
			map[string]string{KubeAPIServerPrivateExternalService: "api.example.com", OAuthPrivateExternalService: "oauth.example.com"}},
		{"PublicAndPrivate: none, the hostnames are served publicly", hcp(GCPEndpointAccessPublicAndPrivate, "api.example.com"), map[string]string{}},
		{"Public: none", hcp(GCPEndpointAccessPublic, "api.example.com"), map[string]string{}},
		{"a Route without hostname: skipped", hcp(GCPEndpointAccessPrivate, ""), map[string]string{OAuthPrivateExternalService: "oauth.example.com"}},
		{"no gcp member: none", &HostedControlPlane{Spec: HostedControlPlaneSpec{Platform: PlatformSpec{Type: GCPPlatform}}}, map[string]string{}},
		{"nil: none", nil, map[string]string{}},
	}
	for _, tt := range tests {
		if got := GCPExternalNames(tt.hcp); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWantedRouterServices(t *testing.T) {
	aws := func(access AWSEndpointAccessType, api PublishingStrategyType) *HostedControlPlane {
		return &HostedControlPlane{Spec: HostedControlPlaneSpec{
			Platform: PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{EndpointAccess: access}},
			Services: []ServicePublishingStrategyMapping{{Service: APIServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: api}}},
		}}
	}
	azure := func(topology AzureTopology, private *AzurePrivateSpec) *HostedControlPlane {
		return &HostedControlPlane{Spec: HostedControlPlaneSpec{Platform: PlatformSpec{Type: AzurePlatform, Azure: &AzurePlatformSpec{Topology: topology, Private: private}}}}
	}
	privateLink := &AzurePrivateSpec{Type: AzurePrivateTypePrivateLink}
	gcp := func(access GCPEndpointAccessType) *HostedControlPlane {
		return &HostedControlPlane{Spec: HostedControlPlaneSpec{Platform: PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{EndpointAccess: access}}}}
	}
	tests := []struct {
		name string
		hcp  *HostedControlPlane
		want []string
	}{
		{"AWS Public", aws(AWSEndpointAccessPublic, RoutePublishing), []string{RouterServiceName}},
		{"AWS PublicAndPrivate", aws(AWSEndpointAccessPublicAndPrivate, RoutePublishing), []string{PrivateRouterServiceName, RouterServiceName}},
		{"AWS Private, API server by LoadBalancer", aws(AWSEndpointAccessPrivate, LoadBalancerPublishing), []string{PrivateRouterServiceName, KubeAPIServerPrivateServiceName}},
		{"AWS Public, API server by LoadBalancer", aws(AWSEndpointAccessPublic, LoadBalancerPublishing), []string{RouterServiceName}},
		{"Azure Private", azure(AzureTopologyPrivate, privateLink), []string{PrivateRouterServiceName}},
		{"Azure PublicAndPrivate", azure(AzureTopologyPublicAndPrivate, privateLink), []string{PrivateRouterServiceName, RouterServiceName}},
		{"Azure Private without the private configuration", azure(AzureTopologyPrivate, nil), nil},
		{"GCP Private", gcp(GCPEndpointAccessPrivate), []string{PrivateRouterServiceName}},
		{"GCP PublicAndPrivate", gcp(GCPEndpointAccessPublicAndPrivate), []string{PrivateRouterServiceName, RouterServiceName}},
		{"GCP Public", gcp(GCPEndpointAccessPublic), nil},
		{"GCP without its platform", &HostedControlPlane{Spec: HostedControlPlaneSpec{Platform: PlatformSpec{Type: GCPPlatform}}}, nil},
	}
	for _, tt := range tests {
		if got := WantedRouterServices(tt.hcp); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
