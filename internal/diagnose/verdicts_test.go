package diagnose

import (
	"strings"
	"testing"
)

// verdictCase is one seen state and the verdict and sentence it must give.
type verdictCase struct {
	name    string
	hop     Hop
	verdict Verdict
	fix     string // a fragment the sentence must hold ("" on a pass)
}

func checkVerdicts(t *testing.T, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hop.Verdict != tc.verdict {
				t.Fatalf("verdict %s (seen %q, fix %q), want %s", tc.hop.Verdict, tc.hop.Seen, tc.hop.Fix, tc.verdict)
			}
			if tc.verdict == Fail && (!strings.Contains(tc.hop.Fix, tc.fix) || strings.Count(tc.hop.Fix, ". ") > 0 || !strings.HasSuffix(tc.hop.Fix, ".")) {
				t.Errorf("fix %q: want one sentence holding %q", tc.hop.Fix, tc.fix)
			}
			if tc.verdict == Pass && tc.hop.Fix != "" {
				t.Errorf("a pass has a fix: %q", tc.hop.Fix)
			}
		})
	}
}

func TestAWSVerdicts(t *testing.T) {
	nlb := LoadBalancerSeen{Name: "nlb", Found: true, State: "active", ZoneIDs: []string{"use1-az1"}, Service: "ns/private-router"}
	svc := EndpointServiceSeen{Name: testService, ID: "vpce-svc-1", Found: true, State: "Available", OnLoadBalancer: true, Principals: []string{testRole}, WantPrincipal: testRole}
	ep := EndpointSeen{ID: "vpce-1", Found: true, State: "available", SubnetZones: map[string]string{"subnet-a": "use1-az1"}, ServedZoneIDs: []string{"use1-az1"}}
	sg := SecurityGroupSeen{ID: "sg-1", Found: true, Attached: true, Port: 443, Admitted: []string{"10.0.0.0/16"}, MachineCIDRs: []string{"10.0.0.0/16"}}
	zone := PrivateZoneSeen{ID: "Z1", Name: "a.hypershift.local", Found: true, VPCs: []string{"vpc-1"}, VPC: "vpc-1", NegativeTTL: 60}
	recs := RecordsSeen{Zone: "Z1", Target: "vpce-1-x.vpce.amazonaws.com", Want: []string{"api.a.hypershift.local"}, Have: map[string]string{"api.a.hypershift.local": "vpce-1-x.vpce.amazonaws.com"}}
	ext := ExternalNamesSeen{Namespace: "ns", Target: "t", Want: []string{"kube-apiserver-private-external"}, Have: map[string]string{"kube-apiserver-private-external": "t"}}
	nlbGone, nlbBusy := nlb, nlb
	nlbGone.Found, nlbBusy.State = false, "provisioning"
	svcUnpublished, svcGone, svcFailed, svcElsewhere, svcNoPrincipal, svcAcceptance := svc, svc, svc, svc, svc, svc
	svcUnpublished.Name, svcGone.Found, svcFailed.State, svcElsewhere.OnLoadBalancer, svcNoPrincipal.Principals, svcAcceptance.AcceptanceRequired = "", false, "Failed", false, []string{"arn:aws:iam::1:root"}, true
	epNone, epGone, epRejected, epPendingAcc, epPending, epTwoInZone, epUnserved := ep, ep, ep, ep, ep, ep, ep
	epNone.ID, epGone.Found, epRejected.State, epPendingAcc.State, epPending.State = "", false, "rejected", "pendingAcceptance", "pending"
	epTwoInZone.SubnetZones = map[string]string{"subnet-a": "use1-az1", "subnet-b": "use1-az1"}
	epUnserved.SubnetZones = map[string]string{"subnet-c": "use1-az3"}
	epUnknownZones := epUnserved
	epUnknownZones.ServedZoneIDs = nil
	sgGone, sgDetached, sgRevoked := sg, sg, sg
	sgGone.Found, sgDetached.Attached, sgRevoked.Admitted = false, false, nil
	zoneGone, zoneAway, zoneSlow := zone, zone, zone
	zoneGone.Found, zoneAway.VPCs, zoneSlow.NegativeTTL = false, nil, 900
	recsElsewhere, recsMissing := recs, recs
	recsElsewhere.Have = map[string]string{"api.a.hypershift.local": "elsewhere.example.com"}
	recsMissing.Have = map[string]string{}
	extWrong := ext
	extWrong.Have = map[string]string{"kube-apiserver-private-external": "old"}

	checkVerdicts(t, []verdictCase{
		{"NLB active", LoadBalancerHop(nlb), Pass, ""},
		{"NLB deleted", LoadBalancerHop(nlbGone), Fail, "Delete Service ns/private-router"},
		{"NLB provisioning", LoadBalancerHop(nlbBusy), Fail, "Wait for load balancer nlb"},
		{"service healthy", EndpointServiceHop(svc), Pass, ""},
		{"service unpublished", EndpointServiceHop(svcUnpublished), Fail, "AWSEndpointServiceAvailable"},
		{"service deleted", EndpointServiceHop(svcGone), Fail, "recreates the endpoint service"},
		{"service failed", EndpointServiceHop(svcFailed), Fail, "is Failed"},
		{"service on another NLB", EndpointServiceHop(svcElsewhere), Fail, "not on its Service's load balancer"},
		{"principal removed", EndpointServiceHop(svcNoPrincipal), Fail, "Allow principal " + testRole},
		{"acceptance on", EndpointServiceHop(svcAcceptance), Fail, "Turn acceptance off"},
		{"endpoint available", EndpointHop(ep), Pass, ""},
		{"no endpoint yet", EndpointHop(epNone), Fail, "AWSEndpointAvailable"},
		{"endpoint deleted", EndpointHop(epGone), Fail, "creates the endpoint again"},
		{"endpoint rejected", EndpointHop(epRejected), Fail, "Delete VPC endpoint vpce-1"},
		{"endpoint pending acceptance", EndpointHop(epPendingAcc), Fail, "Accept VPC endpoint vpce-1"},
		{"endpoint pending", EndpointHop(epPending), Fail, "Wait for VPC endpoint vpce-1"},
		{"two subnets in a zone", EndpointHop(epTwoInZone), Fail, "zone use1-az1"},
		{"zone not served", EndpointHop(epUnserved), Fail, "Subnet subnet-c is in zone use1-az3"},
		{"served zones unknown", EndpointHop(epUnknownZones), Pass, ""},
		{"group admits machines", SecurityGroupHop(sg), Pass, ""},
		{"group deleted", SecurityGroupHop(sgGone), Fail, "creates the security group again"},
		{"group detached", SecurityGroupHop(sgDetached), Fail, "Add security group sg-1 back"},
		{"rule revoked", SecurityGroupHop(sgRevoked), Fail, "Allow tcp 443 from 10.0.0.0/16 in security group sg-1"},
		{"zone associated", PrivateZoneHop(zone), Pass, ""},
		{"zone deleted", PrivateZoneHop(zoneGone), Fail, "Create the private zone a.hypershift.local"},
		{"zone disassociated", PrivateZoneHop(zoneAway), Fail, "Associate private zone Z1 with VPC vpc-1"},
		{"slow negative TTL is advice", PrivateZoneHop(zoneSlow), Pass, ""},
		{"records right", RecordsHop(recs), Pass, ""},
		{"record elsewhere", RecordsHop(recsElsewhere), Fail, "Point api.a.hypershift.local at vpce-1-x.vpce.amazonaws.com"},
		{"record deleted", RecordsHop(recsMissing), Fail, "Point api.a.hypershift.local"},
		{"ExternalNames right", ExternalNamesHop(ext), Pass, ""},
		{"ExternalName stale", ExternalNamesHop(extWrong), Fail, "Delete Service ns/kube-apiserver-private-external"},
		{"no ExternalNames wanted", ExternalNamesHop(ExternalNamesSeen{}), Pass, ""},
	})
	if h := PrivateZoneHop(zoneSlow); !strings.Contains(h.Note, "900 s") {
		t.Errorf("a 900 s negative TTL gives no advice: %+v", h)
	}
}

