package gcp

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

func TestPlatformAppliesToPrivateGCPClusters(t *testing.T) {
	p := Platform(Options{})
	if p.Name != "GCP" || p.Type != hcplinkv1beta1.GCPPlatform || p.Kind != "GCPPrivateServiceConnect" || p.Resource != "gcpprivateserviceconnects" ||
		p.Setup == nil || p.List == nil || p.DriftDefault != 5*time.Minute {
		t.Fatalf("descriptor %+v", p)
	}
	if _, ok := p.Prototype.(*hcplinkv1beta1.GCPPrivateServiceConnect); !ok {
		t.Fatalf("prototype %T", p.Prototype)
	}
	want := []string{hcplinkv1beta1.GCPServiceAttachmentAvailableCondition, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition}
	if strings.Join(p.ConditionTypes, ",") != strings.Join(want, ",") {
		t.Fatalf("condition types %v, want %v", p.ConditionTypes, want)
	}
	gcp := func(access hcplinkv1beta1.GCPEndpointAccessType) hcplinkv1beta1.PlatformSpec {
		return hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{Project: "own-project", EndpointAccess: access}}
	}
	for _, tc := range []struct {
		name     string
		platform hcplinkv1beta1.PlatformSpec
		want     bool
	}{
		{"Private", gcp(hcplinkv1beta1.GCPEndpointAccessPrivate), true},
		{"PublicAndPrivate", gcp(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate), true},
		{"Public", gcp(hcplinkv1beta1.GCPEndpointAccessPublic), false},
		{"the default, Public", gcp(""), false},
		{"GCP without its platform", hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform}, false},
		{"a private Azure cluster", hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{Topology: hcplinkv1beta1.AzureTopologyPrivate,
			Private: &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: tc.platform}}
			if got := p.IsPrivate(hc); got != tc.want {
				t.Fatalf("IsPrivate = %v, want %v", got, tc.want)
			}
			if got := platform.New(Platform(Options{})).ForCluster(hc) != nil; got != tc.want {
				t.Fatalf("the registry serves it: %v, want %v", got, tc.want)
			}
		})
	}
}

// Each finalizer names only its own side's leftovers, by name and
// project, never by URI.
func TestObjectLeaksPerFinalizer(t *testing.T) {
	o := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Name: "private-router"},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{Project: "customer-project", Region: "us-central1"},
		Status: hcplinkv1beta1.GCPPrivateServiceConnectStatus{ServiceAttachmentName: "hcplink-psc-1234abcd-demo-private-router",
			ServiceAttachmentURI: "projects/hcp-management/regions/us-central1/serviceAttachments/hcplink-psc-1234abcd-demo-private-router",
			NATSubnets:           []string{"psc-nat-a"}, EndpointName: "demo-private-router-psc", DNSZoneName: "hcplink-demo"}}
	obj := object(o)
	operator, cpo := obj.Leak(hcplinkv1beta1.OperatorFinalizer), obj.Leak(hcplinkv1beta1.ControlPlaneFinalizer)
	if !strings.Contains(operator, "service attachment hcplink-psc-1234abcd-demo-private-router") || strings.Contains(operator, "endpoint") || strings.Contains(operator, "psc-nat-a") {
		t.Errorf("operator finalizer leaks %q", operator)
	}
	if !strings.Contains(cpo, "endpoint demo-private-router-psc") || !strings.Contains(cpo, "zone hcplink-demo in project customer-project") || strings.Contains(cpo, "attachment") {
		t.Errorf("control-plane finalizer leaks %q", cpo)
	}
	empty := object(&hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: o.ObjectMeta, Spec: o.Spec})
	for name, text := range map[string]string{"operator's": operator, "control plane's": cpo, "fallback": obj.Fallback, "empty fallback": empty.Fallback} {
		if strings.Contains(text, "projects/") || strings.Contains(text, "https://") {
			t.Errorf("the %s report carries a URI: %q", name, text)
		}
	}
	if _, ok := empty.Leaks[hcplinkv1beta1.OperatorFinalizer]; ok || !strings.Contains(empty.Fallback, "no cloud resource names were recorded") {
		t.Errorf("an object that recorded nothing: %+v", empty)
	}
}

