package v1beta1

import (
	"slices"
	"testing"
	"time"
)

func TestEndpointAccess(t *testing.T) {
	tests := []struct {
		access               AWSEndpointAccessType
		wantPublic, wantPriv bool
	}{
		{"", true, false},
		{AWSEndpointAccessPublic, true, false},
		{AWSEndpointAccessPublicAndPrivate, true, true},
		{AWSEndpointAccessPrivate, false, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.access), func(t *testing.T) {
			if got := tt.access.IsPublic(); got != tt.wantPublic {
				t.Errorf("IsPublic() = %v, want %v", got, tt.wantPublic)
			}
			if got := tt.access.IsPrivate(); got != tt.wantPriv {
				t.Errorf("IsPrivate() = %v, want %v", got, tt.wantPriv)
			}
		})
	}
}

func TestAzureTopology(t *testing.T) {
	tests := []struct {
		topology             AzureTopology
		wantPublic, wantPriv bool
	}{
		{"", true, false},
		{AzureTopologyPublic, true, false},
		{AzureTopologyPublicAndPrivate, true, true},
		{AzureTopologyPrivate, false, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.topology), func(t *testing.T) {
			if got := tt.topology.IsPublic(); got != tt.wantPublic {
				t.Errorf("IsPublic() = %v, want %v", got, tt.wantPublic)
			}
			if got := tt.topology.IsPrivate(); got != tt.wantPriv {
				t.Errorf("IsPrivate() = %v, want %v", got, tt.wantPriv)
			}
		})
	}
}

func TestGCPEndpointAccess(t *testing.T) {
	tests := []struct {
		access               GCPEndpointAccessType
		wantPublic, wantPriv bool
	}{
		{"", true, false},
		{GCPEndpointAccessPublic, true, false},
		{GCPEndpointAccessPublicAndPrivate, true, true},
		{GCPEndpointAccessPrivate, false, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.access), func(t *testing.T) {
			if got := tt.access.IsPublic(); got != tt.wantPublic {
				t.Errorf("IsPublic() = %v, want %v", got, tt.wantPublic)
			}
			if got := tt.access.IsPrivate(); got != tt.wantPriv {
				t.Errorf("IsPrivate() = %v, want %v", got, tt.wantPriv)
			}
		})
	}
}

func TestGCPControlPlaneOperatorIdentity(t *testing.T) {
	provider := "projects/123456789012/locations/global/workloadIdentityPools/pool/providers/oidc"
	account := GCPServiceAccountEmail("cpo-sa@project-1.iam.gserviceaccount.com")
	tests := []struct {
		name                      string
		gcp                       *GCPPlatformSpec
		wantProvider, wantAccount string
	}{
		{"nil spec", nil, "", ""},
		{"no workload identity", &GCPPlatformSpec{}, "", ""},
		{"named", &GCPPlatformSpec{WorkloadIdentity: &GCPWorkloadIdentityConfig{
			PoolProvider: provider, ServiceAccountsEmails: GCPServiceAccountsEmails{ControlPlaneOperator: account}}},
			provider, string(account)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotProvider, gotAccount := tt.gcp.ControlPlaneOperatorIdentity()
			if gotProvider != tt.wantProvider || gotAccount != tt.wantAccount {
				t.Errorf("ControlPlaneOperatorIdentity() = %q, %q; want %q, %q", gotProvider, gotAccount, tt.wantProvider, tt.wantAccount)
			}
		})
	}
}

