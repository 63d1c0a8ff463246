package awsprivatelink

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/controlplane/routers"
)

// Ports the endpoint admits: the API server's own load balancer listens on
// 6443, the router on 443.
const (
	apiServerPort = 6443
	routerPort    = 443
)

// SecurityGroupName is the name of the endpoint's security group.
func SecurityGroupName(infraID, crName string) string {
	return infraID + "-vpce-" + crName
}

// IngressPort is the port the endpoint of the CR admits.
func IngressPort(crName string) int32 {
	if crName == routers.KubeAPIServerPrivateServiceName {
		return apiServerPort
	}
	return routerPort
}

// IngressRule is one ingress rule: TCP from a CIDR to a port range.
type IngressRule struct {
	Protocol string
	From, To int32
	CIDR     string
}

// DesiredIngress is tcp port from every machine-network CIDR.
func DesiredIngress(port int32, machineNetwork []hcplinkv1beta1.MachineNetworkEntry) []IngressRule {
	seen := map[string]bool{}
	var out []IngressRule
	for _, m := range machineNetwork {
		if m.CIDR == "" || seen[m.CIDR] {
			continue
		}
		seen[m.CIDR] = true
		out = append(out, IngressRule{Protocol: "tcp", From: port, To: port, CIDR: m.CIDR})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CIDR < out[j].CIDR })
	return out
}

// ActualIngress flattens a group's IPv4 ingress permissions into rules.
func ActualIngress(perms []ec2types.IpPermission) []IngressRule {
	var out []IngressRule
	for _, p := range perms {
		for _, rng := range p.IpRanges {
			out = append(out, IngressRule{Protocol: aws.ToString(p.IpProtocol), From: aws.ToInt32(p.FromPort), To: aws.ToInt32(p.ToPort), CIDR: aws.ToString(rng.CidrIp)})
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
		out = append(out, ec2types.IpPermission{IpProtocol: aws.String(r.Protocol), FromPort: aws.Int32(r.From), ToPort: aws.Int32(r.To),
			IpRanges: []ec2types.IpRange{{CidrIp: aws.String(r.CIDR)}}})
	}
	return out
}

// reconcileSecurityGroup finds or creates the endpoint's security group and
// keeps its rules and tags.
func (r *Reconciler) reconcileSecurityGroup(ctx context.Context, s *scope) error {
	sg, err := r.findSecurityGroup(ctx, s)
	if err != nil {
		return err
	}
	if sg == nil {
		if sg, err = r.createSecurityGroup(ctx, s); err != nil {
			return err
		}
	}
	id := aws.ToString(sg.GroupId)
	if s.cr.Status.SecurityGroupID != id {
		s.cr.Status.SecurityGroupID = id
		if err := r.persist(ctx, s); err != nil {
			return err
		}
	}
	authorize, revoke := RuleDiff(DesiredIngress(IngressPort(s.cr.Name), s.hcp.Spec.Networking.MachineNetwork), ActualIngress(sg.IpPermissions))
	if len(revoke) > 0 {
		if _, err := r.EC2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: permissions(revoke)}, s.ec2Region); err != nil && !awscloud.IsNotFound(err) {
			return fmt.Errorf("revoking stale rules of %s: %w", id, err)
		}
		ctrl.LoggerFrom(ctx).Info("Revoked stale security group rules", "securityGroup", id, "rules", revoke)
	}
	if len(authorize) > 0 {
		if _, err := r.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: permissions(authorize)}, s.ec2Region); err != nil && awscloud.ErrorCode(err) != "InvalidPermission.Duplicate" {
			return fmt.Errorf("authorizing rules on %s: %w", id, err)
		}
		ctrl.LoggerFrom(ctx).Info("Authorized security group rules", "securityGroup", id, "rules", authorize)
	}
	desired := s.desiredTags()
	desired["Name"] = SecurityGroupName(s.infraID(), s.cr.Name)
	set, remove := awscloud.TagDiff(desired, awscloud.TagMap(sg.Tags), func(k string) bool { return k == "Name" || s.managedTag(k) })
	if len(set)+len(remove) > 0 {
		actual := awscloud.TagMap(sg.Tags)
		// syncTags with the Name tag as part of the desired set.
		if len(set) > 0 {
			if _, err := r.EC2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{id}, Tags: awscloud.EC2Tags(set)}, s.ec2Region); err != nil {
				return fmt.Errorf("tagging %s: %w", id, err)
			}
		}
		if len(remove) > 0 {
			tags := make([]ec2types.Tag, 0, len(remove))
			for _, k := range remove {
				tags = append(tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(actual[k])})
			}
			if _, err := r.EC2.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{id}, Tags: tags}, s.ec2Region); err != nil {
				return fmt.Errorf("removing tags from %s: %w", id, err)
			}
		}
	}
	return nil
}

// findSecurityGroup finds the group by the ID in status, else by its tags.
func (r *Reconciler) findSecurityGroup(ctx context.Context, s *scope) (*ec2types.SecurityGroup, error) {
	if id := s.cr.Status.SecurityGroupID; id != "" {
		out, err := r.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{id}}, s.ec2Region)
		if err == nil && len(out.SecurityGroups) == 1 {
			return &out.SecurityGroups[0], nil
		}
		if err != nil && !awscloud.IsNotFound(err) {
			return nil, fmt.Errorf("describing security group %s: %w", id, err)
		}
		s.cr.Status.SecurityGroupID = ""
	}
	groups, err := r.listSecurityGroups(ctx, s, ownFilters(s))
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	return &groups[0], nil
}

func (r *Reconciler) listSecurityGroups(ctx context.Context, s *scope, filters []ec2types.Filter) ([]ec2types.SecurityGroup, error) {
	var out []ec2types.SecurityGroup
	p := ec2.NewDescribeSecurityGroupsPaginator(r.EC2, &ec2.DescribeSecurityGroupsInput{Filters: filters})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, s.ec2Region)
		if err != nil {
			return nil, fmt.Errorf("listing security groups by tag: %w", err)
		}
		out = append(out, page.SecurityGroups...)
	}
	sort.Slice(out, func(i, j int) bool { return aws.ToString(out[i].GroupId) < aws.ToString(out[j].GroupId) })
	return out, nil
}

func (r *Reconciler) createSecurityGroup(ctx context.Context, s *scope) (*ec2types.SecurityGroup, error) {
	name := SecurityGroupName(s.infraID(), s.cr.Name)
	tags := s.desiredTags()
	tags["Name"] = name
	out, err := r.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName:         aws.String(name),
		Description:       aws.String("hcplink: VPC endpoint " + s.cr.Name + " of cluster " + s.infraID()),
		VpcId:             aws.String(s.vpcID()),
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeSecurityGroup, tags),
	}, s.ec2Region)
	if awscloud.ErrorCode(err) == "InvalidGroup.Duplicate" {
		// A group of that name exists in the VPC without our tags (a
		// restart between create and tag cannot happen: tags come with the
		// create). Not ours: say so.
		return nil, fmt.Errorf("a security group named %s already exists in VPC %s but is not tagged as this cluster's: %w", name, s.vpcID(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("creating security group %s: %w", name, err)
	}
	id := aws.ToString(out.GroupId)
	ctrl.LoggerFrom(ctx).Info("Created security group", "securityGroup", id, "name", name)
	s.cr.Status.SecurityGroupID = id
	if err := r.persist(ctx, s); err != nil {
		return nil, err
	}
	return &ec2types.SecurityGroup{GroupId: aws.String(id), GroupName: aws.String(name), Tags: awscloud.EC2Tags(tags)}, nil
}
