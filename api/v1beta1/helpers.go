package v1beta1

import (
	"slices"
	"time"
)

// IsPublic reports whether the control plane is reachable from the
// internet: Public or PublicAndPrivate. The empty value is the default,
// Public.
func (a AWSEndpointAccessType) IsPublic() bool {
	return a != AWSEndpointAccessPrivate
}

// IsPrivate reports whether workers reach the control plane over AWS
// PrivateLink: PublicAndPrivate or Private.
func (a AWSEndpointAccessType) IsPrivate() bool {
	return a == AWSEndpointAccessPublicAndPrivate || a == AWSEndpointAccessPrivate
}

// IsPublic reports whether the control plane is reachable from the
// internet: Public or PublicAndPrivate. The empty value is the default,
// Public.
func (t AzureTopology) IsPublic() bool {
	return t != AzureTopologyPrivate
}

// IsPrivate reports whether the topology asks for Azure Private Link:
// PublicAndPrivate or Private.
func (t AzureTopology) IsPrivate() bool {
	return t == AzureTopologyPublicAndPrivate || t == AzureTopologyPrivate
}

// IsPublic reports whether the control plane is reachable from the
// internet: Public or PublicAndPrivate. The empty value is the default,
// Public.
func (a GCPEndpointAccessType) IsPublic() bool {
	return a != GCPEndpointAccessPrivate
}

// IsPrivate reports whether workers reach the control plane over GCP
// Private Service Connect: PublicAndPrivate or Private.
func (a GCPEndpointAccessType) IsPrivate() bool {
	return a == GCPEndpointAccessPublicAndPrivate || a == GCPEndpointAccessPrivate
}

// IsPrivate reports whether hcplink builds a private path for an AWS
// cluster: endpointAccess PublicAndPrivate or Private. A nil spec is
// public. It is the one test of privacy on AWS.
func (a *AWSPlatformSpec) IsPrivate() bool {
	return a != nil && a.EndpointAccess.IsPrivate()
}

// IsPrivate reports whether hcplink builds a private path for an Azure
// cluster: topology PublicAndPrivate or Private, with private.type
// PrivateLink (the private-link controllers are gated on the private
// configuration, not on the topology alone; the CRD requires private
// whenever the topology is not Public, and PrivateLink is its only type).
// A nil spec is public. It is the one test of privacy on Azure.
func (a *AzurePlatformSpec) IsPrivate() bool {
	return a != nil && a.Topology.IsPrivate() && a.Private != nil && a.Private.Type == AzurePrivateTypePrivateLink
}

// IsPrivate reports whether hcplink builds a private path for a GCP
// cluster: endpointAccess PublicAndPrivate or Private. A nil spec is
// public. It is the one test of privacy on GCP.
func (g *GCPPlatformSpec) IsPrivate() bool {
	return g != nil && g.EndpointAccess.IsPrivate()
}

// IsPrivate reports whether hcplink builds a private path for the
// platform: its member's IsPrivate.
func (p *PlatformSpec) IsPrivate() bool {
	switch p.Type {
	case AWSPlatform:
		return p.AWS.IsPrivate()
	case AzurePlatform:
		return p.Azure.IsPrivate()
	case GCPPlatform:
		return p.GCP.IsPrivate()
	}
	return false
}

// IsPublic reports whether the control plane is reachable from the
// internet. A platform without its member is treated as public.
func (p *PlatformSpec) IsPublic() bool {
	switch p.Type {
	case AWSPlatform:
		return p.AWS == nil || p.AWS.EndpointAccess.IsPublic()
	case AzurePlatform:
		return p.Azure == nil || p.Azure.Topology.IsPublic()
	case GCPPlatform:
		return p.GCP == nil || p.GCP.EndpointAccess.IsPublic()
	}
	return true
}

// PublishingStrategyFor returns how service is published. A service that is
// not listed is published by Route; listed is false then.
func PublishingStrategyFor(services []ServicePublishingStrategyMapping, service ServiceType) (strategy ServicePublishingStrategy, listed bool) {
	for _, s := range services {
		if s.Service == service {
			return s.ServicePublishingStrategy, true
		}
	}
	return ServicePublishingStrategy{Type: RoutePublishing}, false
}

// PausedFor interprets a pausedUntil value at now: "true" pauses until the
// value changes (remaining is 0); an RFC3339 time in the future pauses for
// remaining. A past time, an unset value or a malformed one (the CRD refuses
// those) does not pause.
func PausedFor(pausedUntil *string, now time.Time) (paused bool, remaining time.Duration) {
	if pausedUntil == nil {
		return false, 0
	}
	if *pausedUntil == "true" {
		return true, 0
	}
	until, err := time.Parse(time.RFC3339, *pausedUntil)
	if err != nil || !now.Before(until) {
		return false, 0
	}
	return true, until.Sub(now)
}

// ControlPlaneOperatorIdentity is the tenant and client ID the control-plane
// operator signs in to Azure with; both "" when the spec names none.
func (a *AzurePlatformSpec) ControlPlaneOperatorIdentity() (tenantID, clientID string) {
	if a == nil || a.AzureAuthenticationConfig == nil || a.AzureAuthenticationConfig.WorkloadIdentities == nil {
		return "", ""
	}
	return a.TenantID, string(a.AzureAuthenticationConfig.WorkloadIdentities.ControlPlaneOperator.ClientID)
}

// WorkloadIdentitiesConfig is the authentication configuration that names
// controlPlaneOperatorClientID as the control-plane operator's workload
// identity.
func WorkloadIdentitiesConfig(controlPlaneOperatorClientID string) *AzureAuthenticationConfiguration {
	return &AzureAuthenticationConfiguration{
		AzureAuthenticationConfigType: AzureAuthenticationWorkloadIdentities,
		WorkloadIdentities: &AzureWorkloadIdentities{
			ControlPlaneOperator: WorkloadIdentity{ClientID: AzureClientID(controlPlaneOperatorClientID)},
		},
	}
}

// ControlPlaneOperatorIdentity is the workload identity pool provider and
// the Google service account the control-plane operator signs in to GCP
// with; both "" when the spec names none.
func (g *GCPPlatformSpec) ControlPlaneOperatorIdentity() (poolProvider, serviceAccount string) {
	if g == nil || g.WorkloadIdentity == nil {
		return "", ""
	}
	return g.WorkloadIdentity.PoolProvider, string(g.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator)
}

// AcceptedProjects is the consumer accept list of the cluster's service
// attachment: its own project first, then its additional allowed projects
// in the order given, each once.
func (g *GCPPlatformSpec) AcceptedProjects() []string {
	if g == nil {
		return nil
	}
	out := []string{g.Project}
	if g.Private == nil {
		return out
	}
	for _, p := range g.Private.AdditionalAllowedProjects {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// SubnetID is the NodePool's subnet: the AWS subnet ID or the Azure
// subnet resource ID, the GCP subnet name; "" when it names none.
func (p *NodePoolPlatform) SubnetID() string {
	switch {
	case p.AWS != nil && p.AWS.Subnet != nil:
		return p.AWS.Subnet.ID
	case p.Azure != nil:
		return p.Azure.SubnetID
	case p.GCP != nil:
		return p.GCP.Subnet
	}
	return ""
}