func TestLoadOptions(t *testing.T) {
	key := []byte(`{"type":"service_account"}`)
	tests := []struct {
		name        string
		given       Options
		wantNetwork string
		wantErr     string
	}{
		{"a network by name", Options{Project: "hcp-management", Region: "us-central1", Network: "management", Cloud: gcpcloud.Config{CredentialsJSON: key}},
			"projects/hcp-management/global/networks/management", ""},
		{"a Shared VPC network", Options{Project: "hcp-management", Region: "us-central1", Network: "projects/host-project/global/networks/shared", Cloud: gcpcloud.Config{CredentialsJSON: key}},
			"projects/host-project/global/networks/shared", ""},
		{"NAT subnetworks named", Options{Project: "hcp-management", Region: "us-central1", Network: "management", NATSubnets: []string{"psc-nat-a", "psc-nat-b"}, Cloud: gcpcloud.Config{CredentialsJSON: key}},
			"projects/hcp-management/global/networks/management", ""},
		{"nothing given", Options{}, "", "--gcp-project, --gcp-region, --gcp-network not set"},
		{"no network", Options{Project: "hcp-management", Region: "us-central1"}, "", "--gcp-network not set"},
		{"a project number, not an ID", Options{Project: "200000000001", Region: "us-central1", Network: "management"}, "", "--gcp-project \"200000000001\" is not a GCP project ID"},
		{"a project ID too short", Options{Project: "hcp", Region: "us-central1", Network: "management"}, "", "is not a GCP project ID"},
		{"a zone, not a region", Options{Project: "hcp-management", Region: "us-central1-a", Network: "management"}, "", "--gcp-region \"us-central1-a\" is not a GCP region"},
		{"a network URL", Options{Project: "hcp-management", Region: "us-central1", Network: "https://www.googleapis.com/compute/v1/projects/p/global/networks/n"}, "", "neither a network name nor"},
		{"a network name Google refuses", Options{Project: "hcp-management", Region: "us-central1", Network: "Management"}, "", "--gcp-network: \"Management\" is not a valid Google Cloud name"},
		{"a Shared VPC path with a bad project", Options{Project: "hcp-management", Region: "us-central1", Network: "projects/Host/global/networks/shared"}, "", "\"Host\" is not a GCP project ID"},
		{"a NAT subnetwork Google refuses", Options{Project: "hcp-management", Region: "us-central1", Network: "management", NATSubnets: []string{"psc_nat"}}, "", "--gcp-nat-subnets: \"psc_nat\" is not a valid Google Cloud name"},
		{"a NAT subnetwork named twice", Options{Project: "hcp-management", Region: "us-central1", Network: "management", NATSubnets: []string{"psc-nat-a", "psc-nat-a"}}, "", "named twice"},
		{"a person's credentials", Options{Project: "hcp-management", Region: "us-central1", Network: "management", Cloud: gcpcloud.Config{CredentialsJSON: []byte(`{"type":"authorized_user"}`)}}, "",
			"of type \"authorized_user\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Platform(tc.given).Check(); (err != nil) != (tc.wantErr != "") {
				t.Fatalf("Check() = %v", err)
			}
			o, err := loadOptions(tc.given)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || o.Network != tc.wantNetwork || o.Cloud.Component != metricsComponent {
				t.Fatalf("loadOptions = %+v, %v", o, err)
			}
		})
	}
}

// A private cluster in another region than the operator's is refused: its
// endpoint could not reach the attachment; public ones, and clusters of an
// operator serving another platform, are not the descriptor's to refuse.
func TestValidateRegion(t *testing.T) {
	p := Platform(Options{Region: "us-central1"})
	cluster := func(access hcplinkv1beta1.GCPEndpointAccessType, region string) *hcplinkv1beta1.HostedCluster {
		return &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform,
			GCP: &hcplinkv1beta1.GCPPlatformSpec{Project: "own-project", Region: region, EndpointAccess: access}}}}
	}
	for _, tc := range []struct {
		name   string
		hc     *hcplinkv1beta1.HostedCluster
		served bool
		want   int
	}{
		{"private, same region", cluster(hcplinkv1beta1.GCPEndpointAccessPrivate, "us-central1"), true, 0},
		{"private, another region", cluster(hcplinkv1beta1.GCPEndpointAccessPrivate, "europe-west4"), true, 1},
		{"public, another region", cluster(hcplinkv1beta1.GCPEndpointAccessPublic, "europe-west4"), true, 0},
		{"private, another region, another platform served", cluster(hcplinkv1beta1.GCPEndpointAccessPrivate, "europe-west4"), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := p.Validate(tc.hc, tc.served)
			if len(got) != tc.want || (tc.want > 0 && (got[0].Reason != hcplinkv1beta1.PlatformRegionMismatchReason || !strings.Contains(got[0].Message, "--gcp-region"))) {
				t.Fatalf("problems %+v", got)
			}
		})
	}
}
