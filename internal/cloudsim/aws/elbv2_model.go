package aws

import "time"

// ELBState is the ELBv2 model of one account and region. Owner: elbv2*.go.
type ELBState struct {
	LoadBalancers map[string]*LoadBalancer `json:"loadBalancers"` // by ARN
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
}

// LoadBalancerAZ is one subnet of an NLB and the zone it serves.
type LoadBalancerAZ struct {
	SubnetID string `json:"subnetId"`
	ZoneName string `json:"zoneName"`
	ZoneID   string `json:"zoneId"`
}

// LoadBalancersInSubnet lists the NLBs using a subnet (they block its deletion).
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
