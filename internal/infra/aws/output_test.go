package aws

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestOutputRender(t *testing.T) {
	out := &Output{Region: "us-east-1", InfraID: "i1", MachineCIDR: "10.0.0.0/16", VPCID: "vpc-1", Name: "c", BaseDomain: "example.com",
		Zones: []ZoneOutput{{Name: "us-east-1a", SubnetID: "subnet-1"}}, PublicZoneID: "Z1", PrivateZoneID: "Z2", LocalZoneID: "Z3"}
	for _, format := range []string{FormatJSON, FormatYAML} {
		b, err := out.Render(format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var back Output
		if format == FormatYAML {
			err = yaml.Unmarshal(b, &back)
		} else {
			err = json.Unmarshal(b, &back)
		}
		if err != nil || back.LocalZoneID != "Z3" || back.Zones[0].SubnetID != "subnet-1" || !strings.Contains(string(b), "infraID") {
			t.Errorf("%s output %s does not read back (%v)", format, b, err)
		}
	}
	text, err := out.Render(FormatText)
	if err != nil || !strings.Contains(string(text), "Subnet us-east-1a") || !strings.Contains(string(text), "Z3 (c.hypershift.local)") {
		t.Errorf("text output:\n%s (%v)", text, err)
	}
	if _, err := out.Render("xml"); err == nil {
		t.Error("an unknown format is accepted")
	}
}
