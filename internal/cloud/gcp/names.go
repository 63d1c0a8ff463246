package gcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hcplink/hcplink/internal/cloud"
)

// The names, labels and markers hcplink gives Google Cloud resources, in one
// place: both operators, devenv, the end-to-end tests and the CLI use these,
// so a resource made by one is found by the others.
//
// Every management-side name carries a short hash of the management
// cluster's ID, so that two management clusters sharing one project never
// make, find or delete each other's resources (field problem 27). Service
// attachments and subnetworks take no labels, so their ownership is a
// marker in their description; addresses, forwarding rules and managed
// zones carry labels.

// Compute Engine resource names are RFC 1035 labels of at most 63
// characters: a lower-case letter, then lower-case letters, digits and
// dashes, not ending with a dash
// (https://cloud.google.com/compute/docs/naming-resources).
const MaxNameLength = 63

var namePattern = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// ValidName says why name is not a valid Compute Engine or Cloud DNS
// managed zone name, or returns nil.
func ValidName(name string) error {
	if len(name) > MaxNameLength {
		return fmt.Errorf("%q is %d characters long; Google Cloud names are at most %d", name, len(name), MaxNameLength)
	}
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%q is not a valid Google Cloud name: a lower-case letter, then lower-case letters, digits or dashes, not ending with a dash", name)
	}
	return nil
}

// Label keys and values (https://cloud.google.com/compute/docs/labeling-resources):
// at most 63 characters of lower-case letters, digits, "_" and "-"; a key
// starts with a letter. The AWS and Kubernetes keys (kubernetes.io/cluster/…)
// keep their meaning with "-" for "/" and ".".
const (
	// ClusterLabelKeyPrefix starts the label marking a resource as the
	// cluster's: kubernetes-io-cluster-<infraID>=owned.
	ClusterLabelKeyPrefix = "kubernetes-io-cluster-"
	// ClusterLabelValueOwned is the cluster label's value on resources
	// hcplink created and deletes.
	ClusterLabelValueOwned = "owned"
	// PrivateServiceConnectLabelKey names the GCPPrivateServiceConnect a
	// resource was made for.
	PrivateServiceConnectLabelKey = "hcplink-io-private-service-connect"
	// ManagementClusterLabelKey names the management cluster of a cluster's
	// customer-side resources (what a sweeper of that management cluster
	// may consider).
	ManagementClusterLabelKey = "hcplink-io-management-cluster"
	// CreatedByLabelKey marks a resource hcplink created: only such a zone
	// is ever deleted.
	CreatedByLabelKey = "hcplink-io-created-by"
	// CreatedByLabelValue is CreatedByLabelKey's value.
	CreatedByLabelValue = "hcplink"
)

var labelPattern = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)

// ValidLabels says why labels would be refused by Google Cloud, or returns nil.
func ValidLabels(labels map[string]string) error {
	for _, k := range sortedLabelKeys(labels) {
		if k == "" || k[0] < 'a' || k[0] > 'z' || !labelPattern.MatchString(k) {
			return fmt.Errorf("label key %q: a lower-case letter, then at most 62 lower-case letters, digits, '_' or '-'", k)
		}
		if !labelPattern.MatchString(labels[k]) {
			return fmt.Errorf("label %s=%q: the value is at most 63 lower-case letters, digits, '_' or '-'", k, labels[k])
		}
	}
	return nil
}

// Owner identifies whose a resource is: the cluster (its infra ID), the
// GCPPrivateServiceConnect object it serves, and on the management side the
// management cluster.
type Owner struct {
	ManagementCluster string
	InfraID           string
	Name              string // the GCPPrivateServiceConnect's name
}

// ClusterLabelKey is the label marking a resource as the cluster infraID's.
func ClusterLabelKey(infraID string) string {
	return boundName(ClusterLabelKeyPrefix+infraID, MaxNameLength)
}

// Labels are the labels of the customer-side resources of o (the endpoint's
// address and forwarding rule): they find them again after a lost status.
func (o Owner) Labels() map[string]string {
	labels := map[string]string{
		ClusterLabelKey(o.InfraID):    ClusterLabelValueOwned,
		PrivateServiceConnectLabelKey: labelValue(o.Name),
	}
	if o.ManagementCluster != "" {
		labels[ManagementClusterLabelKey] = labelValue(o.ManagementCluster)
	}
	return labels
}

// ZoneLabels are the private zone's labels: Labels and the created-by label
// that alone allows deleting it.
func (o Owner) ZoneLabels() map[string]string {
	labels := o.Labels()
	labels[CreatedByLabelKey] = CreatedByLabelValue
	return labels
}