func TestAzureVerdicts(t *testing.T) {
	pls := PrivateLinkServiceSeen{Name: "pls-1", Found: true, State: "Succeeded", Visibility: []string{testGuestSub}, AutoApproval: []string{testGuestSub}, Guest: testGuestSub, OnFrontend: true}
	pe := PrivateEndpointSeen{Name: "pe-1", Found: true, Status: "Approved", IP: "10.2.1.4"}
	link := VNetLinkSeen{Zone: "b.hypershift.local", Name: "link", Found: true, VNet: "/x/virtualNetworks/guest", WantVNet: "/x/virtualNetworks/guest", State: "Completed"}
	recs := ARecordsSeen{Zone: "b.hypershift.local", IP: "10.2.1.4", Want: []string{"api", "*.apps"}, Have: map[string][]string{"api": {"10.2.1.4"}, "*.apps": {"10.2.1.4"}}}

	plsGone, plsFailed, plsElsewhere, plsHidden, plsManual := pls, pls, pls, pls, pls
	plsGone.Found, plsFailed.State, plsElsewhere.OnFrontend = false, "Failed", false
	plsHidden.Visibility, plsManual.AutoApproval = []string{testOtherSub}, nil
	peGone, peRejected, peNoIP := pe, pe, pe
	peGone.Found, peRejected.Status, peNoIP.IP = false, "Rejected", ""
	linkGone, linkOther, linkBusy := link, link, link
	linkGone.Found, linkOther.VNet, linkBusy.State = false, "/x/virtualNetworks/other", "InProgress"
	recsDeleted, recsWrong := recs, recs
	recsDeleted.Have = map[string][]string{"*.apps": {"10.2.1.4"}}
	recsWrong.Have = map[string][]string{"api": {"10.9.9.9"}, "*.apps": {"10.2.1.4"}}

	checkVerdicts(t, []verdictCase{
		{"frontend found", InternalLoadBalancerHop(FrontendSeen{IP: "10.1.0.7", Found: true, ID: "/lb/frontendIPConfigurations/fe"}), Pass, ""},
		{"Service without address", InternalLoadBalancerHop(FrontendSeen{Service: "ns/private-router"}), Fail, "Wait for Service ns/private-router"},
		{"frontend gone", InternalLoadBalancerHop(FrontendSeen{IP: "10.1.0.7", Service: "ns/private-router"}), Fail, "Delete Service ns/private-router"},
		{"PLS healthy", PrivateLinkServiceHop(pls), Pass, ""},
		{"PLS deleted", PrivateLinkServiceHop(plsGone), Fail, "creates the private link service again"},
		{"PLS failed", PrivateLinkServiceHop(plsFailed), Fail, "is Failed"},
		{"PLS on another frontend", PrivateLinkServiceHop(plsElsewhere), Fail, "not on the router's frontend"},
		{"visibility misses the guest", PrivateLinkServiceHop(plsHidden), Fail, "to the visibility of private link service pls-1"},
		{"auto-approval misses the guest", PrivateLinkServiceHop(plsManual), Fail, "to the auto-approval of private link service pls-1"},
		{"PE approved", PrivateEndpointHop(pe), Pass, ""},
		{"PE deleted", PrivateEndpointHop(peGone), Fail, "creates the private endpoint again"},
		{"PE rejected", PrivateEndpointHop(peRejected), Fail, "Delete private endpoint pe-1"},
		{"PE without address", PrivateEndpointHop(peNoIP), Fail, "Wait for private endpoint pe-1"},
		{"zone exists", PrivateDNSZoneHop("b.hypershift.local", true), Pass, ""},
		{"zone deleted", PrivateDNSZoneHop("b.hypershift.local", false), Fail, "creates zone b.hypershift.local"},
		{"link right", VNetLinkHop(link), Pass, ""},
		{"link deleted", VNetLinkHop(linkGone), Fail, "Link zone b.hypershift.local to VNet guest"},
		{"link to another VNet", VNetLinkHop(linkOther), Fail, "instead"},
		{"link in progress", VNetLinkHop(linkBusy), Fail, "Wait for link link"},
		{"A records right", ARecordsHop(recs), Pass, ""},
		{"A record deleted", ARecordsHop(recsDeleted), Fail, "Set A record api of zone b.hypershift.local to 10.2.1.4"},
		{"A record elsewhere", ARecordsHop(recsWrong), Fail, "Set A record api"},
	})
}

