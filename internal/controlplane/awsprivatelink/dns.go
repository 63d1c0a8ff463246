package awsprivatelink

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

// recordTTL is the TTL of the endpoint's CNAMEs: the endpoint's DNS name
// changes only when the endpoint is replaced.
const recordTTL = 300

// PreviousEndpointsAnnotation lists the VPC endpoints this CR had before a
// replacement (newest last, a few at most): records that still point at
// one of them are ours to repoint or delete.
const PreviousEndpointsAnnotation = "hcplink.io/previous-endpoint-ids"

// maxPreviousEndpoints bounds PreviousEndpointsAnnotation: replacements
// are rare, and records are repointed at the first pass after one.
const maxPreviousEndpoints = 5

// RecordChanges compares the wanted CNAMEs (name → target) and the zone's
// records (by normalised name) with the names written before, and returns
// the changes: UPSERT for a missing or different record, DELETE for a
// record written before, no longer wanted, that still points at one of our
// endpoints (ours(value)). Nothing when everything matches.
func RecordChanges(want map[string]string, have map[string]r53types.ResourceRecordSet, written []string, ours func(value string) bool) []r53types.Change {
	var changes []r53types.Change
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		target := want[n]
		if rs, ok := have[n]; ok && aws.ToInt64(rs.TTL) == recordTTL && awscloud.CNAMEValue(rs) == strings.ToLower(target) {
			continue
		}
		changes = append(changes, r53types.Change{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &r53types.ResourceRecordSet{
			Name: aws.String(n + "."), Type: r53types.RRTypeCname, TTL: aws.Int64(recordTTL),
			ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(target)}},
		}})
	}
	for _, n := range staleNames(want, have, written) {
		rs := have[n]
		if !ours(awscloud.CNAMEValue(rs)) {
			continue // someone else's
		}
		changes = append(changes, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: &rs})
	}
	return changes
}

