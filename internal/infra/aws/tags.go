package aws

import (
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Tags of the CLI's resources. The cluster tag is the fleet-wide ownership
// tag every hcplink component uses (awscloud's scheme); the infra-id and
// cluster-name tags say which `create infra` made a resource, so that
// destroy can tell the CLI's resources from those the control-plane
// operator made for the same cluster (both are removed).
const (
	InfraIDTagKey     = "hcplink.io/infra-id"
	ClusterNameTagKey = "hcplink.io/cluster-name"
	nameTagKey        = "Name"
	internalELBTagKey = "kubernetes.io/role/internal-elb"
	publicELBTagKey   = "kubernetes.io/role/elb"
)

// tags are the tags of the resource called name: the additional tags, then
// ownership and Name (which win on a clash), then extra.
func (o Options) tags(name string, extra map[string]string) map[string]string {
	t := map[string]string{}
	for k, v := range o.AdditionalTags {
		t[k] = v
	}
	t[hcplinkv1beta1.ClusterTagKey(o.InfraID)] = hcplinkv1beta1.ClusterTagValueOwned
	t[InfraIDTagKey] = o.InfraID
	t[ClusterNameTagKey] = o.Name
	t[nameTagKey] = name
	for k, v := range extra {
		t[k] = v
	}
	return t
}

// ownedFilter selects every resource tagged for the infra ID, the CLI's and
// the control-plane operator's alike.
func ownedFilter(infraID string) ec2types.Filter {
	return awscloud.TagFilter(hcplinkv1beta1.ClusterTagKey(infraID), hcplinkv1beta1.ClusterTagValueOwned)
}

// namedFilters select the CLI's resource called name.
func (o Options) namedFilters(name string) []ec2types.Filter {
	return []ec2types.Filter{ownedFilter(o.InfraID), awscloud.TagFilter(InfraIDTagKey, o.InfraID), awscloud.TagFilter(nameTagKey, name)}
}

// ownsZone reports whether a hosted zone's tags say it is this infra ID's.
func (o Options) ownsZone(tags map[string]string) bool {
	return tags[hcplinkv1beta1.ClusterTagKey(o.InfraID)] == hcplinkv1beta1.ClusterTagValueOwned && tags[InfraIDTagKey] == o.InfraID
}

// Resource names.
func (o Options) vpcName() string                   { return o.InfraID + "-vpc" }
func (o Options) dhcpName() string                  { return o.InfraID + "-dhcp" }
func (o Options) igwName() string                   { return o.InfraID + "-igw" }
func (o Options) publicSubnetName(z string) string  { return o.InfraID + "-public-" + z }
func (o Options) privateSubnetName(z string) string { return o.InfraID + "-private-" + z }
func (o Options) eipName(z string) string           { return o.InfraID + "-eip-" + z }
func (o Options) natName(z string) string           { return o.InfraID + "-nat-" + z }
func (o Options) publicTableName() string           { return o.InfraID + "-public" }
func (o Options) privateTableName(z string) string  { return o.InfraID + "-private-" + z }
func (o Options) s3EndpointName() string            { return o.InfraID + "-s3" }

// zone names.
func (o Options) clusterZoneName() string { return o.Name + "." + o.BaseDomain }
func (o Options) localZoneName() string   { return awscloud.PrivateZoneName(o.Name) }
