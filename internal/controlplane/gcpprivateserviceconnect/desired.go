package gcpprivateserviceconnect

import (
	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// PrivateConfigured reports whether hcp is a GCP cluster served through
// Private Service Connect (endpointAccess PublicAndPrivate or Private): the
// private controllers act on it; Public clusters are someone else's.
func PrivateConfigured(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	if hcp == nil || hcp.Spec.Platform.Type != hcplinkv1beta1.GCPPlatform || hcp.Spec.Platform.GCP == nil {
		return false
	}
	access := hcp.Spec.Platform.GCP.EndpointAccess
	return access == hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate || access == hcplinkv1beta1.GCPEndpointAccessPrivate
}

// DesiredSpec is the GCPPrivateServiceConnect spec for hcp whose private
// router has the internal address lbIP.
func DesiredSpec(hcp *hcplinkv1beta1.HostedControlPlane, lbIP string) hcplinkv1beta1.GCPPrivateServiceConnectSpec {
	g := hcp.Spec.Platform.GCP
	spec := hcplinkv1beta1.GCPPrivateServiceConnectSpec{
		LoadBalancerIP:     lbIP,
		ConsumerAcceptList: g.AcceptedProjects(),
		Project:            g.Project,
		Region:             g.Region,
		Network:            g.Network,
		Subnet:             g.Subnet,
	}
	if g.Private != nil {
		spec.NATSubnet = g.Private.NATSubnet
	}
	return spec
}
