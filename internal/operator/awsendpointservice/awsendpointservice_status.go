package awsendpointservice

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

// maxSubnets is the API maximum of spec.subnetIDs.
const maxSubnets = 10

// Delays of states whose length is known.
const (
	// loadBalancerProvisioningMin/Max: an NLB provisions in a few
	// minutes; look every 10–15 s (jittered).
	loadBalancerProvisioningMin = 10 * time.Second
	loadBalancerProvisioningMax = 15 * time.Second
	// servicePendingPoll: a new endpoint service is Available in seconds.
	servicePendingPoll = 5 * time.Second
	// controlPlaneCleanupPoll: the CPO's finalizer removal wakes us through
	// the watch; this is the safety net.
	controlPlaneCleanupPoll = 30 * time.Second
)

// availableOutcome is the outcome of a pass whose phases all succeeded:
// Ready, unless subnets were capped (the service works; the cluster asks
// for more subnets than an endpoint can use), which is looked at again at
// the drift interval.
func availableOutcome(subnets subnetChoice, drift time.Duration) outcome.Outcome {
	if subnets.wanted > maxSubnets {
		msg := fmt.Sprintf("The cluster's NodePools use %d subnets; a VPC endpoint takes at most %d, so one subnet per availability zone is kept first and the rest are filled in by subnet ID.",
			subnets.wanted, maxSubnets)
		if len(subnets.zonesLeftOut) > 0 {
			msg += fmt.Sprintf(" The NodePools span more than %d zones; zones %s are left out and get no endpoint.", maxSubnets, strings.Join(subnets.zonesLeftOut, ", "))
		}
		msg += " Move NodePools into fewer subnets."
		return outcome.Wait(hcplinkv1beta1.TooManySubnetsReason, msg, outcome.Jitter(drift))
	}
	return outcome.Ready(hcplinkv1beta1.AWSSuccessReason, hcplinkv1beta1.AllIsWellMessage, drift)
}

// serviceStateOutcome says what a service's state means: Available (and
// states AWS may add) → go on; Pending → wait; Failed → its own reason,
// rechecked with growing delays (a person looks at the NLB; nothing is
// deleted on a guess); Deleting / Deleted → gone, so it is recreated.
func serviceStateOutcome(svc *ec2types.ServiceConfiguration) (o outcome.Outcome, gone bool) {
	name := awssdk.ToString(svc.ServiceName)
	switch string(svc.ServiceState) {
	case awscloud.ServiceStatePending:
		return outcome.Wait(hcplinkv1beta1.EndpointServicePendingReason, "Endpoint service "+name+" is being created.", servicePendingPoll), false
	case awscloud.ServiceStateFailed:
		return outcome.WaitOnPerson(hcplinkv1beta1.EndpointServiceFailedReason,
			"AWS reports endpoint service "+name+" Failed; check its network load balancer, or delete the service so that hcplink creates it again."), false
	case awscloud.ServiceStateDeleting, awscloud.ServiceStateDeleted:
		return outcome.Wait(hcplinkv1beta1.EndpointServiceDeletedReason, "Endpoint service "+name+" was deleted outside hcplink; it is created again.", servicePendingPoll), true
	}
	return outcome.Continue(), false
}

// connectionsPending is the outcome of a service deletion AWS refused
// while consumer endpoints were connected (they were rejected): a
// dependency that clears within seconds, rechecked with growing delays
// should it not.
func connectionsPending(name string, connections int, doing string) outcome.Outcome {
	msg := fmt.Sprintf("%s: endpoint service %s still has %d consumer endpoint connections; they were rejected and deletion is retried.", doing, name, connections)
	o := outcome.FromError(&cloud.Error{Class: cloud.ClassDependency, Code: awscloud.CodeExistingVpcEndpointConnections, Message: msg})
	o.Reason, o.Message = hcplinkv1beta1.ConnectionsPendingReason, outcome.Bound(msg)
	return o
}

// subnetChoice is what subnetUnion chose: the subnets to write, how many
// the NodePools use, and the zones that got no subnet.
type subnetChoice struct {
	subnets      []string
	wanted       int
	zonesLeftOut []string
}

