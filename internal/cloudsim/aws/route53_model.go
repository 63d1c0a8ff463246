package aws

// Route53State is the Route 53 model of one account (Route 53 is global).
// Owner: route53*.go.
type Route53State struct {
	HostedZones map[string]*HostedZone `json:"hostedZones"` // by zone ID (without /hostedzone/)
}

func newRoute53State() *Route53State { return &Route53State{HostedZones: map[string]*HostedZone{}} }

// HostedZone is a public or private hosted zone.
type HostedZone struct {
	ID          string `json:"id"`
	Name        string `json:"name"` // with the trailing dot
	PrivateZone bool   `json:"privateZone"`
}
