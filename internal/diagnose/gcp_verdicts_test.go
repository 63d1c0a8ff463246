package diagnose

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestGCPVerdicts(t *testing.T) {
	rule := ForwardingRuleSeen{Name: "router", Project: "mgmt-project", Found: true, Scheme: "INTERNAL", IP: "10.0.0.50", WantIP: "10.0.0.50",
		Service: "ns/private-router", Object: "ns/private-router"}
	ruleNoIP, ruleUnrecorded, ruleGone, ruleExternal, ruleMoved := rule, rule, rule, rule, rule
	ruleNoIP.WantIP, ruleUnrecorded.Name, ruleGone.Found, ruleExternal.Scheme, ruleMoved.IP = "", "", false, "EXTERNAL", "10.0.0.51"

	sa := ServiceAttachmentSeen{Name: "hcplink-psc-1", Project: "mgmt-project", Found: true, Object: "ns/private-router", Target: "router", WantTarget: "router",
		Preference: gcpcloud.ConnectionPreferenceManual, Accepts: []string{"customer-project", "extra-project"}, Want: []string{"customer-project", "extra-project"},
		Connections: []gcpcloud.Connection{{Project: "customer-project", Status: gcpcloud.PSCAccepted}}}
	saUnmade, saGone, saElsewhere, saShort, saAutomatic := sa, sa, sa, sa, sa
	saUnmade.Name, saGone.Found, saElsewhere.Target, saShort.Accepts, saAutomatic.Preference = "", false, "other-rule", []string{"customer-project"}, "ACCEPT_AUTOMATIC"

	ep := PSCEndpointSeen{Name: "x-private-router-psc", Project: "customer-project", Found: true, Target: "projects/mgmt-project/regions/r/serviceAttachments/hcplink-psc-1",
		WantTarget: "projects/mgmt-project/regions/r/serviceAttachments/hcplink-psc-1", Status: gcpcloud.PSCAccepted, IP: "192.168.1.2",
		Address: "x-private-router-psc-ip", AddressStatus: "IN_USE", AttachmentRead: true, Attachment: "hcplink-psc-1",
		Accepts: []string{"customer-project"}, WantedByCluster: []string{"customer-project"}}
	epGone, epOldTarget, epNoIP := ep, ep, ep
	epGone.Found, epOldTarget.Target, epNoIP.IP = false, "projects/mgmt-project/regions/r/serviceAttachments/old", ""
	pending := func(accepts, wanted []string, read bool) PSCEndpointSeen {
		s := ep
		s.Status, s.Accepts, s.WantedByCluster, s.AttachmentRead = gcpcloud.PSCPending, accepts, wanted, read
		return s
	}
	epRejectedListed, epRejected, epClosed, epFull, epOdd := ep, ep, ep, ep, ep
	epRejectedListed.Status, epRejectedListed.Rejects = gcpcloud.PSCRejected, []string{"customer-project"}
	epRejected.Status, epClosed.Status, epFull.Status, epOdd.Status = gcpcloud.PSCRejected, gcpcloud.PSCClosed, gcpcloud.PSCNeedsAttention, ""

	zone := CloudDNSZoneSeen{Name: "hcplink-x", Project: "customer-project", Found: true, DNSName: "demo.hypershift.local.", WantDNSName: "demo.hypershift.local.",
		Networks: []string{"customer"}, WantNetwork: "customer", Ours: true}
	zoneGone, zoneForeign, zoneOtherName, zoneUnbound := zone, zone, zone, zone
	zoneGone.Found, zoneForeign.Ours, zoneOtherName.DNSName, zoneUnbound.Networks = false, false, "other.hypershift.local.", []string{"elsewhere"}

	checkVerdicts(t, []verdictCase{
		{"rule", ForwardingRuleHop(rule), Pass, ""},
		{"rule: the router has no address", ForwardingRuleHop(ruleNoIP), Fail, "Wait for Service ns/private-router"},
		{"rule: not found by the operator yet", ForwardingRuleHop(ruleUnrecorded), Fail, "GCPServiceAttachmentAvailable"},
		{"rule: gone", ForwardingRuleHop(ruleGone), Fail, "Delete Service ns/private-router"},
		{"rule: not internal", ForwardingRuleHop(ruleExternal), Fail, "is not internal"},
		{"rule: another address", ForwardingRuleHop(ruleMoved), Fail, "not the router's 10.0.0.50"},

		{"attachment", ServiceAttachmentHop(sa), Pass, ""},
		{"attachment: not made yet", ServiceAttachmentHop(saUnmade), Fail, "why it has not made the service attachment"},
		{"attachment: gone", ServiceAttachmentHop(saGone), Fail, "makes service attachment hcplink-psc-1 again"},
		{"attachment: publishes another rule", ServiceAttachmentHop(saElsewhere), Fail, "publishes forwarding rule other-rule, not the router's router"},
		{"attachment: a wanted project off the accept list", ServiceAttachmentHop(saShort), Fail, "Add project extra-project to the accept list"},
		{"attachment: automatic acceptance is a note", ServiceAttachmentHop(saAutomatic), Pass, ""},

		{"endpoint", PSCEndpointHop(ep), Pass, ""},
		{"endpoint: gone", PSCEndpointHop(epGone), Fail, "makes endpoint x-private-router-psc again"},
		{"endpoint: targets an old attachment", PSCEndpointHop(epOldTarget), Fail, "not the published service attachment hcplink-psc-1"},
		{"endpoint: no address", PSCEndpointHop(epNoIP), Fail, "to get its address"},
		{"endpoint: PENDING, the cluster's project dropped from the list", PSCEndpointHop(pending([]string{"other-project"}, []string{"customer-project"}, true)), Fail,
			"project customer-project is not on the accept list of service attachment hcplink-psc-1; the management operator restores the list"},
		{"endpoint: PENDING, a project the cluster does not name", PSCEndpointHop(pending([]string{"other-project"}, []string{"other-project"}, true)), Fail,
			"is PENDING: project customer-project is not on the accept list of service attachment hcplink-psc-1; add it to spec.platform.gcp.private.additionalAllowedProjects"},
		{"endpoint: PENDING on the list", PSCEndpointHop(pending([]string{"customer-project"}, []string{"customer-project"}, true)), Fail, "connection limit"},
		{"endpoint: PENDING, attachment unread", PSCEndpointHop(pending(nil, []string{"customer-project"}, false)), Fail, "could not be read"},
		{"endpoint: REJECTED by the reject list", PSCEndpointHop(epRejectedListed), Fail, "remove project customer-project from the reject list"},
		{"endpoint: REJECTED", PSCEndpointHop(epRejected), Fail, "is REJECTED: delete it"},
		{"endpoint: CLOSED", PSCEndpointHop(epClosed), Fail, "its service attachment was deleted"},
		{"endpoint: NAT subnets full", PSCEndpointHop(epFull), Fail, "purpose PRIVATE_SERVICE_CONNECT"},
		{"endpoint: no status yet", PSCEndpointHop(epOdd), Fail, "wait for it to be ACCEPTED"},

		{"zone", CloudDNSZoneHop(zone), Pass, ""},
		{"zone: gone", CloudDNSZoneHop(zoneGone), Fail, "makes zone hcplink-x again"},
		{"zone: not ours", CloudDNSZoneHop(zoneForeign), Fail, "was not made by hcplink for this cluster"},
		{"zone: another name", CloudDNSZoneHop(zoneOtherName), Fail, "serves other.hypershift.local., not demo.hypershift.local."},
		{"zone: not visible to the network", CloudDNSZoneHop(zoneUnbound), Fail, "visible to network customer again"},
	})
	if h := ServiceAttachmentHop(saAutomatic); !strings.Contains(h.Note, "ACCEPT_AUTOMATIC") {
		t.Errorf("automatic acceptance gives no note: %+v", h)
	}
}

