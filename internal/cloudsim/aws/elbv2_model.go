package aws

import "time"

// ELBState is the ELBv2 model of one account and region. Owner: elbv2*.go.
type ELBState struct {
	LoadBalancers map[string]*LoadBalancer `json:"loadBalancers"` // by ARN

	// Quotas override AWS's default limits here; zero keeps the default.
	Quotas ELBQuotas `json:"quotas"`
}

// ELBQuotas are the limits the model enforces. A zero field means AWS's
// default (in brackets).
type ELBQuotas struct {
	NetworkLoadBalancers int `json:"networkLoadBalancers,omitempty"` // per region [50]
}

func newELBState() *ELBState { return &ELBState{LoadBalancers: map[string]*LoadBalancer{}} }

// LoadBalancer is a network load balancer.
type LoadBalancer struct {
	ARN       string           `json:"arn"`
	Name      string           `json:"name"`
	DNSName   string           `json:"dnsName"`
	Scheme    string           `json:"scheme"` // internal | internet-facing
	Type      string           `json:"type"`   // network
	VpcID     string           `json:"vpcId"`
	State     string           `json:"state"` // provisioning | active | failed
	Zones     []LoadBalancerAZ `json:"zones"`
	CrossZone bool             `json:"crossZone"`
	CreatedAt time.Time        `json:"createdAt"`

	CanonicalHostedZoneID string   `json:"canonicalHostedZoneId"`
	IPAddressType         string   `json:"ipAddressType"` // ipv4 | dualstack
	SecurityGroupIDs      []string `json:"securityGroupIds,omitempty"`
	DeletionProtection    bool     `json:"deletionProtection"`
	// Attributes holds the NLB attributes other than cross-zone and deletion
	// protection (which have fields of their own), as last set.
	Attributes map[string]string `json:"attributes,omitempty"`
	// ActiveAt is when provisioning ends.
	ActiveAt time.Time `json:"activeAt"`
	// GoneAt is set by DeleteLoadBalancer. The NLB disappears from the API at
	// once, as on AWS, but its network interfaces keep its subnets in use
	// (LoadBalancersInSubnet) until GoneAt.
	GoneAt *time.Time `json:"goneAt,omitempty"`
}

// LoadBalancerAZ is one subnet of an NLB and the zone it serves.
type LoadBalancerAZ struct {
	SubnetID string `json:"subnetId"`
	ZoneName string `json:"zoneName"`
	ZoneID   string `json:"zoneId"`
}

// Deleted reports whether DeleteLoadBalancer has been called on the NLB.
func (lb *LoadBalancer) Deleted() bool { return lb.GoneAt != nil }

// ZoneIDs lists the zone IDs the NLB serves.
func (lb *LoadBalancer) ZoneIDs() []string {
	ids := make([]string, 0, len(lb.Zones))
	for _, z := range lb.Zones {
		ids = append(ids, z.ZoneID)
	}
	return ids
}

// LoadBalancer returns a live (not deleted) NLB of this region by ARN.
func (r *Region) LoadBalancer(arn string) *LoadBalancer {
	lb := r.ELB.LoadBalancers[arn]
	if lb == nil || lb.Deleted() {
		return nil
	}
	return lb
}

// LoadBalancersInSubnet lists the NLBs using a subnet (they block its
// deletion), including deleted ones whose network interfaces linger.
func (r *Region) LoadBalancersInSubnet(subnetID string) []string {
	var arns []string
	for _, lb := range r.ELB.LoadBalancers {
		for _, z := range lb.Zones {
			if z.SubnetID == subnetID {
				arns = append(arns, lb.ARN)
				break
			}
		}
	}
	return arns
}

func init() {
	registerAdvancer(advanceLoadBalancers)
}

// advanceLoadBalancers ends provisioning and forgets deleted NLBs once
// their network interfaces are gone.
func advanceLoadBalancers(r *Region, now time.Time) {
	for arn, lb := range r.ELB.LoadBalancers {
		if lb.GoneAt != nil {
			if !now.Before(*lb.GoneAt) {
				delete(r.ELB.LoadBalancers, arn)
				r.ForgetTags(arn)
			}
			continue
		}
		if lb.State == "provisioning" && !now.Before(lb.ActiveAt) {
			lb.State = "active"
		}
	}
}
