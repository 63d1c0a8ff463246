package awsprivatelink

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Ports the endpoint admits: the API server's own load balancer listens on
// 6443, the router on 443.
const (
	apiServerPort = 6443
	routerPort    = 443
)

// IngressRule is one ingress rule of the endpoint's security group.
type IngressRule = awscloud.IngressRule

// IngressPort is the port the endpoint of the CR admits.
func IngressPort(crName string) int32 {
	if crName == hcplinkv1beta1.KubeAPIServerPrivateServiceName {
		return apiServerPort
	}
	return routerPort
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

// reconcileSecurityGroup finds or creates the endpoint's security group and
// keeps its rules and tags.
func (r *Reconciler) reconcileSecurityGroup(ctx context.Context, s *scope) outcome.Outcome {
	if err := r.syncSecurityGroup(ctx, s); err != nil {
		return outcome.FromError(fmt.Errorf("security group: %w", err))
	}
	return outcome.Continue()
}

func (r *Reconciler) syncSecurityGroup(ctx context.Context, s *scope) error {
	name := awscloud.SecurityGroupName(s.infraID(), s.cr.Name)
	sg, err := s.groups.Find(ctx, s.cr.Status.SecurityGroupID, s.ownFilters())
	if err != nil {
		return err
	}
	if sg == nil {
		// A group of that name without our tags fails as invalid input
		// (CodeDuplicateGroup): it is not ours to take.
		sg, err = s.groups.Create(ctx, s.vpcID(), name, "hcplink: VPC endpoint "+s.cr.Name+" of cluster "+s.infraID(), s.desiredTags(map[string]string{"Name": name}))
		if err != nil {
			return err
		}
		ctrl.LoggerFrom(ctx).Info("Created security group", "securityGroup", aws.ToString(sg.GroupId), "name", name)
		r.Events.Created(s.cr, "security group", aws.ToString(sg.GroupId))
	}
	id := aws.ToString(sg.GroupId)
	if s.cr.Status.SecurityGroupID != id {
		s.cr.Status.SecurityGroupID = id
		if err := s.persist(ctx); err != nil {
			return err
		}
	}
	desired := DesiredIngress(IngressPort(s.cr.Name), s.hcp.Spec.Networking.MachineNetwork)
	authorized, revoked, err := s.groups.SyncIngress(ctx, id, desired, awscloud.ActualIngress(sg.IpPermissions))
	if err != nil {
		return err
	}
	if len(authorized)+len(revoked) > 0 {
		ctrl.LoggerFrom(ctx).Info("Changed security group rules", "securityGroup", id, "authorized", authorized, "revoked", revoked)
	}
	set, remove := awscloud.TagDiff(s.desiredTags(map[string]string{"Name": name}), awscloud.TagMap(sg.Tags),
		func(k string) bool { return k == "Name" || s.managedTag(k) })
	return awscloud.UpdateTags(ctx, r.EC2, s.cr.Status.Region, id, set, remove)
}
