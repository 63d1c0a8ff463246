package awsprivatelink

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/controlplane/routers"
)

// recordTTL is the TTL of the endpoint's CNAMEs: the endpoint's DNS name
// changes only when the endpoint is replaced.
const recordTTL = 300

// PrivateZoneName is the private hosted zone of the cluster's records.
func PrivateZoneName(hcpName string) string {
	return hcpName + ".hypershift.local"
}

// DesiredRecordNames are the names (in the zone, without trailing dot) the
// CR's endpoint serves: kube-apiserver-private → api; private-router →
// *.apps, plus api when the API server is published by Route.
func DesiredRecordNames(crName string, hcp *hcplinkv1beta1.HostedControlPlane) []string {
	zone := PrivateZoneName(hcp.Name)
	switch crName {
	case routers.KubeAPIServerPrivateServiceName:
		return []string{"api." + zone}
	case routers.PrivateRouterServiceName:
		names := []string{"*.apps." + zone}
		if s, _ := hcplinkv1beta1.PublishingStrategyFor(hcp.Spec.Services, hcplinkv1beta1.APIServer); s.Type == hcplinkv1beta1.RoutePublishing {
			names = append(names, "api."+zone)
		}
		sort.Strings(names)
		return names
	}
	return nil
}

// recordName normalises a Route 53 record name: lower case, no trailing
// dot, octal escapes (\052 for *) decoded.
func recordName(name string) string {
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

// RecordChanges compares the wanted CNAMEs (name → target) and the zone's
// records (by normalised name) with the names written before, and returns
// the changes: UPSERT for a missing or different record, DELETE for a
// record written before, no longer wanted, that still points at our
// endpoint (ours(value)). Nothing when everything matches.
func RecordChanges(want map[string]string, have map[string]r53types.ResourceRecordSet, written []string, ours func(value string) bool) []r53types.Change {
	var changes []r53types.Change
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		target := want[n]
		if rs, ok := have[n]; ok && rs.Type == r53types.RRTypeCname && aws.ToInt64(rs.TTL) == recordTTL &&
			len(rs.ResourceRecords) == 1 && strings.TrimSuffix(aws.ToString(rs.ResourceRecords[0].Value), ".") == target {
			continue
		}
		changes = append(changes, r53types.Change{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &r53types.ResourceRecordSet{
			Name: aws.String(n + "."), Type: r53types.RRTypeCname, TTL: aws.Int64(recordTTL),
			ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(target)}},
		}})
	}
	for _, n := range written {
		n = recordName(n)
		if _, wanted := want[n]; wanted {
			continue
		}
		rs, ok := have[n]
		if !ok || rs.Type != r53types.RRTypeCname || len(rs.ResourceRecords) != 1 || !ours(aws.ToString(rs.ResourceRecords[0].Value)) {
			continue // gone already, or someone else's
		}
		changes = append(changes, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: &rs})
	}
	return changes
}

// endpointOwnsValue: a record value is the endpoint's when it is one of its
// DNS names, which all start with the endpoint ID.
func endpointOwnsValue(endpointID string) func(string) bool {
	return func(v string) bool {
		return endpointID != "" && strings.HasPrefix(strings.ToLower(v), strings.ToLower(endpointID)+"-")
	}
}