// OwnsLabels reports whether labels carry o's cluster and object labels
// (and its management cluster's, when o names one).
func (o Owner) OwnsLabels(labels map[string]string) bool {
	for k, v := range o.Labels() {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// CodeNotOurs is the code of the error a provider's Delete returns for a
// resource that exists but does not carry the caller's ownership: hcplink
// never deletes what it did not make.
const CodeNotOurs = "NotOurs"

func notOurs(doing, what, name string) error {
	return &cloud.Error{Doing: doing, Class: cloud.ClassClientError, Code: CodeNotOurs,
		Message: what + " " + name + " exists but was not made by hcplink for this cluster; hcplink leaves it: remove or rename it"}
}

// CreatedByHcplink reports whether labels mark a resource hcplink created.
func CreatedByHcplink(labels map[string]string) bool {
	return labels[CreatedByLabelKey] == CreatedByLabelValue
}

// The description marker of the resources that take no labels (service
// attachments, NAT subnetworks): "hcplink.io: key=value key=value", after
// any text.
const descriptionMarker = "hcplink.io:"

// Description is the description of a management-side resource of o: a
// sentence for people, then the marker that finds it again.
func (o Owner) Description(what string) string {
	fields := []string{"management-cluster=" + o.ManagementCluster}
	if o.InfraID != "" {
		fields = append(fields, "cluster="+o.InfraID)
	}
	if o.Name != "" {
		fields = append(fields, "object="+o.Name)
	}
	return what + " made by hcplink; do not edit. " + descriptionMarker + " " + strings.Join(fields, " ")
}

// OwnerFromDescription reads the marker of a description; ok is false when
// it has none (hcplink did not make the resource).
func OwnerFromDescription(description string) (o Owner, ok bool) {
	_, marker, found := strings.Cut(description, descriptionMarker)
	if !found {
		return Owner{}, false
	}
	for _, field := range strings.Fields(marker) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "management-cluster":
			o.ManagementCluster = v
		case "cluster":
			o.InfraID = v
		case "object":
			o.Name = v
		}
	}
	return o, o.ManagementCluster != ""
}

// ManagementClusterHash is the short, name-safe form of a management
// cluster's ID in the names of its resources: 8 hex digits of its SHA-256.
func ManagementClusterHash(managementCluster string) string {
	sum := sha256.Sum256([]byte(managementCluster))
	return hex.EncodeToString(sum[:])[:8]
}

// ServiceAttachmentNamePrefix starts the names of every service attachment
// of one management cluster: list with it, then check the description.
func ServiceAttachmentNamePrefix(managementCluster string) string {
	return "hcplink-psc-" + ManagementClusterHash(managementCluster) + "-"
}

// ServiceAttachmentName is the attachment of o: the management cluster's
// prefix and the cluster's infra ID and object, at most 63 characters.
func ServiceAttachmentName(o Owner) string {
	return boundName(ServiceAttachmentNamePrefix(o.ManagementCluster)+o.InfraID+"-"+o.Name, MaxNameLength)
}

// EndpointAddressName is the internal address the PSC endpoint of o takes
// in the customer's subnet; unique per cluster, as several clusters may
// share a customer project.
func EndpointAddressName(o Owner) string {
	return boundName(o.InfraID+"-"+o.Name+"-psc-ip", MaxNameLength)
}

// EndpointName is the PSC endpoint (the forwarding rule targeting the
// attachment) of o.
func EndpointName(o Owner) string {
	return boundName(o.InfraID+"-"+o.Name+"-psc", MaxNameLength)
}

// EndpointRelativeName is the relative name of the PSC endpoint name in
// project and region, as an attachment's connected endpoints name it
// (once made relative: RelativeName).
func EndpointRelativeName(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/forwardingRules/" + name
}

// ZoneName is the Cloud DNS managed zone of the cluster infraID (a managed
// zone's name follows the same rules as Compute names).
func ZoneName(infraID string) string { return boundName("hcplink-"+infraID, MaxNameLength) }

// ZoneDNSName is the cluster's private zone: <HostedControlPlane
// name>.hypershift.local., lower case, fully qualified as Cloud DNS takes it.
func ZoneDNSName(hcpName string) string { return strings.ToLower(hcpName) + ".hypershift.local." }

// Records of the private zone.
const (
	APIRecordName  = "api"
	AppsRecordName = "*.apps"
	// RecordTTL is the A records' TTL in seconds, the reference's.
	RecordTTL = 60
)

// RecordNames are the A records of the private zone, in the order written.
var RecordNames = []string{APIRecordName, AppsRecordName}

// RecordFQDN is a record's name as Cloud DNS takes it: "api" in
// "demo.hypershift.local." is "api.demo.hypershift.local.".
func RecordFQDN(record, zoneDNSName string) string { return record + "." + zoneDNSName }

// ExternalNameTarget is what the ExternalName Services of a Private
// cluster point at: the api record of its private zone, without the zone's
// trailing dot (a Service's externalName is a DNS-1123 subdomain).
func ExternalNameTarget(hcpName string) string {
	return strings.TrimSuffix(RecordFQDN(APIRecordName, ZoneDNSName(hcpName)), ".")
}

// boundName returns name when it fits, else a prefix and a hash of the
// whole name so that two long names stay distinct.
func boundName(name string, limit int) string {
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:])[:10]
	return strings.TrimRight(name[:limit-len(suffix)], "-") + suffix
}

// labelValue makes s a valid label value: lower case, other characters as
// "-", at most 63 characters (hashed when longer).
func labelValue(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
	return boundName(s, MaxNameLength)
}

func sortedLabelKeys(labels map[string]string) []string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
