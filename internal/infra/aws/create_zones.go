package aws

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// negativeTTL is the SOA's negative-caching TTL of the private zones:
// nodes that asked for a record before hcplink wrote it would otherwise
// cache the "no such name" answer for Route 53's default 15 minutes.
const negativeTTL = 60

// maxTagResources is how many zones one ListTagsForResources call takes.
const maxTagResources = 10

type zoneIDs struct{ public, cluster, local string }

// ensureZones finds or creates the two private zones on the VPC (the
// public zone was looked up by plan, before any change).
func (r *run) ensureZones(ctx context.Context, vpcID string) (zoneIDs, error) {
	z := zoneIDs{public: r.publicZoneID}
	var err error
	if z.cluster, err = r.ensurePrivateZone(ctx, r.opts.clusterZoneName(), vpcID); err != nil {
		return z, err
	}
	z.local, err = r.ensurePrivateZone(ctx, r.opts.localZoneName(), vpcID)
	return z, err
}

// EnsureLocalZone finds or creates the <Name>.hypershift.local private
// zone on vpcID, tagged for opts.InfraID, with the SOA's negative TTL at
// negativeTTL: the zone Create makes, for a VPC made another way (devenv's
// customer VPC, shared by many clusters). It returns the zone's ID.
func EnsureLocalZone(ctx context.Context, opts Options, deps Deps, vpcID string) (string, error) {
	if opts.InfraID == "" {
		return "", fmt.Errorf("an infra ID is required to tag the private zone")
	}
	r := newRun(opts, deps)
	return r.ensurePrivateZone(ctx, r.opts.localZoneName(), vpcID)
}

func zoneID(id *string) string { return strings.TrimPrefix(awssdk.ToString(id), "/hostedzone/") }

// zonesNamed lists the account's hosted zones named exactly name.
func (r *run) zonesNamed(ctx context.Context, name string) ([]r53types.HostedZone, error) {
	out, err := r.c.Route53.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: awssdk.String(name), MaxItems: awssdk.Int32(100)})
	if err != nil {
		return nil, awscloud.Wrap("looking up hosted zones named "+name, err)
	}
	var zones []r53types.HostedZone
	for _, z := range out.HostedZones {
		if awscloud.RecordName(awssdk.ToString(z.Name)) == strings.ToLower(name) {
			zones = append(zones, z)
		}
	}
	return zones, nil
}

func isPrivate(z r53types.HostedZone) bool { return z.Config != nil && z.Config.PrivateZone }

// publicZone finds the base domain's public zone, which must exist.
func (r *run) publicZone(ctx context.Context) (string, error) {
	zones, err := r.zonesNamed(ctx, r.opts.BaseDomain)
	if err != nil {
		return "", err
	}
	for _, z := range zones {
		if !isPrivate(z) {
			r.say.Done("found", "public zone", zoneID(z.Id), r.opts.BaseDomain)
			return zoneID(z.Id), nil
		}
	}
	return "", fmt.Errorf("the account has no public hosted zone %s: create it (or pass the --base-domain of one that exists) and re-run", r.opts.BaseDomain)
}

// ensurePrivateZone finds the private zone name carrying this infra ID's
// tags, or creates it on the VPC. A zone of that name without the tags is
// never used: two clusters with the same name each get their own.
func (r *run) ensurePrivateZone(ctx context.Context, name, vpcID string) (string, error) {
	id, err := r.ownedPrivateZone(ctx, name)
	if err != nil {
		return "", err
	}
	if id != "" {
		r.say.Done("found", "private zone", id, name)
		if err := r.ensureZoneOnVPC(ctx, id, vpcID); err != nil {
			return "", err
		}
	} else if id, err = r.createPrivateZone(ctx, name, vpcID); err != nil {
		return "", err
	}
	return id, r.ensureNegativeTTL(ctx, id, name)
}

// ownedPrivateZone returns the private zone named name tagged for this
// infra ID, "" when there is none.
func (r *run) ownedPrivateZone(ctx context.Context, name string) (string, error) {
	zones, err := r.zonesNamed(ctx, name)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, z := range zones {
		if isPrivate(z) {
			ids = append(ids, zoneID(z.Id))
		}
	}
	tags, err := r.zoneTags(ctx, ids)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if r.opts.ownsZone(tags[id]) {
			return id, nil
		}
	}
	return "", nil
}

