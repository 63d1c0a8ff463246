package aws

import (
	"context"
	"slices"
	"sort"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// maxFilterValues is how many values one EC2 filter takes.
const maxFilterValues = 200

// VPCEndpoints is the provider of interface VPC endpoints, the subnets they
// use and the endpoint services they reach, in one account and region (the
// customer's). Every error it returns is classified (Wrap).
type VPCEndpoints struct {
	EC2 EC2API
	// Region overrides the client's region per call; "" keeps it.
	Region string
}

func (p VPCEndpoints) region(o *ec2.Options) {
	if p.Region != "" {
		o.Region = p.Region
	}
}

// EndpointStateIs compares an endpoint state case-insensitively: the API
// answers lower camel case ("pendingAcceptance"), the SDK's constants are
// upper.
func EndpointStateIs(state ec2types.State, want string) bool {
	return strings.EqualFold(string(state), want)
}

// EndpointGone reports whether the endpoint is deleting or deleted and
// will not serve again.
func EndpointGone(state ec2types.State) bool {
	return EndpointStateIs(state, "deleting") || EndpointStateIs(state, "deleted")
}

// EndpointDNSName is the endpoint's regional DNS name (no trailing dot),
// "" while it has none.
func EndpointDNSName(ep *ec2types.VpcEndpoint) string {
	if ep == nil || len(ep.DnsEntries) == 0 {
		return ""
	}
	return strings.TrimSuffix(awssdk.ToString(ep.DnsEntries[0].DnsName), ".")
}

// EndpointDNSNames are all the endpoint's DNS names (regional and zonal),
// lower case, without trailing dots.
func EndpointDNSNames(ep ec2types.VpcEndpoint) []string {
	out := make([]string, 0, len(ep.DnsEntries))
	for _, d := range ep.DnsEntries {
		out = append(out, strings.ToLower(strings.TrimSuffix(awssdk.ToString(d.DnsName), ".")))
	}
	return out
}

// EndpointIDOfDNSName returns the endpoint ID a VPC endpoint DNS name
// starts with ("vpce-0abc-xyz.vpce-svc-….vpce.amazonaws.com" →
// "vpce-0abc"), "" when the name does not have that shape.
func EndpointIDOfDNSName(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	label, rest, ok := strings.Cut(name, ".")
	if !ok || !strings.HasPrefix(label, "vpce-") || !strings.HasSuffix(rest, ".vpce.amazonaws.com") {
		return ""
	}
	parts := strings.Split(label, "-")
	if len(parts) < 3 || parts[1] == "" {
		return ""
	}
	return parts[0] + "-" + parts[1]
}

// Get returns the endpoint id, nil when it does not exist.
func (p VPCEndpoints) Get(ctx context.Context, id string) (*ec2types.VpcEndpoint, error) {
	out, err := p.EC2.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}}, p.region)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("describing VPC endpoint "+id, err)
	}
	for i := range out.VpcEndpoints {
		if awssdk.ToString(out.VpcEndpoints[i].VpcEndpointId) == id {
			return &out.VpcEndpoints[i], nil
		}
	}
	return nil, nil
}

// List returns the endpoints matching filters, oldest first.
func (p VPCEndpoints) List(ctx context.Context, filters []ec2types.Filter) ([]ec2types.VpcEndpoint, error) {
	var out []ec2types.VpcEndpoint
	pages := ec2.NewDescribeVpcEndpointsPaginator(p.EC2, &ec2.DescribeVpcEndpointsInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, p.region)
		if err != nil {
			return nil, Wrap("listing VPC endpoints by tag", err)
		}
		out = append(out, page.VpcEndpoints...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return awssdk.ToTime(out[i].CreationTimestamp).Before(awssdk.ToTime(out[j].CreationTimestamp))
	})
	return out, nil
}

// EndpointSpec is what an interface endpoint is created with.
type EndpointSpec struct {
	VPCID, ServiceName string
	SubnetIDs          []string
	SecurityGroupIDs   []string
	// ClientToken makes a retried create (after a restart) the same one.
	ClientToken string
	Tags        map[string]string
}