// TestGCPDeniedNamesThePermission: a refused read names the permission
// Google named, else the one diagnose's table gives the read, and that one
// is in the table.
func TestGCPDeniedNamesThePermission(t *testing.T) {
	named := &googleapi.Error{Code: 403, Message: "Required 'compute.serviceAttachments.get' permission for 'projects/p/regions/r/serviceAttachments/a'",
		Errors: []googleapi.ErrorItem{{Reason: gcpcloud.ReasonForbidden}}}
	bare := &googleapi.Error{Code: 403, Message: "The caller does not have permission", Errors: []googleapi.ErrorItem{{Reason: gcpcloud.ReasonForbidden}}}
	for _, tc := range []struct {
		err  error
		perm string
		want string
	}{
		{gcpcloud.Wrap("reading", named), permForwardingRuleGet, "lack compute.serviceAttachments.get in project mgmt"},
		{gcpcloud.Wrap("reading", bare), permRecordSetsList, "lack dns.resourceRecordSets.list in project mgmt"},
	} {
		h := gcpUnknown(HopARecords, SideCustomer, tc.err, tc.perm, "mgmt")
		if h.Verdict != Unknown || !strings.Contains(h.Why, tc.want) || !strings.Contains(h.Why, "hcplink permissions gcp diagnose") {
			t.Errorf("why %q, want it to hold %q and the command that prints the role", h.Why, tc.want)
		}
	}
	other := gcpUnknown(HopARecords, SideCustomer, &cloud.Error{Class: cloud.ClassServerError, Message: "boom"}, permRecordSetsList, "mgmt")
	if strings.Contains(other.Why, "lack") {
		t.Errorf("a server error is reported as a missing permission: %q", other.Why)
	}
	for _, p := range []string{permForwardingRuleGet, permServiceAttachmentGet, permAddressGet, permManagedZoneGet, permRecordSetsList} {
		if !slices.Contains(gcpcloud.PermissionsOf(gcpcloud.Diagnose), p) {
			t.Errorf("the walk names %s, which diagnose's rows of the GCP table do not grant", p)
		}
	}
}

func TestAttachmentLocation(t *testing.T) {
	for _, tc := range []struct{ uri, project, region string }{
		{"projects/hcp-management/regions/us-central1/serviceAttachments/a", "hcp-management", "us-central1"},
		{"https://www.googleapis.com/compute/v1/projects/p/regions/r/serviceAttachments/a", "p", "r"},
		{"projects/p/global/networks/n", "", ""},
		{"", "", ""},
	} {
		project, region, _ := attachmentLocation(tc.uri)
		if project != tc.project || region != tc.region {
			t.Errorf("attachmentLocation(%q) = %q, %q; want %q, %q", tc.uri, project, region, tc.project, tc.region)
		}
	}
}
