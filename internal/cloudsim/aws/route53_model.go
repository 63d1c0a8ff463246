package aws

import "time"

// Route53State is the Route 53 model of one account (Route 53 is global).
// Owner: route53*.go.
type Route53State struct {
	HostedZones map[string]*HostedZone `json:"hostedZones"` // by zone ID (without /hostedzone/)
	// Changes are the submitted change batches, by change ID (without /change/).
	Changes map[string]*Route53Change `json:"changes"`
	// CallerReferences are every CreateHostedZone caller reference ever
	// used, with the zone it made: AWS never lets one be reused.
	CallerReferences map[string]string `json:"callerReferences"`
}

func newRoute53State() *Route53State {
	return &Route53State{
		HostedZones:      map[string]*HostedZone{},
		Changes:          map[string]*Route53Change{},
		CallerReferences: map[string]string{},
	}
}

// HostedZone is a public or private hosted zone.
type HostedZone struct {
	ID          string `json:"id"`
	Name        string `json:"name"` // with the trailing dot
	PrivateZone bool   `json:"privateZone"`

	CallerReference string            `json:"callerReference"`
	Comment         string            `json:"comment,omitempty"`
	VPCs            []ZoneVPC         `json:"vpcs,omitempty"` // private zones only
	NameServers     []string          `json:"nameServers"`
	Tags            map[string]string `json:"tags,omitempty"`
	CreatedAt       time.Time         `json:"createdAt"`
	// Records are the zone's record sets by recordKey (name and type).
	Records map[string]*RecordSet `json:"records"`
}

// ZoneVPC is a VPC associated with a private hosted zone.
type ZoneVPC struct {
	Region string `json:"region"`
	ID     string `json:"id"`
}

// RecordSet is one resource record set: all records of a name and type.
type RecordSet struct {
	Name   string   `json:"name"` // lower case, trailing dot, octal escapes (\052 for *)
	Type   string   `json:"type"`
	TTL    int64    `json:"ttl"`
	Values []string `json:"values,omitempty"`
	Alias  *Alias   `json:"alias,omitempty"`
}

// Alias is an alias record's target.
type Alias struct {
	HostedZoneID         string `json:"hostedZoneId"`
	DNSName              string `json:"dnsName"`
	EvaluateTargetHealth bool   `json:"evaluateTargetHealth"`
}

// Route53Change is a submitted change: PENDING until InsyncAt, then INSYNC.
type Route53Change struct {
	ID          string    `json:"id"`
	Comment     string    `json:"comment,omitempty"`
	SubmittedAt time.Time `json:"submittedAt"`
	InsyncAt    time.Time `json:"insyncAt"`
}

// Status is the change's status at now.
func (c *Route53Change) Status(now time.Time) string {
	if now.Before(c.InsyncAt) {
		return "PENDING"
	}
	return "INSYNC"
}

// RecordSetsOf returns a zone's record sets in the order Route 53 lists
// them (nil for an unknown zone ID), for tools that read the model.
func (s *Route53State) RecordSetsOf(zoneID string) []*RecordSet {
	z := s.HostedZones[zoneID]
	if z == nil {
		return nil
	}
	out := make([]*RecordSet, 0, len(z.Records))
	for _, rs := range z.Records {
		out = append(out, rs)
	}
	sortRecordSets(out)
	return out
}