// reconcileDNS makes the zone's records match, writing only differences.
func (r *Reconciler) reconcileDNS(ctx context.Context, s *scope, target string) (*outcome, error) {
	zoneID, o, err := r.privateZone(ctx, s)
	if o != nil || err != nil {
		return o, err
	}
	wantNames := DesiredRecordNames(s.cr.Name, s.hcp)
	want := map[string]string{}
	for _, n := range wantNames {
		want[n] = target
	}
	have, err := r.listRecords(ctx, zoneID)
	if awscloud.ErrorCode(err) == "NoSuchHostedZone" {
		s.cr.Status.DNSZoneID = ""
		return waiting(hcplinkv1beta1.DNSRecordsPendingReason, "The private hosted zone was deleted; looking it up again", pendingRequeue), nil
	}
	if err != nil {
		return nil, err
	}
	changes := RecordChanges(want, have, s.cr.Status.DNSNames, endpointOwnsValue(s.cr.Status.EndpointID))
	if len(changes) > 0 {
		// Track every name before writing, so that a crash after the write
		// still deletes what it wrote.
		tracked := append([]string(nil), s.cr.Status.DNSNames...)
		for _, n := range wantNames {
			if !slices.Contains(tracked, n) {
				tracked = append(tracked, n)
			}
		}
		sort.Strings(tracked)
		s.cr.Status.DNSNames = tracked
		if err := r.persist(ctx, s); err != nil {
			return nil, err
		}
		_, err := r.Route53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{
			HostedZoneId: aws.String(zoneID),
			ChangeBatch:  &r53types.ChangeBatch{Comment: aws.String("hcplink: VPC endpoint " + s.cr.Status.EndpointID), Changes: changes},
		})
		if awscloud.ErrorCode(err) == "NoSuchHostedZone" {
			s.cr.Status.DNSZoneID = ""
			return waiting(hcplinkv1beta1.DNSRecordsPendingReason, "The private hosted zone was deleted; looking it up again", pendingRequeue), nil
		}
		if err != nil {
			return nil, fmt.Errorf("changing records in zone %s: %w", zoneID, err)
		}
		ctrl.LoggerFrom(ctx).Info("Changed DNS records", "zone", zoneID, "changes", len(changes))
	}
	s.cr.Status.DNSNames = wantNames
	return nil, nil
}

// privateZone returns the zone ID from status, or looks the private zone
// up by name once and keeps it in status.
func (r *Reconciler) privateZone(ctx context.Context, s *scope) (string, *outcome, error) {
	if s.cr.Status.DNSZoneID != "" {
		return s.cr.Status.DNSZoneID, nil, nil
	}
	name := PrivateZoneName(s.hcp.Name)
	out, err := r.Route53.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: aws.String(name), MaxItems: aws.Int32(100)})
	if err != nil {
		return "", nil, fmt.Errorf("looking up private zone %s: %w", name, err)
	}
	var candidates []string
	for _, z := range out.HostedZones {
		if recordName(aws.ToString(z.Name)) == name && z.Config != nil && z.Config.PrivateZone {
			candidates = append(candidates, strings.TrimPrefix(aws.ToString(z.Id), "/hostedzone/"))
		}
	}
	var zoneID string
	switch len(candidates) {
	case 0:
	case 1:
		zoneID = candidates[0]
	default:
		// Several private zones of that name: the one attached to our VPC.
		for _, id := range candidates {
			z, err := r.Route53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String(id)})
			if err != nil {
				return "", nil, fmt.Errorf("reading private zone %s: %w", id, err)
			}
			for _, v := range z.VPCs {
				if aws.ToString(v.VPCId) == s.vpcID() {
					zoneID = id
				}
			}
		}
	}
	if zoneID == "" {
		return "", waiting(hcplinkv1beta1.DNSZoneNotFoundReason, fmt.Sprintf(
			"The private hosted zone %s does not exist: create it in the cluster's AWS account, associated with VPC %s (the infrastructure CLI creates it)", name, s.vpcID()),
			jitter(zoneMissingRequeue)), nil
	}
	s.cr.Status.DNSZoneID = zoneID
	return zoneID, nil, nil
}

// listRecords lists the zone's records by normalised name.
func (r *Reconciler) listRecords(ctx context.Context, zoneID string) (map[string]r53types.ResourceRecordSet, error) {
	out := map[string]r53types.ResourceRecordSet{}
	p := route53.NewListResourceRecordSetsPaginator(r.Route53, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, rs := range page.ResourceRecordSets {
			if rs.Type == r53types.RRTypeCname {
				out[recordName(aws.ToString(rs.Name))] = rs
			}
		}
	}
	return out, nil
}
