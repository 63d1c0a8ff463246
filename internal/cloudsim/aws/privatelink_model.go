package aws

import (
	"sort"
	"time"
)

// PrivateLinkState is the VPC endpoint / endpoint service model of one
// account and region. Owner: the PrivateLink files (privatelink_*.go).
type PrivateLinkState struct {
	Endpoints map[string]*VPCEndpoint     `json:"endpoints"` // by endpoint ID
	Services  map[string]*EndpointService `json:"services"`  // by service ID

	// Quotas override AWS's default limits here, as a Service Quotas
	// increase would; zero fields keep the defaults.
	Quotas PrivateLinkQuotas `json:"quotas"`
}

// PrivateLinkQuotas are the limits the model enforces. A zero field means
// AWS's default (in brackets).
type PrivateLinkQuotas struct {
	InterfaceEndpointsPerVPC  int `json:"interfaceEndpointsPerVpc,omitempty"`  // [50]
	GatewayEndpointsPerRegion int `json:"gatewayEndpointsPerRegion,omitempty"` // [20]
}

func newPrivateLinkState() *PrivateLinkState {
	return &PrivateLinkState{Endpoints: map[string]*VPCEndpoint{}, Services: map[string]*EndpointService{}}
}

// VPCEndpoint is an Interface or Gateway VPC endpoint. It lives in its
// owner's (the consumer's) region state; an endpoint to an endpoint service
// names the service's ID and owning account.
type VPCEndpoint struct {
	ID               string   `json:"id"`
	Type             string   `json:"type"` // Interface | Gateway
	VpcID            string   `json:"vpcId"`
	ServiceName      string   `json:"serviceName"`
	State            string   `json:"state"`
	SubnetIDs        []string `json:"subnetIds,omitempty"`
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`
	RouteTableIDs    []string `json:"routeTableIds,omitempty"`

	OwnerID           string `json:"ownerId"`
	ServiceID         string `json:"serviceId,omitempty"`      // vpce-svc-…; empty for AWS services
	ServiceOwnerID    string `json:"serviceOwnerId,omitempty"` // account owning ServiceID
	ConnectionID      string `json:"connectionId,omitempty"`
	PrivateDNSEnabled bool   `json:"privateDnsEnabled"`
	PrivateDNSName    string `json:"privateDnsName,omitempty"` // the service's, taken over when enabled
	PolicyDocument    string `json:"policyDocument,omitempty"`
	// DNSLabel is the random part of the endpoint's DNS names.
	DNSLabel string `json:"dnsLabel,omitempty"`
	// NetworkInterfaces maps each subnet to the endpoint's interface in it.
	NetworkInterfaces map[string]string `json:"networkInterfaces,omitempty"`
	CreatedAt         time.Time         `json:"createdAt"`
	// StateUntil is when a transitional state ends: pending → available,
	// deleting → gone (the endpoint keeps its subnets, security groups and
	// route tables busy until then).
	StateUntil time.Time `json:"stateUntil"`
}

// Endpoint states.
const (
	EndpointPendingAcceptance = "pendingAcceptance"
	EndpointPending           = "pending"
	EndpointAvailable         = "available"
	EndpointDeleting          = "deleting"
	EndpointRejected          = "rejected"
)

// EndpointService is a VPC endpoint service configuration on NLBs.
type EndpointService struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	State              string   `json:"state"`
	AcceptanceRequired bool     `json:"acceptanceRequired"`
	LoadBalancerARNs   []string `json:"loadBalancerArns"`
	AllowedPrincipals  []string `json:"allowedPrincipals"`

	OwnerID        string `json:"ownerId"`
	PrivateDNSName string `json:"privateDnsName,omitempty"`
	// PermissionIDs are the servicePermissionIds of AllowedPrincipals.
	PermissionIDs map[string]string `json:"permissionIds,omitempty"`
	CreatedAt     time.Time         `json:"createdAt"`
	AvailableAt   time.Time         `json:"availableAt"` // Pending → Available
}

// ZoneIDs are the zone IDs the service is offered in: those of its NLBs.
func (r *Region) endpointServiceZoneIDs(svc *EndpointService) []string {
	seen := map[string]bool{}
	var ids []string
	for _, arn := range svc.LoadBalancerARNs {
		lb := r.ELB.LoadBalancers[arn]
		if lb == nil {
			continue
		}
		for _, id := range lb.ZoneIDs() {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// EndpointsUsing lists the VPC endpoints in this region that reference a
// resource (security group, subnet, route table or VPC) and so block its
// deletion with DependencyViolation. Endpoints still deleting count: they
// hold their network interfaces until they are really gone.
func (r *Region) EndpointsUsing(resourceID string) []string {
	var ids []string
	for _, ep := range r.PrivateLink.Endpoints {
		if ep.VpcID == resourceID || contains(ep.SubnetIDs, resourceID) ||
			contains(ep.SecurityGroupIDs, resourceID) || contains(ep.RouteTableIDs, resourceID) {
			ids = append(ids, ep.ID)
		}
	}
	sort.Strings(ids)
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

func init() {
	registerAdvancer(advancePrivateLink)
}

// advancePrivateLink moves services Pending → Available, endpoints
// pending → available, and forgets endpoints whose deletion has finished.
func advancePrivateLink(r *Region, now time.Time) {
	for _, svc := range r.PrivateLink.Services {
		if svc.State == "Pending" && !now.Before(svc.AvailableAt) {
			svc.State = "Available"
		}
	}
	for id, ep := range r.PrivateLink.Endpoints {
		if now.Before(ep.StateUntil) {
			continue
		}
		switch ep.State {
		case EndpointPending:
			ep.State = EndpointAvailable
		case EndpointDeleting:
			delete(r.PrivateLink.Endpoints, id)
			r.ForgetTags(id)
		}
	}
}