func TestGCPAcceptedProjects(t *testing.T) {
	tests := []struct {
		name string
		gcp  *GCPPlatformSpec
		want []string
	}{
		{"nil spec", nil, nil},
		{"own project only", &GCPPlatformSpec{Project: "own-project"}, []string{"own-project"}},
		{"private without additional projects", &GCPPlatformSpec{Project: "own-project", Private: &GCPPrivateSpec{}}, []string{"own-project"}},
		{"own project first, then the others in order", &GCPPlatformSpec{Project: "own-project",
			Private: &GCPPrivateSpec{AdditionalAllowedProjects: []string{"partner-b", "123456789012", "partner-a"}}},
			[]string{"own-project", "partner-b", "123456789012", "partner-a"}},
		{"own project listed again", &GCPPlatformSpec{Project: "own-project",
			Private: &GCPPrivateSpec{AdditionalAllowedProjects: []string{"partner-b", "own-project"}}},
			[]string{"own-project", "partner-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.gcp.AcceptedProjects(); !slices.Equal(got, tt.want) {
				t.Errorf("AcceptedProjects() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlatformSpecPrivacy(t *testing.T) {
	privateLink := &AzurePrivateSpec{Type: AzurePrivateTypePrivateLink}
	tests := []struct {
		name                 string
		platform             PlatformSpec
		wantPublic, wantPriv bool
	}{
		{"aws default", PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{}}, true, false},
		{"aws public", PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{EndpointAccess: AWSEndpointAccessPublic}}, true, false},
		{"aws public and private", PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{EndpointAccess: AWSEndpointAccessPublicAndPrivate}}, true, true},
		{"aws private", PlatformSpec{Type: AWSPlatform, AWS: &AWSPlatformSpec{EndpointAccess: AWSEndpointAccessPrivate}}, false, true},
		{"aws without member", PlatformSpec{Type: AWSPlatform}, true, false},
		{"azure public", PlatformSpec{Type: AzurePlatform, Azure: &AzurePlatformSpec{Topology: AzureTopologyPublic}}, true, false},
		{"azure private with private link", PlatformSpec{Type: AzurePlatform, Azure: &AzurePlatformSpec{Topology: AzureTopologyPrivate, Private: privateLink}}, false, true},
		{"azure public and private with private link", PlatformSpec{Type: AzurePlatform, Azure: &AzurePlatformSpec{Topology: AzureTopologyPublicAndPrivate, Private: privateLink}}, true, true},
		// The private-link controllers are gated on the private configuration.
		{"azure private without private config", PlatformSpec{Type: AzurePlatform, Azure: &AzurePlatformSpec{Topology: AzureTopologyPrivate}}, false, false},
		{"azure without member", PlatformSpec{Type: AzurePlatform}, true, false},
		{"aws member on azure platform", PlatformSpec{Type: AzurePlatform, AWS: &AWSPlatformSpec{EndpointAccess: AWSEndpointAccessPrivate}}, true, false},
		{"gcp default", PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{}}, true, false},
		{"gcp public", PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{EndpointAccess: GCPEndpointAccessPublic}}, true, false},
		{"gcp public and private", PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{EndpointAccess: GCPEndpointAccessPublicAndPrivate}}, true, true},
		{"gcp private", PlatformSpec{Type: GCPPlatform, GCP: &GCPPlatformSpec{EndpointAccess: GCPEndpointAccessPrivate}}, false, true},
		{"gcp without member", PlatformSpec{Type: GCPPlatform}, true, false},
		{"gcp member on aws platform", PlatformSpec{Type: AWSPlatform, GCP: &GCPPlatformSpec{EndpointAccess: GCPEndpointAccessPrivate}}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.platform.IsPublic(); got != tt.wantPublic {
				t.Errorf("IsPublic() = %v, want %v", got, tt.wantPublic)
			}
			if got := tt.platform.IsPrivate(); got != tt.wantPriv {
				t.Errorf("IsPrivate() = %v, want %v", got, tt.wantPriv)
			}
		})
	}
}

func TestPublishingStrategyFor(t *testing.T) {
	services := []ServicePublishingStrategyMapping{
		{Service: APIServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: LoadBalancerPublishing}},
		{Service: OAuthServer, ServicePublishingStrategy: ServicePublishingStrategy{Type: RoutePublishing, Route: &RoutePublishingStrategy{Hostname: "oauth.example.com"}}},
	}
	tests := []struct {
		service      ServiceType
		wantType     PublishingStrategyType
		wantHostname string
		wantListed   bool
	}{
		{APIServer, LoadBalancerPublishing, "", true},
		{OAuthServer, RoutePublishing, "oauth.example.com", true},
		{Konnectivity, RoutePublishing, "", false},
		{Ignition, RoutePublishing, "", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.service), func(t *testing.T) {
			got, listed := PublishingStrategyFor(services, tt.service)
			if got.Type != tt.wantType || listed != tt.wantListed {
				t.Errorf("PublishingStrategyFor(%s) = (%s, %v), want (%s, %v)", tt.service, got.Type, listed, tt.wantType, tt.wantListed)
			}
			var hostname string
			if got.Route != nil {
				hostname = got.Route.Hostname
			}
			if hostname != tt.wantHostname {
				t.Errorf("route hostname = %q, want %q", hostname, tt.wantHostname)
			}
		})
	}
}

func TestPausedFor(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s string) *string { return &s }
	tests := []struct {
		name          string
		value         *string
		wantPaused    bool
		wantRemaining time.Duration
	}{
		{"unset", nil, false, 0},
		{"true", at("true"), true, 0},
		{"future time", at("2026-03-01T12:30:00Z"), true, 30 * time.Minute},
		{"future time with offset", at("2026-03-01T13:30:00+01:00"), true, 30 * time.Minute},
		{"past time", at("2026-03-01T11:59:59Z"), false, 0},
		{"exactly now", at("2026-03-01T12:00:00Z"), false, 0},
		{"malformed", at("tomorrow"), false, 0},
		{"false is not a pause", at("false"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paused, remaining := PausedFor(tt.value, now)
			if paused != tt.wantPaused || remaining != tt.wantRemaining {
				t.Errorf("PausedFor = %v, %v; want %v, %v", paused, remaining, tt.wantPaused, tt.wantRemaining)
			}
		})
	}
}
