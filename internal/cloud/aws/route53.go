package aws

import (
	"context"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// Records is the provider of the private hosted zone and its CNAME
// records in one account. Every error it returns is classified (Wrap); a
// zone that was deleted answers CodeNoSuchHostedZone (IsNoSuchHostedZone).
type Records struct {
	Route53 Route53API
}

// IsNoSuchHostedZone reports whether err says the hosted zone is gone.
func IsNoSuchHostedZone(err error) bool { return ErrorCode(err) == CodeNoSuchHostedZone }

// RecordName normalises a Route 53 record name: lower case, no trailing
// dot, octal escapes (\052 for *) decoded.
func RecordName(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '\\' && i+3 < len(name) && isOctal(name[i+1]) && isOctal(name[i+2]) && isOctal(name[i+3]) {
			b.WriteByte((name[i+1]-'0')*64 + (name[i+2]-'0')*8 + (name[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// FindPrivateZone returns the ID (without "/hostedzone/") of the private
// zone named name; when several private zones share the name, the one
// associated with vpcID. "" when there is none.
func (p Records) FindPrivateZone(ctx context.Context, name, vpcID string) (string, error) {
	out, err := p.Route53.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: awssdk.String(name), MaxItems: awssdk.Int32(100)})
	if err != nil {
		return "", Wrap("looking up private zone "+name, err)
	}
	var candidates []string
	for _, z := range out.HostedZones {
		if RecordName(awssdk.ToString(z.Name)) == name && z.Config != nil && z.Config.PrivateZone {
			candidates = append(candidates, strings.TrimPrefix(awssdk.ToString(z.Id), "/hostedzone/"))
		}
	}
	switch len(candidates) {
	case 0:
		return "", nil
	case 1:
		return candidates[0], nil
	}
	for _, id := range candidates {
		z, err := p.Route53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: awssdk.String(id)})
		if IsNoSuchHostedZone(err) {
			continue
		}
		if err != nil {
			return "", Wrap("reading private zone "+id, err)
		}
		for _, v := range z.VPCs {
			if awssdk.ToString(v.VPCId) == vpcID {
				return id, nil
			}
		}
	}
	return "", nil
}

// CNAMEs lists the zone's CNAME records by normalised name.
func (p Records) CNAMEs(ctx context.Context, zoneID string) (map[string]r53types.ResourceRecordSet, error) {
	out := map[string]r53types.ResourceRecordSet{}
	pages := route53.NewListResourceRecordSetsPaginator(p.Route53, &route53.ListResourceRecordSetsInput{HostedZoneId: awssdk.String(zoneID)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, Wrap("listing the records of zone "+zoneID, err)
		}
		for _, rs := range page.ResourceRecordSets {
			if rs.Type == r53types.RRTypeCname {
				out[RecordName(awssdk.ToString(rs.Name))] = rs
			}
		}
	}
	return out, nil
}

// CNAMEValue is the single value of a CNAME record set (normalised), ""
// when it has none or several.
func CNAMEValue(rs r53types.ResourceRecordSet) string {
	if rs.Type != r53types.RRTypeCname || len(rs.ResourceRecords) != 1 {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(awssdk.ToString(rs.ResourceRecords[0].Value), "."))
}

// ChangeRecords applies changes to the zone in one batch.
func (p Records) ChangeRecords(ctx context.Context, zoneID, comment string, changes []r53types.Change) error {
	if len(changes) == 0 {
		return nil
	}
	batch := &r53types.ChangeBatch{Changes: changes}
	if comment != "" {
		batch.Comment = awssdk.String(comment)
	}
	_, err := p.Route53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: awssdk.String(zoneID), ChangeBatch: batch})
	return Wrap("changing records in zone "+zoneID, err)
}
