package gcp

// ManagementProviders are the management operator's providers, scoped to
// its management cluster's project, region and VPC network.
type ManagementProviders struct {
	RouterRules        RouterRulesAPI
	NATSubnets         NATSubnetsAPI
	ServiceAttachments ServiceAttachmentsAPI
	Operations         *Operations
}

// NewManagementProviders builds them over one sign-in's clients.
func NewManagementProviders(c *Clients, at Location, network string, t Timeouts) ManagementProviders {
	return ManagementProviders{
		RouterRules:        &RouterRules{Compute: c.Compute, Location: at, Network: network, Timeouts: t},
		NATSubnets:         &NATSubnets{Compute: c.Compute, Location: at, Network: network, Timeouts: t},
		ServiceAttachments: &ServiceAttachments{Compute: c.Compute, Location: at, Timeouts: t},
		Operations:         &Operations{Compute: c.Compute, Timeouts: t},
	}
}

// ControlPlaneProviders are the control-plane operator's providers in the
// customer's project and region.
type ControlPlaneProviders struct {
	Subnetworks SubnetworksAPI
	Addresses   AddressesAPI
	Endpoints   EndpointsAPI
	Zones       ZonesAPI
	Records     RecordsAPI
	Operations  *Operations
}

// NewControlPlaneProviders builds them over one sign-in's clients.
func NewControlPlaneProviders(c *Clients, at Location, t Timeouts) ControlPlaneProviders {
	return ControlPlaneProviders{
		Subnetworks: &Subnetworks{Compute: c.Compute, Location: at, Timeouts: t},
		Addresses:   &Addresses{Compute: c.Compute, Location: at, Timeouts: t},
		Endpoints:   &Endpoints{Compute: c.Compute, Location: at, Timeouts: t},
		Zones:       &Zones{DNS: c.DNS, Project: at.Project, Timeouts: t},
		Records:     &Records{DNS: c.DNS, Project: at.Project, Timeouts: t},
		Operations:  &Operations{Compute: c.Compute, Timeouts: t},
	}
}
