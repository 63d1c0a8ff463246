package aws

import (
	"context"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// deletePrivateZones deletes the two private zones tagged for the infra
// ID: first every record but the zone's own SOA and NS (Route 53 refuses
// to delete a zone that has others), then the zone. Zones of the same
// name without this infra ID's tags are another cluster's and stay.
func (r *run) deletePrivateZones(ctx context.Context) ([]string, error) {
	var left []string
	for _, name := range []string{r.opts.clusterZoneName(), r.opts.localZoneName()} {
		id, err := r.ownedPrivateZone(ctx, name)
		if err != nil {
			return left, err
		}
		if id == "" {
			continue
		}
		left = append(left, "private zone "+id)
		if err := r.emptyZone(ctx, id, name); err != nil {
			return left, err
		}
		if _, err := r.c.Route53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: awssdk.String(id)}); !gone(err) {
			return left, awscloud.Wrap("deleting private zone "+id+" ("+name+")", err)
		}
		r.say.Done("deleted", "private zone", id, name)
	}
	return left, nil
}

// emptyZone deletes every record set but the apex SOA and NS, in one
// batch.
func (r *run) emptyZone(ctx context.Context, id, name string) error {
	var changes []r53types.Change
	pages := route53.NewListResourceRecordSetsPaginator(r.c.Route53, &route53.ListResourceRecordSetsInput{HostedZoneId: awssdk.String(id)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return awscloud.Wrap("listing the records of zone "+id, err)
		}
		for _, rs := range page.ResourceRecordSets {
			apex := awscloud.RecordName(awssdk.ToString(rs.Name)) == awscloud.RecordName(name)
			if apex && (rs.Type == r53types.RRTypeSoa || rs.Type == r53types.RRTypeNs) {
				continue
			}
			rs := rs
			changes = append(changes, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: &rs})
		}
	}
	return awscloud.Records{Route53: r.c.Route53}.ChangeRecords(ctx, id, "hcplink: destroy infra "+r.opts.InfraID, changes)
}
