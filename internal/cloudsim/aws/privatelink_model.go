package aws

// PrivateLinkState is the VPC endpoint / endpoint service model of one
// account and region. Owner: the PrivateLink files (privatelink_*.go).
type PrivateLinkState struct {
	Endpoints map[string]*VPCEndpoint     `json:"endpoints"` // by endpoint ID
	Services  map[string]*EndpointService `json:"services"`  // by service ID
}

func newPrivateLinkState() *PrivateLinkState {
	return &PrivateLinkState{Endpoints: map[string]*VPCEndpoint{}, Services: map[string]*EndpointService{}}
}

// VPCEndpoint is an Interface or Gateway VPC endpoint.
type VPCEndpoint struct {
	ID               string   `json:"id"`
	Type             string   `json:"type"` // Interface | Gateway
	VpcID            string   `json:"vpcId"`
	ServiceName      string   `json:"serviceName"`
	State            string   `json:"state"`
	SubnetIDs        []string `json:"subnetIds,omitempty"`
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`
	RouteTableIDs    []string `json:"routeTableIds,omitempty"`
}

// EndpointService is a VPC endpoint service configuration on NLBs.
type EndpointService struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	State              string   `json:"state"`
	AcceptanceRequired bool     `json:"acceptanceRequired"`
	LoadBalancerARNs   []string `json:"loadBalancerArns"`
	AllowedPrincipals  []string `json:"allowedPrincipals"`
}

// EndpointsUsing lists the VPC endpoints in this region that reference a
// resource (security group, subnet, route table or VPC) and so block its
// deletion with DependencyViolation. Endpoints already gone do not count.
func (r *Region) EndpointsUsing(resourceID string) []string {
	var ids []string
	for _, ep := range r.PrivateLink.Endpoints {
		if ep.VpcID == resourceID || contains(ep.SubnetIDs, resourceID) ||
			contains(ep.SecurityGroupIDs, resourceID) || contains(ep.RouteTableIDs, resourceID) {
			ids = append(ids, ep.ID)
		}
	}
	return ids
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
