package crd

import (
	"testing"
)

func TestCustomResourceDefinitions(t *testing.T) {
	crds, err := CustomResourceDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"hostedclusters.hcplink.io":            "hc",
		"nodepools.hcplink.io":                 "np",
		"hostedcontrolplanes.hcplink.io":       "hcp",
		"awsendpointservices.hcplink.io":       "awsep",
		"azureprivatelinkservices.hcplink.io":  "azpls",
		"gcpprivateserviceconnects.hcplink.io": "gcppsc",
	}
	if len(crds) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(crds), len(want))
	}
	for _, crd := range crds {
		short, ok := want[crd.Name]
		if !ok {
			t.Errorf("unexpected CRD %s", crd.Name)
			continue
		}
		if got := crd.Spec.Names.ShortNames; len(got) != 1 || got[0] != short {
			t.Errorf("%s: short names %v, want [%s]", crd.Name, got, short)
		}
		if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Subresources == nil || crd.Spec.Versions[0].Subresources.Status == nil {
			t.Errorf("%s: want one version with a status subresource", crd.Name)
		}
	}
}