// Create creates an interface endpoint without private DNS (hcplink writes
// its own records).
func (p VPCEndpoints) Create(ctx context.Context, spec EndpointSpec) (*ec2types.VpcEndpoint, error) {
	out, err := p.EC2.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{
		VpcEndpointType:   ec2types.VpcEndpointTypeInterface,
		VpcId:             awssdk.String(spec.VPCID),
		ServiceName:       awssdk.String(spec.ServiceName),
		SubnetIds:         spec.SubnetIDs,
		SecurityGroupIds:  spec.SecurityGroupIDs,
		PrivateDnsEnabled: awssdk.Bool(false),
		ClientToken:       awssdk.String(spec.ClientToken),
		TagSpecifications: TagSpecifications(ec2types.ResourceTypeVpcEndpoint, spec.Tags),
	}, p.region)
	if err != nil {
		return nil, Wrap("creating VPC endpoint to "+spec.ServiceName, err)
	}
	return out.VpcEndpoint, nil
}

// Modify adds and removes subnets and adds security groups.
func (p VPCEndpoints) Modify(ctx context.Context, id string, addSubnets, removeSubnets, addGroups []string) error {
	_, err := p.EC2.ModifyVpcEndpoint(ctx, &ec2.ModifyVpcEndpointInput{
		VpcEndpointId: awssdk.String(id), AddSubnetIds: addSubnets, RemoveSubnetIds: removeSubnets, AddSecurityGroupIds: addGroups,
	}, p.region)
	return Wrap("modifying VPC endpoint "+id, err)
}

// Delete deletes endpoints; those already gone are not an error.
func (p VPCEndpoints) Delete(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	out, err := p.EC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: ids}, p.region)
	what := "deleting VPC endpoints " + strings.Join(ids, ", ")
	if err != nil {
		if IsNotFound(err) {
			return nil
		}
		return Wrap(what, err)
	}
	if err := unsuccessful(what, out.Unsuccessful); err != nil && !IsNotFound(err) {
		return Wrap(what, err)
	}
	return nil
}

// Subnets describes the subnets ids by a subnet-id filter, which (unlike
// naming them) does not fail the whole call when one was deleted: found
// are the subnets that exist, missing the IDs that do not, sorted.
func (p VPCEndpoints) Subnets(ctx context.Context, ids []string) (found []ec2types.Subnet, missing []string, err error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	seen := map[string]bool{}
	for chunk := range slices.Chunk(ids, maxFilterValues) {
		pages := ec2.NewDescribeSubnetsPaginator(p.EC2, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{{Name: awssdk.String("subnet-id"), Values: chunk}}})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx, p.region)
			if err != nil {
				return nil, nil, Wrap("describing subnets "+strings.Join(chunk, ", "), err)
			}
			for _, sn := range page.Subnets {
				seen[awssdk.ToString(sn.SubnetId)] = true
				found = append(found, sn)
			}
		}
	}
	for _, id := range ids {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	return found, missing, nil
}

// ServiceZones describes an endpoint service as this account sees it:
// visible is false when the account may not see it (not allowed yet, or
// gone); zones are its availability-zone IDs when AWS gives them, else its
// zone names (this account's aliases) with byName true.
func (p VPCEndpoints) ServiceZones(ctx context.Context, serviceName string) (zones []string, byName, visible bool, err error) {
	out, err := p.EC2.DescribeVpcEndpointServices(ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{serviceName}}, p.region)
	if ErrorCode(err) == CodeInvalidServiceName {
		return nil, false, false, nil
	}
	if err != nil {
		return nil, false, false, Wrap("describing endpoint service "+serviceName, err)
	}
	for _, d := range out.ServiceDetails {
		if awssdk.ToString(d.ServiceName) != serviceName {
			continue
		}
		if len(d.AvailabilityZoneIds) > 0 {
			return d.AvailabilityZoneIds, false, true, nil
		}
		return d.AvailabilityZones, true, true, nil
	}
	return nil, false, false, nil
}

// ZoneIDsByName maps this account's zone names to zone IDs in the region.
func (p VPCEndpoints) ZoneIDsByName(ctx context.Context) (map[string]string, error) {
	out, err := p.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{}, p.region)
	if err != nil {
		return nil, Wrap("describing availability zones", err)
	}
	m := map[string]string{}
	for _, z := range out.AvailabilityZones {
		m[awssdk.ToString(z.ZoneName)] = awssdk.ToString(z.ZoneId)
	}
	return m, nil
}
