package awsprivatelink

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

// WantedSubnetIDs are the subnets the endpoint may use: spec.subnetIDs (the
// operator's list, capped) and every NodePool's subnet, sorted, once each.
func WantedSubnetIDs(cr *hcplinkv1beta1.AWSEndpointService, hcp *hcplinkv1beta1.HostedControlPlane) []string {
	ids := append([]string(nil), cr.Spec.SubnetIDs...)
	if hcp != nil {
		for _, np := range hcp.Spec.NodePools {
			if strings.HasPrefix(np.SubnetID, "subnet-") {
				ids = append(ids, np.SubnetID)
			}
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// selectSubnets describes the wanted subnets, records each one's zone ID in
// status (the operator caps spec.subnetIDs per zone with it), drops the
// ones that no longer exist (kept in s.missingSubnets) and those of another
// VPC (kept in s.otherVPCSubnets: no endpoint call may name them, so a
// wrong NodePool never moves or breaks the endpoint; it and its records go
// on with the rest) and keeps one per zone ID.
func (r *Reconciler) selectSubnets(ctx context.Context, s *scope, wanted []string) ([]ec2types.Subnet, outcome.Outcome) {
	described, missing, err := s.endpoints.Subnets(ctx, wanted)
	if err != nil {
		return nil, outcome.FromError(err)
	}
	found, otherVPC := SubnetsOfVPC(described, s.vpcID())
	zones := map[string]string{}
	for _, sn := range found {
		zones[aws.ToString(sn.SubnetId)] = aws.ToString(sn.AvailabilityZoneId)
	}
	if len(zones) > maxSubnetZoneIDs {
		zones = firstKeys(zones, maxSubnetZoneIDs)
	}
	if len(zones) == 0 {
		zones = nil
	}
	s.cr.Status.SubnetZoneIDs = zones
	s.missingSubnets, s.otherVPCSubnets = missing, otherVPC
	switch {
	case len(found) == 0 && len(otherVPC) > 0:
		return nil, otherVPCSubnetsOutcome("", s.vpcID(), append(otherVPC, missing...))
	case len(found) == 0:
		return nil, outcome.WaitOnPerson(hcplinkv1beta1.SubnetNotFoundReason, fmt.Sprintf(
			"None of the subnets the cluster's NodePools name exist in the customer account (%s); fix the NodePools' subnets", strings.Join(missing, ", ")))
	}
	return SubnetsPerZone(found), outcome.Continue()
}

// SubnetsOfVPC splits subnets into those of vpc and the IDs of the others.
func SubnetsOfVPC(subnets []ec2types.Subnet, vpc string) (in []ec2types.Subnet, otherIDs []string) {
	for _, sn := range subnets {
		if aws.ToString(sn.VpcId) == vpc {
			in = append(in, sn)
		} else {
			otherIDs = append(otherIDs, aws.ToString(sn.SubnetId))
		}
	}
	return in, otherIDs
}

// maxSubnetZoneIDs is the API's bound on status.subnetZoneIDs.
const maxSubnetZoneIDs = 100

func firstKeys(m map[string]string, n int) map[string]string {
	keys := slices.Sorted(maps.Keys(m))
	out := map[string]string{}
	for _, k := range keys[:n] {
		out[k] = m[k]
	}
	return out
}

// SubnetsPerZone keeps one subnet per availability-zone ID, the one with
// the lexicographically smallest subnet ID, sorted by subnet ID. Zone IDs,
// not names: names are per-account aliases.
func SubnetsPerZone(subnets []ec2types.Subnet) []ec2types.Subnet {
	best := map[string]ec2types.Subnet{}
	for _, sn := range subnets {
		zone := aws.ToString(sn.AvailabilityZoneId)
		if zone == "" {
			zone = "name:" + aws.ToString(sn.AvailabilityZone)
		}
		if cur, ok := best[zone]; !ok || aws.ToString(sn.SubnetId) < aws.ToString(cur.SubnetId) {
			best[zone] = sn
		}
	}
	out := make([]ec2types.Subnet, 0, len(best))
	for _, sn := range best {
		out = append(out, sn)
	}
	sort.Slice(out, func(i, j int) bool { return aws.ToString(out[i].SubnetId) < aws.ToString(out[j].SubnetId) })
	return out
}

func subnetIDs(subnets []ec2types.Subnet) []string {
	ids := make([]string, 0, len(subnets))
	for _, sn := range subnets {
		ids = append(ids, aws.ToString(sn.SubnetId))
	}
	return ids
}

// serviceInfo is what the customer account sees of the endpoint service.
type serviceInfo struct {
	name    string
	zoneIDs []string // zone IDs the service's load balancer serves; nil when unknown
}

// serviceZones describes the endpoint service as the customer sees it and
// turns its zones into zone IDs.
func (r *Reconciler) serviceZones(ctx context.Context, s *scope) (serviceInfo, outcome.Outcome) {
	name := s.cr.Status.EndpointServiceName
	zones, byName, visible, err := s.endpoints.ServiceZones(ctx, name)
	if err != nil {
		return serviceInfo{}, outcome.FromError(err)
	}
	if !visible {
		return serviceInfo{}, outcome.Wait(hcplinkv1beta1.WaitingForEndpointServiceReason,
			"The endpoint service "+name+" is not visible to this cluster's AWS account yet: the operator allows the cluster's control-plane operator role on it; waiting", outcome.Jitter(notVisibleRequeue))
	}
	if byName {
		if zones, err = r.zoneIDsOf(ctx, s, zones); err != nil {
			return serviceInfo{}, outcome.FromError(err)
		}
	}
	sorted := append([]string{}, zones...)
	sort.Strings(sorted)
	return serviceInfo{name: name, zoneIDs: sorted}, outcome.Continue()
}

// zoneIDsOf maps this account's zone names to zone IDs, from a per-region
// cache: the mapping of an account never changes.
func (r *Reconciler) zoneIDsOf(ctx context.Context, s *scope, names []string) ([]string, error) {
	region := s.cr.Status.Region
	r.zonesMu.Lock()
	m := r.zoneIDs[region]
	r.zonesMu.Unlock()
	if m == nil {
		var err error
		if m, err = s.endpoints.ZoneIDsByName(ctx); err != nil {
			return nil, err
		}
		r.zonesMu.Lock()
		if r.zoneIDs == nil {
			r.zoneIDs = map[string]map[string]string{}
		}
		r.zoneIDs[region] = m
		r.zonesMu.Unlock()
	}
	ids := make([]string, 0, len(names))
	for _, n := range names {
		if id, ok := m[n]; ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// UnservedSubnets lists the subnets ("subnet (zone ID)") whose zone ID the
// service does not serve; nil when served is unknown.
func UnservedSubnets(subnets []ec2types.Subnet, served []string) []string {
	if served == nil {
		return nil
	}
	var out []string
	for _, sn := range subnets {
		if z := aws.ToString(sn.AvailabilityZoneId); !slices.Contains(served, z) {
			out = append(out, fmt.Sprintf("%s (%s)", aws.ToString(sn.SubnetId), z))
		}
	}
	return out
}

// ServedSubnets keeps the subnets in zones the service serves; all of them
// when served is unknown.
func ServedSubnets(subnets []ec2types.Subnet, served []string) []ec2types.Subnet {
	if served == nil {
		return subnets
	}
	var out []ec2types.Subnet
	for _, sn := range subnets {
		if slices.Contains(served, aws.ToString(sn.AvailabilityZoneId)) {
			out = append(out, sn)
		}
	}
	return out
}

// zoneRefusal reports whether err is the service refusing subnets outside
// the zones it serves (InvalidParameter while some subnets lie there): its
// load balancer does not balance across zones, which the customer account
// cannot see beforehand.
func zoneRefusal(err error, subnets []ec2types.Subnet, svc serviceInfo) bool {
	return awscloud.ErrorCode(err) == awscloud.CodeInvalidParameter && len(UnservedSubnets(subnets, svc.zoneIDs)) > 0
}

// usableSubnets are the subnets to give the endpoint: all of them, minus
// those in zones the service refused before (while it serves the same
// zones).
func (r *Reconciler) usableSubnets(s *scope, subnets []ec2types.Subnet, svc serviceInfo) []ec2types.Subnet {
	r.zonesMu.Lock()
	ref, ok := r.refused[s.cr.UID]
	r.zonesMu.Unlock()
	if !ok || ref.service != svc.name || ref.served != strings.Join(svc.zoneIDs, ",") {
		return subnets
	}
	return ServedSubnets(subnets, svc.zoneIDs)
}

// rememberRefusal notes that the service refused the unserved zones.
func (r *Reconciler) rememberRefusal(s *scope, svc serviceInfo) {
	r.zonesMu.Lock()
	defer r.zonesMu.Unlock()
	if r.refused == nil {
		r.refused = map[types.UID]refusal{}
	}
	r.refused[s.cr.UID] = refusal{service: svc.name, served: strings.Join(svc.zoneIDs, ",")}
}

// refusal: the zones a service refused, while it served these zones.
type refusal struct {
	service string
	served  string // the served zone IDs, joined, when the refusal was seen
}
