package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
)

// The names and tags hcplink gives Azure resources, in one place: both
// operators, devenv, the end-to-end tests and the CLI use these, so a
// resource made by one is found by the others.
//
// Azure tag names cannot contain "/" (nor < > % & \ ?), so the AWS keys
// (kubernetes.io/cluster/<infraID>) cannot be reused; the Azure keys
// below keep their meaning with "_" instead.

// Tag keys and values on Azure resources.
const (
	// ClusterTagKeyPrefix starts the tag marking a resource as the
	// cluster's: kubernetes.io_cluster_<infraID>=owned.
	ClusterTagKeyPrefix = "kubernetes.io_cluster_"
	// ClusterTagValueOwned is the cluster tag's value on resources hcplink
	// created and deletes.
	ClusterTagValueOwned = "owned"
	// PrivateLinkServiceTagKey names the AzurePrivateLinkService a resource
	// was made for.
	PrivateLinkServiceTagKey = "hcplink.io_private-link-service"
	// ManagementClusterTagKey names, on management-side resources, the
	// management cluster that owns them.
	ManagementClusterTagKey = "hcplink.io_management-cluster"
	// CreatedByTagKey marks a resource hcplink created (the Private DNS
	// zone): only such a zone is ever deleted.
	CreatedByTagKey = "hcplink.io_created-by"
	// CreatedByTagValue is CreatedByTagKey's value.
	CreatedByTagValue = "hcplink"
)

// Azure's name limits.
const (
	MaxPrivateLinkServiceNameLength = 80
	MaxPrivateEndpointNameLength    = 64
	MaxVNetLinkNameLength           = 80
	MaxSubnetNameLength             = 80
)

// Record names and TTLs in the cluster's private zone.
const (
	APIRecordName  = "api"
	AppsRecordName = "*.apps"
	// RecordTTL is the A records' TTL in seconds.
	RecordTTL = 300
	// MaxSOANegativeTTL is the longest negative-caching TTL (the SOA
	// minimum) in seconds hcplink leaves on the cluster's zone: a name looked
	// up before its record exists is retried within a minute. A new Azure
	// private zone's SOA minimum is 10 s (exported ARM templates of real
	// zones; cloudsim's privatedns_rules.go), so it is only ever lowered to
	// this, never raised.
	MaxSOANegativeTTL = 60
)

// RecordNames are the A records of the private zone, in the order written.
var RecordNames = []string{APIRecordName, AppsRecordName}

// ExternalNameTarget is the name the ExternalName Services of a Private
// cluster point at: the api record of its private zone.
func ExternalNameTarget(zone string) string { return APIRecordName + "." + zone }

// ClusterTagKey is the tag marking a resource as the cluster infraID's.
func ClusterTagKey(infraID string) string { return ClusterTagKeyPrefix + infraID }

// PrivateLinkServiceName is the PLS of the cluster: pls-<clusterID>, at
// most 80 characters.
func PrivateLinkServiceName(clusterID string) string {
	return boundName("pls-"+clusterID, MaxPrivateLinkServiceNameLength)
}

// NATSubnetName is the subnet the operator creates for the PLS's NAT
// addresses when the cluster names none.
func NATSubnetName(clusterID string) string {
	return boundName("pls-nat-"+clusterID, MaxSubnetNameLength)
}

// SharedNATSubnetPrefix starts the names of the NAT subnets shared by the
// Private Link Services of one management cluster.
const SharedNATSubnetPrefix = "hcplink-nat-"

// SharedNATSubnetName is the n-th (from 1) NAT subnet shared by the
// Private Link Services of the management cluster managementClusterID:
// hcplink-nat-<management cluster>-<n>. Subnets carry no tags in Azure
// (the subnet resource has no tags property), so the management cluster
// is in the name: two management clusters in one VNet never share, use
// or delete each other's.
func SharedNATSubnetName(managementClusterID string, n int) string {
	return SharedNATSubnetPrefix + nameToken(managementClusterID) + "-" + strconv.Itoa(n)
}