// subnetUnion is the sorted, deduplicated union of the NodePools' subnet
// IDs (empty IDs skipped), capped at maxSubnets per availability zone
// rather than by ID, so that the cap never drops a whole zone while
// another keeps two subnets. zoneOf maps a subnet to its zone ID (the
// control-plane operator's status.subnetZoneIDs). Within the cap: the
// smallest subnet ID of each known zone first (the first maxSubnets zone
// IDs in order, when there are more zones than that; the others are
// zonesLeftOut), then the other subnets of known zones by ID, then those
// whose zone is unknown, by ID.
func subnetUnion(subnetIDs []string, zoneOf map[string]string) subnetChoice {
	var all []string
	seen := map[string]bool{}
	for _, s := range subnetIDs {
		if s != "" && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	sort.Strings(all)
	out := subnetChoice{wanted: len(all)}
	if len(all) <= maxSubnets {
		out.subnets = all
		return out
	}
	firstOfZone := map[string]string{} // zone ID → its smallest subnet ID
	for _, s := range all {
		if z := zoneOf[s]; z != "" {
			if _, ok := firstOfZone[z]; !ok {
				firstOfZone[z] = s
			}
		}
	}
	zones := make([]string, 0, len(firstOfZone))
	for z := range firstOfZone {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	if len(zones) > maxSubnets {
		out.zonesLeftOut = zones[maxSubnets:]
		zones = zones[:maxSubnets]
	}
	chosen := map[string]bool{}
	for _, z := range zones {
		chosen[firstOfZone[z]] = true
	}
	var known, unknown []string
	for _, s := range all {
		switch {
		case chosen[s]:
		case zoneOf[s] != "":
			known = append(known, s)
		default:
			unknown = append(unknown, s)
		}
	}
	for _, s := range append(known, unknown...) {
		if len(chosen) >= maxSubnets {
			break // more than maxSubnets zones fill the cap with one subnet each
		}
		chosen[s] = true
	}
	for _, s := range all {
		if chosen[s] {
			out.subnets = append(out.subnets, s)
		}
	}
	return out
}

// nodePoolSubnet is the subnet of an AWS NodePool ("" without one).
func nodePoolSubnet(np *hcplinkv1beta1.NodePool) string {
	if np.Spec.Platform.AWS == nil || np.Spec.Platform.AWS.Subnet == nil {
		return ""
	}
	return np.Spec.Platform.AWS.Subnet.ID
}

// desiredPrincipals: the control-plane operator's role without its IAM
// path, and the cluster's additional principals; sorted and unique.
func desiredPrincipals(roleARN string, additional []string) []string {
	set := map[string]bool{}
	if roleARN != "" {
		set[awscloud.PrincipalWithoutPath(roleARN)] = true
	}
	for _, p := range additional {
		if p != "" {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// principalDiff returns what to add and to remove to turn actual into
// desired, both sorted.
func principalDiff(desired, actual []string) (add, remove []string) {
	for _, p := range desired {
		if !slices.Contains(actual, p) {
			add = append(add, p)
		}
	}
	for _, p := range actual {
		if !slices.Contains(desired, p) {
			remove = append(remove, p)
		}
	}
	sort.Strings(add)
	sort.Strings(remove)
	return add, remove
}

// desiredTags are the tags of the endpoint service: the cluster's resource
// tags, then the two tags hcplink finds it by, then the management
// cluster's (when known), which win on a clash.
func desiredTags(infraID, crName, managementClusterID string, resourceTags []hcplinkv1beta1.AWSResourceTag) map[string]string {
	var extra map[string]string
	if managementClusterID != "" {
		extra = map[string]string{hcplinkv1beta1.ManagementClusterTagKey: managementClusterID}
	}
	return awscloud.ResourceTags(resourceTags, infraID, crName, extra)
}

// userTagKeys are the keys of the cluster's resource tags, sorted.
func userTagKeys(resourceTags []hcplinkv1beta1.AWSResourceTag) []string {
	keys := make([]string, 0, len(resourceTags))
	for _, t := range resourceTags {
		keys = append(keys, t.Key)
	}
	sort.Strings(keys)
	return slices.Compact(keys)
}

// managedTagKey says which tag keys hcplink owns on the service: its two
// keys, the management cluster's (when this one's ID is known), and the
// user keys applied now or before (so removed ones are deleted); every
// other tag is the customer's and left alone.
func managedTagKey(infraID, managementClusterID string, currentKeys, previousKeys []string) func(string) bool {
	return func(key string) bool {
		return key == hcplinkv1beta1.EndpointServiceTagKey || key == hcplinkv1beta1.ClusterTagKey(infraID) ||
			(managementClusterID != "" && key == hcplinkv1beta1.ManagementClusterTagKey) ||
			slices.Contains(currentKeys, key) || slices.Contains(previousKeys, key)
	}
}

// parseKeys reads the applied-keys annotation (keys joined by newlines,
// which tag keys never contain).
func parseKeys(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, "\n")
}

func formatKeys(keys []string) string { return strings.Join(keys, "\n") }

// claim is how a service's management-cluster tag relates to this
// management cluster.
type claim int

const (
	// unclaimed: no management-cluster tag (made before the tag existed,
	// or by hand); this management cluster may adopt it.
	unclaimed claim = iota
	// claimedByUs: tagged with this management cluster's ID.
	claimedByUs
	// claimedByAnother: tagged with another ID, or with any ID while this
	// management cluster's is unknown; never adopted, changed or deleted.
	claimedByAnother
)

// managementClaim reads a service's management-cluster tag against this
// management cluster's ID ("" unknown).
func managementClaim(tags []ec2types.Tag, managementClusterID string) claim {
	v := awscloud.TagMap(tags)[hcplinkv1beta1.ManagementClusterTagKey]
	switch {
	case v == "":
		return unclaimed
	case managementClusterID != "" && v == managementClusterID:
		return claimedByUs
	default:
		return claimedByAnother
	}
}

// managementClusterOf is the management-cluster tag of a service.
func managementClusterOf(svc *ec2types.ServiceConfiguration) string {
	return awscloud.TagMap(svc.Tags)[hcplinkv1beta1.ManagementClusterTagKey]
}
