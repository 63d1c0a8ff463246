package aws

import (
	"context"
	"sort"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// SecurityGroups is the provider of the security groups of VPC endpoints
// in one account and region (the customer's). Every error it returns is
// classified (Wrap).
type SecurityGroups struct {
	EC2 EC2API
	// Region overrides the client's region per call; "" keeps it.
	Region string
}

func (p SecurityGroups) region(o *ec2.Options) {
	if p.Region != "" {
		o.Region = p.Region
	}
}

// IngressRule is one ingress rule: TCP from a CIDR to a port range.
type IngressRule struct {
	Protocol string
	From, To int32
	CIDR     string
}

// ActualIngress flattens a group's IPv4 ingress permissions into rules.
func ActualIngress(perms []ec2types.IpPermission) []IngressRule {
	var out []IngressRule
	for _, p := range perms {
		for _, rng := range p.IpRanges {
			out = append(out, IngressRule{Protocol: awssdk.ToString(p.IpProtocol), From: awssdk.ToInt32(p.FromPort), To: awssdk.ToInt32(p.ToPort), CIDR: awssdk.ToString(rng.CidrIp)})
		}
	}
	return out
}

// RuleDiff returns the rules to authorize and to revoke.
func RuleDiff(desired, actual []IngressRule) (authorize, revoke []IngressRule) {
	have := map[IngressRule]bool{}
	for _, r := range actual {
		have[r] = true
	}
	want := map[IngressRule]bool{}
	for _, r := range desired {
		want[r] = true
		if !have[r] {
			authorize = append(authorize, r)
		}
	}
	for _, r := range actual {
		if !want[r] {
			revoke = append(revoke, r)
		}
	}
	return authorize, revoke
}

func permissions(rules []IngressRule) []ec2types.IpPermission {
	out := make([]ec2types.IpPermission, 0, len(rules))
	for _, r := range rules {
		out = append(out, ec2types.IpPermission{IpProtocol: awssdk.String(r.Protocol), FromPort: awssdk.Int32(r.From), ToPort: awssdk.Int32(r.To),
			IpRanges: []ec2types.IpRange{{CidrIp: awssdk.String(r.CIDR)}}})
	}
	return out
}

// Get returns the group id, nil when it does not exist.
func (p SecurityGroups) Get(ctx context.Context, id string) (*ec2types.SecurityGroup, error) {
	out, err := p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{id}}, p.region)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("describing security group "+id, err)
	}
	if len(out.SecurityGroups) != 1 {
		return nil, nil
	}
	return &out.SecurityGroups[0], nil
}

// List returns the groups matching filters, sorted by ID.
func (p SecurityGroups) List(ctx context.Context, filters []ec2types.Filter) ([]ec2types.SecurityGroup, error) {
	var out []ec2types.SecurityGroup
	pages := ec2.NewDescribeSecurityGroupsPaginator(p.EC2, &ec2.DescribeSecurityGroupsInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, p.region)
		if err != nil {
			return nil, Wrap("listing security groups by tag", err)
		}
		out = append(out, page.SecurityGroups...)
	}
	sort.Slice(out, func(i, j int) bool { return awssdk.ToString(out[i].GroupId) < awssdk.ToString(out[j].GroupId) })
	return out, nil
}

// Find returns the group id when it exists, else the first group matching
// filters (the ownership tags), nil when there is none.
func (p SecurityGroups) Find(ctx context.Context, id string, filters []ec2types.Filter) (*ec2types.SecurityGroup, error) {
	if id != "" {
		sg, err := p.Get(ctx, id)
		if sg != nil || err != nil {
			return sg, err
		}
	}
	groups, err := p.List(ctx, filters)
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	return &groups[0], nil
}

// Create creates a group in vpcID with its tags (the tags come with the
// create, so a group is never left untagged) and returns it as created.
// A group of that name already in the VPC fails with CodeDuplicateGroup
// (invalid input: it is not ours).
func (p SecurityGroups) Create(ctx context.Context, vpcID, name, description string, tags map[string]string) (*ec2types.SecurityGroup, error) {
	out, err := p.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName:         awssdk.String(name),
		Description:       awssdk.String(description),
		VpcId:             awssdk.String(vpcID),
		TagSpecifications: TagSpecifications(ec2types.ResourceTypeSecurityGroup, tags),
	}, p.region)
	if err != nil {
		return nil, Wrap("creating security group "+name+" in VPC "+vpcID, err)
	}
	return &ec2types.SecurityGroup{GroupId: out.GroupId, GroupName: awssdk.String(name), VpcId: awssdk.String(vpcID), Tags: EC2Tags(tags)}, nil
}

// SyncIngress makes the group's ingress rules (actual) the desired ones:
// stale rules are revoked, missing ones authorized. It reports what it
// changed; nothing is called when they match.
func (p SecurityGroups) SyncIngress(ctx context.Context, id string, desired, actual []IngressRule) (authorized, revoked []IngressRule, err error) {
	authorize, revoke := RuleDiff(desired, actual)
	if len(revoke) > 0 {
		_, err := p.EC2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: awssdk.String(id), IpPermissions: permissions(revoke)}, p.region)
		if err != nil && !IsNotFound(err) {
			return nil, nil, Wrap("revoking stale rules of security group "+id, err)
		}
	}
	if len(authorize) > 0 {
		_, err := p.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: awssdk.String(id), IpPermissions: permissions(authorize)}, p.region)
		if err != nil && ErrorCode(err) != CodeDuplicatePermission {
			return nil, nil, Wrap("authorizing rules on security group "+id, err)
		}
	}
	return authorize, revoke, nil
}

// Delete revokes the group's ingress rules and deletes it; a group already
// gone is not an error. While something still uses it (an endpoint's
// network interfaces) the error is of the dependency class.
func (p SecurityGroups) Delete(ctx context.Context, sg ec2types.SecurityGroup) error {
	id := awssdk.ToString(sg.GroupId)
	if len(sg.IpPermissions) > 0 {
		_, err := p.EC2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: awssdk.String(id), IpPermissions: sg.IpPermissions}, p.region)
		if err != nil && !IsNotFound(err) {
			return Wrap("revoking the rules of security group "+id, err)
		}
	}
	_, err := p.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: awssdk.String(id)}, p.region)
	if err != nil && !IsNotFound(err) {
		return Wrap("deleting security group "+id, err)
	}
	return nil
}

// UpdateTags sets and removes tags on one EC2 resource: set keys get their
// values, remove keys go. Nothing is called when both are empty.
func UpdateTags(ctx context.Context, api EC2API, region, resourceID string, set map[string]string, remove []string) error {
	opt := func(o *ec2.Options) {
		if region != "" {
			o.Region = region
		}
	}
	if len(set) > 0 {
		if _, err := api.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{resourceID}, Tags: EC2Tags(set)}, opt); err != nil {
			return Wrap("tagging "+resourceID, err)
		}
	}
	if len(remove) > 0 {
		tags := make([]ec2types.Tag, 0, len(remove))
		for _, k := range remove {
			tags = append(tags, ec2types.Tag{Key: awssdk.String(k)})
		}
		if _, err := api.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{resourceID}, Tags: tags}, opt); err != nil {
			return Wrap("removing tags from "+resourceID, err)
		}
	}
	return nil
}