// zoneTags reads the tags of zones, by zone ID.
func (r *run) zoneTags(ctx context.Context, ids []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for chunk := range slices.Chunk(ids, maxTagResources) {
		res, err := r.c.Route53.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{ResourceType: r53types.TagResourceTypeHostedzone, ResourceIds: chunk})
		if err != nil {
			return nil, awscloud.Wrap("reading the tags of hosted zones "+strings.Join(chunk, ", "), err)
		}
		for _, set := range res.ResourceTagSets {
			m := map[string]string{}
			for _, t := range set.Tags {
				m[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
			}
			out[awssdk.ToString(set.ResourceId)] = m
		}
	}
	return out, nil
}

func (r *run) createPrivateZone(ctx context.Context, name, vpcID string) (string, error) {
	out, err := r.c.Route53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: awssdk.String(name),
		CallerReference:  awssdk.String(r.opts.InfraID + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)),
		HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true, Comment: awssdk.String("hcplink infra " + r.opts.InfraID)},
		VPC:              &r53types.VPC{VPCId: awssdk.String(vpcID), VPCRegion: r53types.VPCRegion(r.opts.Region)}})
	if err != nil {
		return "", awscloud.Wrap("creating private zone "+name+" on VPC "+vpcID, err)
	}
	id := zoneID(out.HostedZone.Id)
	var tags []r53types.Tag
	for k, v := range r.opts.tags(name, nil) {
		tags = append(tags, r53types.Tag{Key: awssdk.String(k), Value: awssdk.String(v)})
	}
	if _, err := r.c.Route53.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone,
		ResourceId: awssdk.String(id), AddTags: tags}); err != nil {
		return "", awscloud.Wrap("tagging private zone "+id+" ("+name+")", err)
	}
	r.say.Done("created", "private zone", id, name)
	return id, nil
}

// ensureZoneOnVPC associates an existing zone with the VPC when it is not.
func (r *run) ensureZoneOnVPC(ctx context.Context, id, vpcID string) error {
	z, err := r.c.Route53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: awssdk.String(id)})
	if err != nil {
		return awscloud.Wrap("reading private zone "+id, err)
	}
	for _, v := range z.VPCs {
		if awssdk.ToString(v.VPCId) == vpcID {
			return nil
		}
	}
	_, err = r.c.Route53.AssociateVPCWithHostedZone(ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: awssdk.String(id),
		VPC: &r53types.VPC{VPCId: awssdk.String(vpcID), VPCRegion: r53types.VPCRegion(r.opts.Region)}})
	return awscloud.Wrap("associating private zone "+id+" with VPC "+vpcID, err)
}

// ensureNegativeTTL sets the SOA's TTL and minimum to negativeTTL unless
// they are already.
func (r *run) ensureNegativeTTL(ctx context.Context, id, name string) error {
	out, err := r.c.Route53.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: awssdk.String(id),
		StartRecordName: awssdk.String(name), StartRecordType: r53types.RRTypeSoa, MaxItems: awssdk.Int32(1)})
	if err != nil {
		return awscloud.Wrap("reading the SOA of zone "+id, err)
	}
	if len(out.ResourceRecordSets) == 0 || out.ResourceRecordSets[0].Type != r53types.RRTypeSoa || len(out.ResourceRecordSets[0].ResourceRecords) != 1 {
		return fmt.Errorf("zone %s (%s) has no SOA record: it was changed outside hcplink", id, name)
	}
	soa := out.ResourceRecordSets[0]
	value, changed := withSOAMinimum(awssdk.ToString(soa.ResourceRecords[0].Value), negativeTTL)
	if !changed && awssdk.ToInt64(soa.TTL) == negativeTTL {
		return nil
	}
	soa.TTL, soa.ResourceRecords = awssdk.Int64(negativeTTL), []r53types.ResourceRecord{{Value: awssdk.String(value)}}
	return awscloud.Records{Route53: r.c.Route53}.ChangeRecords(ctx, id, "hcplink: negative-caching TTL",
		[]r53types.Change{{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &soa}})
}

// withSOAMinimum replaces the last field of an SOA value (the
// negative-caching TTL) with ttl.
func withSOAMinimum(value string, ttl int) (string, bool) {
	fields := strings.Fields(value)
	want := strconv.Itoa(ttl)
	if len(fields) != 7 || fields[6] == want {
		return value, false
	}
	fields[6] = want
	return strings.Join(fields, " "), true
}
