package azure

import (
	"strings"
	"testing"
)

func TestCheckZoneName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"demo.hypershift.local", true},
		{"privatelink.westeurope.azmk8s.io", true},
		{"a_b.example", true},
		{"local", false}, // a single label
		{strings.Repeat("a.", 34) + "b", false},
		{strings.Repeat("a.", 33) + "b", true},
		{"bad..example", false},
		{"sp ace.example", false},
		{strings.Repeat("x", 64) + ".example", false},
	} {
		if err := checkZoneName(tc.name); (err == nil) != tc.ok {
			t.Errorf("checkZoneName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		} else if err != nil && (err.Code != "BadRequest" || err.Status != 400) {
			t.Errorf("checkZoneName(%q) = %d %s, want 400 BadRequest", tc.name, err.Status, err.Code)
		}
	}
}

func TestCheckRecordSetName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"@", true}, {"api", true}, {"*.apps", true}, {"a.b.c", true},
		{"*", true}, {"", false}, {"a..b", false}, {"a*", false}, {"*.*", false},
	} {
		if err := checkRecordSetName(tc.name, "zone.local"); (err == nil) != tc.ok {
			t.Errorf("checkRecordSetName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestCanonicalRecordType(t *testing.T) {
	for in, want := range map[string]string{"a": "A", "Cname": "CNAME", "SOA": "SOA", "NS": "", "ALL": "", "caa": ""} {
		if got := canonicalRecordType(in); got != want {
			t.Errorf("canonicalRecordType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckCNAMECoexistence(t *testing.T) {
	for _, tc := range []struct {
		writing  string
		existing []string
		wantMsg  string
	}{
		{recordA, nil, ""},
		{recordCNAME, nil, ""},
		{recordA, []string{recordTXT}, ""},
		{recordCNAME, []string{recordA}, "The CNAME record could not be created because another record with the same name already exists in this zone."},
		{recordCNAME, []string{recordTXT, recordA}, "The CNAME record could not be created"},
		{recordA, []string{recordCNAME}, "The A record could not be created because a CNAME record"},
		{recordTXT, []string{recordCNAME}, "The TXT record could not be created"},
	} {
		err := checkCNAMECoexistence(tc.writing, tc.existing)
		switch {
		case tc.wantMsg == "" && err != nil:
			t.Errorf("%s beside %v refused: %v", tc.writing, tc.existing, err)
		case tc.wantMsg != "" && (err == nil || err.Status != 409 || err.Code != "Conflict" || !strings.HasPrefix(err.Message, tc.wantMsg)):
			t.Errorf("%s beside %v = %v, want 409 Conflict %q", tc.writing, tc.existing, err, tc.wantMsg)
		}
	}
}

func TestCheckRecords(t *testing.T) {
	ttl := func(v int64) *int64 { return &v }
	many := make([]aRecord, 21)
	for i := range many {
		many[i] = aRecord{IPv4Address: "10.0.0.1"}
	}
	for _, tc := range []struct {
		what, typ, name string
		p               recordSetProperties
		ok              bool
	}{
		{"an A record", recordA, "api", recordSetProperties{TTL: ttl(300), ARecords: []aRecord{{"10.0.0.4"}}}, true},
		{"an IPv6 address in an A record", recordA, "api", recordSetProperties{ARecords: []aRecord{{"fd00::1"}}}, false},
		{"garbage in an A record", recordA, "api", recordSetProperties{ARecords: []aRecord{{"10.0.0.256"}}}, false},
		{"21 records", recordA, "api", recordSetProperties{ARecords: many}, false},
		{"20 records", recordA, "api", recordSetProperties{ARecords: many[:20]}, true},
		{"a negative TTL", recordA, "api", recordSetProperties{TTL: ttl(-1)}, false},
		{"an AAAA record", recordAAAA, "api", recordSetProperties{AAAARecords: []aaaaRecord{{"fd00::1"}}}, true},
		{"an IPv4 AAAA record", recordAAAA, "api", recordSetProperties{AAAARecords: []aaaaRecord{{"10.0.0.1"}}}, false},
		{"a CNAME", recordCNAME, "www", recordSetProperties{CNAMERecord: &cnameRecord{"pe.privatelink.example.com"}}, true},
		{"a CNAME at the apex", recordCNAME, "@", recordSetProperties{CNAMERecord: &cnameRecord{"x.example.com"}}, false},
		{"a quoted CNAME target", recordCNAME, "www", recordSetProperties{CNAMERecord: &cnameRecord{`"x.example.com"`}}, false},
		{"an SOA with a negative minimumTtl", recordSOA, "@", recordSetProperties{SOARecord: &soaRecord{MinimumTTL: ttl(-5)}}, false},
		{"an SOA negative-cache TTL of 300", recordSOA, "@", recordSetProperties{SOARecord: &soaRecord{MinimumTTL: ttl(300)}}, true},
	} {
		if err := checkRecords(tc.typ, tc.name, &tc.p); (err == nil) != tc.ok {
			t.Errorf("%s: checkRecords = %v, want ok=%v", tc.what, err, tc.ok)
		}
	}
}

func TestSOARecordSetsAreOnlyUpdated(t *testing.T) {
	if err := checkRecordSetWrite(recordSOA, "@", true); err != nil {
		t.Errorf("updating the zone's SOA refused: %v", err)
	}
	if err := checkRecordSetWrite(recordSOA, "other", false); err == nil {
		t.Errorf("creating a second SOA record set allowed")
	}
	if err := checkRecordSetWrite(recordA, "api", false); err != nil {
		t.Errorf("creating an A record set refused: %v", err)
	}
	if err := checkRecordSetDelete(recordSOA); err == nil {
		t.Errorf("deleting the SOA record set allowed")
	}
	if err := checkRecordSetDelete(recordCNAME); err != nil {
		t.Errorf("deleting a CNAME record set refused: %v", err)
	}
}

func TestMergeSOAKeepsTheHostAndUnsetValues(t *testing.T) {
	current := defaultSOA("zone.local").SOARecord
	merged := mergeSOA(current, &soaRecord{Host: "elsewhere.example", MinimumTTL: int64p(300), Email: "ops.example.com"})
	if merged.Host != soaHost {
		t.Errorf("host = %q, want the read-only %q", merged.Host, soaHost)
	}
	if *merged.MinimumTTL != 300 || merged.Email != "ops.example.com" {
		t.Errorf("update not applied: %+v", merged)
	}
	if *merged.RefreshTime != soaRefresh || *merged.RetryTime != soaRetry || *merged.ExpireTime != soaExpire || *merged.SerialNumber != soaSerial {
		t.Errorf("unset values changed: %+v", merged)
	}
	if *current.MinimumTTL != soaMinimumTTL {
		t.Errorf("the current record was modified in place")
	}
}

func TestCheckLinkPlacement(t *testing.T) {
	vnetA := "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/a"
	vnetB := "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/b"
	existing := []vnetLink{
		{ZoneName: "one.local", LinkID: "zone-one/link-a", VNetID: vnetA, Registration: true},
		{ZoneName: "two.local", LinkID: "zone-two/link-b", VNetID: vnetB},
	}
	for _, tc := range []struct {
		what     string
		link     vnetLink
		wantCode string
	}{
		{"the same link again (an update)", vnetLink{ZoneName: "one.local", LinkID: "ZONE-ONE/link-a", VNetID: vnetA, Registration: true}, ""},
		{"a second link of a VNet to the same zone", vnetLink{ZoneName: "one.local", LinkID: "zone-one/again", VNetID: vnetA}, "BadRequest"},
		{"a VNet linked to another zone of the same name", vnetLink{ZoneName: "TWO.local", LinkID: "other-rg/zone-two/x", VNetID: vnetB}, "BadRequest"},
		{"a resolution link to another zone", vnetLink{ZoneName: "three.local", LinkID: "zone-three/a", VNetID: vnetA}, ""},
		{"a second registration zone for a VNet", vnetLink{ZoneName: "three.local", LinkID: "zone-three/a", VNetID: vnetA, Registration: true}, "Conflict"},
		{"a first registration zone for another VNet", vnetLink{ZoneName: "three.local", LinkID: "zone-three/b", VNetID: vnetB, Registration: true}, ""},
	} {
		err := checkLinkPlacement(tc.link, existing)
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tc.wantCode {
			t.Errorf("%s: %v, want code %q", tc.what, err, tc.wantCode)
		}
	}
	err := checkLinkPlacement(vnetLink{ZoneName: "one.local", LinkID: "x", VNetID: vnetA}, existing)
	if want := "You tried to link virtual network with 'one.local' and 'one.local' zones."; err == nil || !strings.HasSuffix(err.Message, want) {
		t.Errorf("message = %v, want it to end with %q", err, want)
	}
}

func TestZoneAndLinkLimits(t *testing.T) {
	if checkZoneDelete("z.local", 0) != nil {
		t.Errorf("deleting a zone without links refused")
	}
	if err := checkZoneDelete("z.local", 2); err == nil || err.Status != 409 {
		t.Errorf("deleting a zone with links = %v, want a 409", err)
	}
	if checkLinkLimits("z", true, maxLinksPerZone-1, maxRegistrationLinksPerZone-1) != nil {
		t.Errorf("the last allowed link refused")
	}
	if checkLinkLimits("z", false, maxLinksPerZone, 0) == nil {
		t.Errorf("link %d allowed", maxLinksPerZone+1)
	}
	if checkLinkLimits("z", true, 5, maxRegistrationLinksPerZone) == nil {
		t.Errorf("registration link %d allowed", maxRegistrationLinksPerZone+1)
	}
	if checkLinkLimits("z", false, 5, maxRegistrationLinksPerZone) != nil {
		t.Errorf("a resolution link refused because registration links are full")
	}
	if checkRecordSetLimit("z", maxRecordSetsPerZone) == nil || checkRecordSetLimit("z", 1) != nil {
		t.Errorf("record set limit not at %d", maxRecordSetsPerZone)
	}
}

func TestDefaultSOA(t *testing.T) {
	p := defaultSOA("demo.hypershift.local")
	if p.FQDN != "demo.hypershift.local." || *p.TTL != 3600 {
		t.Errorf("SOA fqdn %q ttl %d", p.FQDN, *p.TTL)
	}
	s := p.SOARecord
	if s.Host != "azureprivatedns.net" || s.Email != "azureprivatedns-host.microsoft.com" || *s.MinimumTTL != 10 ||
		*s.RefreshTime != 3600 || *s.RetryTime != 300 || *s.ExpireTime != 2419200 || *s.SerialNumber != 1 {
		t.Errorf("SOA = %+v", s)
	}
}

func TestOnlyTypeDropsOtherRecords(t *testing.T) {
	p := recordSetProperties{ARecords: []aRecord{{"10.0.0.1"}}, CNAMERecord: &cnameRecord{"x.example"}, Metadata: map[string]string{"k": "v"}}
	p.onlyType(recordA)
	if p.CNAMERecord != nil || len(p.ARecords) != 1 || p.Metadata["k"] != "v" {
		t.Errorf("onlyType(A) = %+v", p)
	}
}