// staleNames are the names written before, no longer wanted, still in the
// zone as single-value CNAMEs.
func staleNames(want map[string]string, have map[string]r53types.ResourceRecordSet, written []string) []string {
	var out []string
	for _, n := range written {
		n = awscloud.RecordName(n)
		if _, wanted := want[n]; wanted {
			continue
		}
		if rs, ok := have[n]; ok && awscloud.CNAMEValue(rs) != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// endpointOwnsValue: a record value is ours when it is a DNS name of one
// of the endpoints ids (VPC endpoint DNS names start with the endpoint ID).
func endpointOwnsValue(ids ...string) func(string) bool {
	return func(v string) bool {
		id := awscloud.EndpointIDOfDNSName(v)
		return id != "" && slices.Contains(ids, id)
	}
}

// ownedEndpoints are the endpoint IDs whose records this CR may repoint or
// delete: the current endpoint, those it had before (annotation), and any
// other endpoint the given record values name that carries this CR's
// ownership tags.
func (r *Reconciler) ownedEndpoints(ctx context.Context, s *scope, values []string) ([]string, error) {
	ids := previousEndpoints(s.cr)
	if s.cr.Status.EndpointID != "" {
		ids = append(ids, s.cr.Status.EndpointID)
	}
	for _, v := range values {
		id := awscloud.EndpointIDOfDNSName(v)
		if id == "" || slices.Contains(ids, id) || s.endpoints.EC2 == nil {
			continue
		}
		ep, err := s.endpoints.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if ep != nil && awscloud.OwnedBy(awscloud.TagMap(ep.Tags), s.infraID(), s.cr.Name) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func previousEndpoints(cr *hcplinkv1beta1.AWSEndpointService) []string {
	var out []string
	for _, id := range strings.Split(cr.Annotations[PreviousEndpointsAnnotation], ",") {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}

// rememberEndpoint adds id to the endpoints this CR had, before it is
// forgotten in status.
func (r *Reconciler) rememberEndpoint(ctx context.Context, s *scope, id string) error {
	ids := previousEndpoints(s.cr)
	if id == "" || slices.Contains(ids, id) {
		return nil
	}
	ids = append(ids, id)
	if len(ids) > maxPreviousEndpoints {
		ids = ids[len(ids)-maxPreviousEndpoints:]
	}
	return s.patchAnnotation(ctx, PreviousEndpointsAnnotation, strings.Join(ids, ","))
}

// reconcileDNS makes the zone's records match, writing only differences.
// A zone deleted and created again is looked up again in the same pass.
func (r *Reconciler) reconcileDNS(ctx context.Context, s *scope, target string) outcome.Outcome {
	wantNames := awscloud.EndpointRecordNames(s.cr.Name, s.hcp)
	want := map[string]string{}
	for _, n := range wantNames {
		want[n] = target
	}
	for attempt := 0; ; attempt++ {
		zoneID, o := r.privateZone(ctx, s)
		if !o.Done() {
			return o
		}
		err := r.syncRecords(ctx, s, zoneID, want)
		if awscloud.IsNoSuchHostedZone(err) && attempt == 0 {
			ctrl.LoggerFrom(ctx).Info("The private hosted zone was deleted; looking it up again", "zone", zoneID)
			s.cr.Status.DNSZoneID = ""
			continue
		}
		if err != nil {
			if awscloud.IsNoSuchHostedZone(err) {
				s.cr.Status.DNSZoneID = ""
			}
			return outcome.FromError(fmt.Errorf("DNS records: %w", err))
		}
		s.cr.Status.DNSNames = wantNames
		return outcome.Continue()
	}
}

// syncRecords writes the differences between the wanted records and the
// zone's.
func (r *Reconciler) syncRecords(ctx context.Context, s *scope, zoneID string, want map[string]string) error {
	have, err := s.records.CNAMEs(ctx, zoneID)
	if err != nil {
		return err
	}
	var staleValues []string
	for _, n := range staleNames(want, have, s.cr.Status.DNSNames) {
		staleValues = append(staleValues, awscloud.CNAMEValue(have[n]))
	}
	owned, err := r.ownedEndpoints(ctx, s, staleValues)
	if err != nil {
		return err
	}
	changes := RecordChanges(want, have, s.cr.Status.DNSNames, endpointOwnsValue(owned...))
	if len(changes) == 0 {
		return nil
	}
	// Track every name before writing, so that a crash after the write
	// still deletes what it wrote.
	tracked := append([]string(nil), s.cr.Status.DNSNames...)
	for n := range want {
		if !slices.Contains(tracked, n) {
			tracked = append(tracked, n)
		}
	}
	sort.Strings(tracked)
	s.cr.Status.DNSNames = tracked
	if err := s.persist(ctx); err != nil {
		return err
	}
	if err := s.records.ChangeRecords(ctx, zoneID, "hcplink: VPC endpoint "+s.cr.Status.EndpointID, changes); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Changed DNS records", "zone", zoneID, "changes", len(changes))
	return nil
}

// privateZone returns the zone ID from status, or looks the private zone
// up by name and keeps it in status. A missing zone waits on a person,
// rechecked soon at first.
func (r *Reconciler) privateZone(ctx context.Context, s *scope) (string, outcome.Outcome) {
	if s.cr.Status.DNSZoneID != "" {
		return s.cr.Status.DNSZoneID, outcome.Continue()
	}
	name := awscloud.PrivateZoneName(s.hcp.Name)
	zoneID, err := s.records.FindPrivateZone(ctx, name, s.vpcID())
	if err != nil {
		return "", outcome.FromError(fmt.Errorf("DNS records: %w", err))
	}
	if zoneID == "" {
		return "", outcome.WaitOnPerson(hcplinkv1beta1.DNSZoneNotFoundReason, fmt.Sprintf(
			"The private hosted zone %s does not exist: create it in the cluster's AWS account, associated with VPC %s (the infrastructure CLI creates it)", name, s.vpcID()))
	}
	s.cr.Status.DNSZoneID = zoneID
	return zoneID, outcome.Continue()
}