func TestExitCodeAndSummary(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verdicts []Verdict
		code     int
		summary  string
	}{
		{"all pass", []Verdict{Pass, Pass}, ExitHealthy, "Healthy"},
		{"a failure wins over unknowns", []Verdict{Unknown, Fail, Pass}, ExitBroken, "Broken at hop1"},
		{"unknown without failure", []Verdict{Pass, Unknown}, ExitIncomplete, "could not be checked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Report
			for i, v := range tc.verdicts {
				r.Hops = append(r.Hops, Hop{Name: "hop" + string(rune('0'+i)), Verdict: v})
			}
			if got := r.ExitCode(); got != tc.code {
				t.Errorf("exit code %d, want %d", got, tc.code)
			}
			if got := summary(r); !strings.Contains(got, tc.summary) {
				t.Errorf("summary %q, want %q in it", got, tc.summary)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tc := range []struct {
		text  string
		lines int
	}{{"", 0}, {"short", 1}, {long, 2}} {
		got := wrap(tc.text, 2, wrapColumns)
		if len(got) != tc.lines {
			t.Errorf("wrap(%d chars) gave %d lines, want %d", len(tc.text), len(got), tc.lines)
		}
		for _, l := range got {
			if len([]rune(l)) > wrapColumns {
				t.Errorf("line %q is longer than %d", l, wrapColumns)
			}
		}
	}
	if got := wrap(long, 2, wrapColumns); !strings.HasSuffix(got[1], "…") {
		t.Errorf("cut text does not end in …: %q", got[1])
	}
}
