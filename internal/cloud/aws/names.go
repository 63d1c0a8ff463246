package aws

import (
	"sort"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// The names and tags hcplink gives AWS resources, in one place: both
// operators, devenv, the end-to-end tests and the CLI use these, so a
// resource made by one is found by the others.
//
// Ownership is a stable pair of tags, never the user's tag set:
// kubernetes.io/cluster/<infraID>=owned and
// hcplink.io/endpoint-service=<AWSEndpointService name>. Management-side
// resources also carry hcplink.io/management-cluster=<id>.

// SecurityGroupName is the name of the security group of the VPC endpoint
// of the AWSEndpointService crName.
func SecurityGroupName(infraID, crName string) string {
	return infraID + "-vpce-" + crName
}

// PrivateZoneName is the private hosted zone that holds the cluster's
// records: <HostedControlPlane name>.hypershift.local (dots in the name
// kept).
func PrivateZoneName(hcpName string) string {
	return hcpName + ".hypershift.local"
}

// EndpointRecordNames are the names (in the zone, without trailing dot) the
// CR's endpoint serves: kube-apiserver-private → api; private-router →
// *.apps, plus api when the API server is published by Route.
func EndpointRecordNames(crName string, hcp *hcplinkv1beta1.HostedControlPlane) []string {
	zone := PrivateZoneName(hcp.Name)
	switch crName {
	case hcplinkv1beta1.KubeAPIServerPrivateServiceName:
		return []string{"api." + zone}
	case hcplinkv1beta1.PrivateRouterServiceName:
		names := []string{"*.apps." + zone}
		if s, _ := hcplinkv1beta1.PublishingStrategyFor(hcp.Spec.Services, hcplinkv1beta1.APIServer); s.Type == hcplinkv1beta1.RoutePublishing {
			names = append(names, "api."+zone)
		}
		sort.Strings(names)
		return names
	}
	return nil
}

// OwnershipTags are the two tags that find a resource of an
// AWSEndpointService again.
func OwnershipTags(infraID, crName string) map[string]string {
	return map[string]string{
		hcplinkv1beta1.ClusterTagKey(infraID): hcplinkv1beta1.ClusterTagValueOwned,
		hcplinkv1beta1.EndpointServiceTagKey:  crName,
	}
}

// ResourceTags are a resource's tags: the cluster's resourceTags, then the
// ownership tags (which win on a clash), then extra (Name, the management
// cluster).
func ResourceTags(resourceTags []hcplinkv1beta1.AWSResourceTag, infraID, crName string, extra map[string]string) map[string]string {
	tags := map[string]string{}
	for _, t := range resourceTags {
		tags[t.Key] = t.Value
	}
	for k, v := range OwnershipTags(infraID, crName) {
		tags[k] = v
	}
	for k, v := range extra {
		tags[k] = v
	}
	return tags
}

// OwnershipFilters select the resources tagged with the ownership pair.
func OwnershipFilters(infraID, crName string) []ec2types.Filter {
	return []ec2types.Filter{
		TagFilter(hcplinkv1beta1.ClusterTagKey(infraID), hcplinkv1beta1.ClusterTagValueOwned),
		TagFilter(hcplinkv1beta1.EndpointServiceTagKey, crName),
	}
}

// ClusterFilters select every resource hcplink made for the cluster
// infraID (any AWSEndpointService).
func ClusterFilters(infraID string) []ec2types.Filter {
	return []ec2types.Filter{
		TagFilter(hcplinkv1beta1.ClusterTagKey(infraID), hcplinkv1beta1.ClusterTagValueOwned),
		{Name: awssdk.String("tag-key"), Values: []string{hcplinkv1beta1.EndpointServiceTagKey}},
	}
}

// TagFilter selects resources whose tag key has value.
func TagFilter(key, value string) ec2types.Filter {
	return ec2types.Filter{Name: awssdk.String("tag:" + key), Values: []string{value}}
}

// Filter is an EC2 filter on one value.
func Filter(name, value string) ec2types.Filter {
	return ec2types.Filter{Name: awssdk.String(name), Values: []string{value}}
}

// Owner is who a resource is tagged for.
type Owner struct {
	// InfraID is the cluster's infrastructure ID.
	InfraID string
	// Name is the AWSEndpointService's name.
	Name string
	// ManagementCluster is the management cluster's ID ("" when the
	// resource carries none: made before the tag existed, or customer side).
	ManagementCluster string
}

// TaggedOwner reads the owner from a resource's tags; ok is false when the
// resource does not carry the ownership pair.
func TaggedOwner(tags map[string]string) (o Owner, ok bool) {
	name := tags[hcplinkv1beta1.EndpointServiceTagKey]
	if name == "" {
		return Owner{}, false
	}
	for k, v := range tags {
		if strings.HasPrefix(k, hcplinkv1beta1.ClusterTagKeyPrefix) && v == hcplinkv1beta1.ClusterTagValueOwned {
			return Owner{InfraID: strings.TrimPrefix(k, hcplinkv1beta1.ClusterTagKeyPrefix), Name: name,
				ManagementCluster: tags[hcplinkv1beta1.ManagementClusterTagKey]}, true
		}
	}
	return Owner{}, false
}

// OwnedBy reports whether tags carry the ownership pair of (infraID,
// crName).
func OwnedBy(tags map[string]string, infraID, crName string) bool {
	return tags[hcplinkv1beta1.ClusterTagKey(infraID)] == hcplinkv1beta1.ClusterTagValueOwned &&
		tags[hcplinkv1beta1.EndpointServiceTagKey] == crName
}