// SharedNATSubnetIndex is n when name is the n-th shared NAT subnet of the
// management cluster managementClusterID (0 when it is not one of its).
func SharedNATSubnetIndex(managementClusterID, name string) int {
	rest, ok := strings.CutPrefix(strings.ToLower(name), SharedNATSubnetPrefix+nameToken(managementClusterID)+"-")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return 0
	}
	return n
}

// nameToken is an ID as it may stand in a resource name: itself when
// short and made of lower-case letters, digits and dashes (a namespace
// UID, a DNS label), else a hash of it.
func nameToken(id string) string {
	id = strings.ToLower(id)
	ok := id != "" && len(id) <= 40
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			ok = false
		}
	}
	if ok && !strings.HasPrefix(id, "-") && !strings.HasSuffix(id, "-") {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])[:16]
}

// PrivateEndpointName is the Private Endpoint of the AzurePrivateLinkService
// crName of the cluster infraID: <cr>-pe made unique per cluster
// (<infraID>-<cr>-pe), because every cluster's CR has the same name and
// clusters can share a resource group. At most 64 characters.
func PrivateEndpointName(infraID, crName string) string {
	return boundName(infraID+"-"+crName+"-pe", MaxPrivateEndpointNameLength)
}

// VNetLinkName is the link of the cluster's private zone to the guest
// VNet, unique per cluster.
func VNetLinkName(infraID string) string {
	return boundName(infraID+"-link", MaxVNetLinkNameLength)
}

// PrivateDNSZoneName is the cluster's private zone:
// <HostedControlPlane name>.hypershift.local, in lower case. Workers resolve
// api.<name>.hypershift.local, so the name is fixed by the cluster's name:
// two clusters of one name cannot both have their zone in one resource
// group, and the second is told so (PrivateDNSZoneNameConflict).
func PrivateDNSZoneName(hcpName string) string {
	return strings.ToLower(hcpName) + ".hypershift.local"
}

// boundName returns name when it fits, else a prefix and a hash of the
// whole name so that two long names stay distinct.
func boundName(name string, limit int) string {
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:])[:10]
	return strings.TrimRight(name[:limit-len(suffix)], "-.") + suffix
}

// OwnershipTags are the tags that find a resource of an
// AzurePrivateLinkService again: the cluster tag and the CR's name.
func OwnershipTags(infraID, crName string) map[string]*string {
	return map[string]*string{
		ClusterTagKey(infraID):   to.Ptr(ClusterTagValueOwned),
		PrivateLinkServiceTagKey: to.Ptr(crName),
	}
}

// ManagementTags are the tags of management-side resources (the PLS): the
// ownership tags and the management cluster's ID.
func ManagementTags(infraID, crName, managementCluster string) map[string]*string {
	tags := OwnershipTags(infraID, crName)
	if managementCluster != "" {
		tags[ManagementClusterTagKey] = to.Ptr(managementCluster)
	}
	return tags
}

// ZoneTags are the private zone's tags: the ownership tags and the
// created-by tag that alone allows deleting it.
func ZoneTags(infraID, crName string) map[string]*string {
	tags := OwnershipTags(infraID, crName)
	tags[CreatedByTagKey] = to.Ptr(CreatedByTagValue)
	return tags
}

// OwnedBy reports whether tags carry the ownership pair of (infraID,
// crName).
func OwnedBy(tags map[string]*string, infraID, crName string) bool {
	return tagValue(tags, ClusterTagKey(infraID)) == ClusterTagValueOwned &&
		tagValue(tags, PrivateLinkServiceTagKey) == crName
}

// CreatedByHcplink reports whether tags mark a resource hcplink created.
func CreatedByHcplink(tags map[string]*string) bool {
	return tagValue(tags, CreatedByTagKey) == CreatedByTagValue
}

// TagsContain reports whether every tag of want is in have with the same
// value (tag drift: Azure keeps tags others added, so only ours count).
func TagsContain(have, want map[string]*string) bool {
	for k, v := range want {
		if tagValue(have, k) != deref(v) {
			return false
		}
	}
	return true
}

// tagValue reads a tag; Azure tag names are case-insensitive.
func tagValue(tags map[string]*string, key string) string {
	if v, ok := tags[key]; ok {
		return deref(v)
	}
	for k, v := range tags {
		if strings.EqualFold(k, key) {
			return deref(v)
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
