package sim

import (
	"encoding/json"
	"time"
)

// Delays are how long each asynchronous state lasts before it advances.
type Delays struct {
	LoadBalancerProvisioning Duration `json:"loadBalancerProvisioning"` // NLB provisioning → active
	LoadBalancerDeleting     Duration `json:"loadBalancerDeleting"`     // NLB gone after delete
	EndpointPending          Duration `json:"endpointPending"`          // VPC endpoint pending → available
	EndpointDeleting         Duration `json:"endpointDeleting"`         // VPC endpoint deleting → gone
	EndpointServicePending   Duration `json:"endpointServicePending"`   // endpoint service Pending → Available
	NatGatewayPending        Duration `json:"natGatewayPending"`        // NAT gateway pending → available
	NatGatewayDeleting       Duration `json:"natGatewayDeleting"`       // NAT gateway deleting → deleted
	Route53ChangePropagation Duration `json:"route53ChangePropagation"` // change PENDING → INSYNC
}

// FastDelays are short enough for tests and the demo, yet long enough that
// every intermediate state is observable at least once.
func FastDelays() Delays {
	return Delays{
		LoadBalancerProvisioning: Duration(400 * time.Millisecond),
		LoadBalancerDeleting:     Duration(100 * time.Millisecond),
		EndpointPending:          Duration(300 * time.Millisecond),
		EndpointDeleting:         Duration(300 * time.Millisecond),
		EndpointServicePending:   Duration(100 * time.Millisecond),
		NatGatewayPending:        Duration(300 * time.Millisecond),
		NatGatewayDeleting:       Duration(200 * time.Millisecond),
		Route53ChangePropagation: Duration(100 * time.Millisecond),
	}
}

// RealisticDelays are in the range AWS takes in practice.
func RealisticDelays() Delays {
	return Delays{
		LoadBalancerProvisioning: Duration(150 * time.Second),
		LoadBalancerDeleting:     Duration(20 * time.Second),
		EndpointPending:          Duration(90 * time.Second),
		EndpointDeleting:         Duration(60 * time.Second),
		EndpointServicePending:   Duration(10 * time.Second),
		NatGatewayPending:        Duration(90 * time.Second),
		NatGatewayDeleting:       Duration(60 * time.Second),
		Route53ChangePropagation: Duration(30 * time.Second),
	}
}

// Duration is a time.Duration that reads and writes JSON as "1.5s".
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string ("300ms") or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*d = Duration(n)
		return nil
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(parsed)
	return nil
}
