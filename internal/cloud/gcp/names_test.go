package gcp_test

import (
	"strings"
	"testing"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"hcplink-psc-1a2b3c4d-demo-x7k2p-private-router", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"1abc", false},
		{"abc-", false},
		{"Abc", false},
		{"a_b", false},
		{"a.b", false},
	} {
		if err := gcpcloud.ValidName(tc.name); (err == nil) != tc.ok {
			t.Errorf("ValidName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// Every name hcplink makes is a valid Google Cloud name, whatever the
// cluster's infra ID and object name, and two management clusters never
// share an attachment's name or prefix.
func TestNamesAreValidAndScopedToTheManagementCluster(t *testing.T) {
	for _, o := range []gcpcloud.Owner{
		{ManagementCluster: "3f1b7c9e-0d2a-4c55-9d1e-7a8b6c5d4e3f", InfraID: "demo-x7k2p", Name: "private-router"},
		{ManagementCluster: "m", InfraID: strings.Repeat("long-infra-id-", 6) + "x", Name: "kube-apiserver-private"},
	} {
		for what, name := range map[string]string{
			"attachment": gcpcloud.ServiceAttachmentName(o), "address": gcpcloud.EndpointAddressName(o),
			"endpoint": gcpcloud.EndpointName(o), "zone": gcpcloud.ZoneName(o.InfraID),
		} {
			if err := gcpcloud.ValidName(name); err != nil {
				t.Errorf("%s name of %+v: %v", what, o, err)
			}
		}
		if !strings.HasPrefix(gcpcloud.ServiceAttachmentName(o), gcpcloud.ServiceAttachmentNamePrefix(o.ManagementCluster)) {
			t.Errorf("attachment %s lacks its management cluster's prefix", gcpcloud.ServiceAttachmentName(o))
		}
		if err := gcpcloud.ValidLabels(o.ZoneLabels()); err != nil {
			t.Errorf("labels of %+v: %v", o, err)
		}
	}
	a := gcpcloud.Owner{ManagementCluster: "mgmt-a", InfraID: "demo", Name: "private-router"}
	b := a
	b.ManagementCluster = "mgmt-b"
	if gcpcloud.ServiceAttachmentName(a) == gcpcloud.ServiceAttachmentName(b) ||
		gcpcloud.ServiceAttachmentNamePrefix(a.ManagementCluster) == gcpcloud.ServiceAttachmentNamePrefix(b.ManagementCluster) {
		t.Fatalf("two management clusters share attachment names: %s", gcpcloud.ServiceAttachmentName(a))
	}
	long := gcpcloud.Owner{ManagementCluster: "m", InfraID: strings.Repeat("x", 70), Name: "a"}
	other := long
	other.Name = "b"
	if gcpcloud.EndpointName(long) == gcpcloud.EndpointName(other) {
		t.Fatal("two long names cut to the same endpoint name")
	}
}

func TestValidLabels(t *testing.T) {
	for _, tc := range []struct {
		labels map[string]string
		ok     bool
	}{
		{map[string]string{"kubernetes-io-cluster-demo": "owned", "k": ""}, true},
		{map[string]string{"Upper": "v"}, false},
		{map[string]string{"1key": "v"}, false},
		{map[string]string{"k": "UPPER"}, false},
		{map[string]string{"k": "a.b"}, false},
		{map[string]string{"k": strings.Repeat("v", 64)}, false},
	} {
		if err := gcpcloud.ValidLabels(tc.labels); (err == nil) != tc.ok {
			t.Errorf("ValidLabels(%v) = %v, want ok=%v", tc.labels, err, tc.ok)
		}
	}
	o := gcpcloud.Owner{ManagementCluster: "MGMT.Cluster/1", InfraID: "demo", Name: "Private.Router"}
	if err := gcpcloud.ValidLabels(o.Labels()); err != nil {
		t.Fatalf("labels of names Google would refuse are not made valid: %v", err)
	}
	if !o.OwnsLabels(o.Labels()) || o.OwnsLabels(map[string]string{gcpcloud.ClusterLabelKey("demo"): "owned"}) {
		t.Fatal("OwnsLabels does not tell the cluster's labels")
	}
}

func TestDescriptionMarker(t *testing.T) {
	o := gcpcloud.Owner{ManagementCluster: "3f1b7c9e-0d2a", InfraID: "demo-x7k2p", Name: "private-router"}
	got, ok := gcpcloud.OwnerFromDescription(o.Description("The private router's service attachment"))
	if !ok || got != o {
		t.Fatalf("OwnerFromDescription = %+v, %v; want %+v", got, ok, o)
	}
	for _, d := range []string{"", "made by someone else", "hcplink.io: cluster=demo"} {
		if _, ok := gcpcloud.OwnerFromDescription(d); ok {
			t.Errorf("description %q read as hcplink's", d)
		}
	}
}

func TestZoneAndRecordNames(t *testing.T) {
	if got := gcpcloud.ZoneDNSName("Demo"); got != "demo.hypershift.local." {
		t.Fatalf("ZoneDNSName = %q", got)
	}
	if got := gcpcloud.RecordFQDN(gcpcloud.AppsRecordName, "demo.hypershift.local."); got != "*.apps.demo.hypershift.local." {
		t.Fatalf("RecordFQDN = %q", got)
	}
}
