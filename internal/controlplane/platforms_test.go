package controlplane

import (
	"reflect"
	"strings"
	"testing"
)

func TestServing(t *testing.T) {
	registry := Platforms()
	for _, tt := range []struct {
		name    string
		want    []string
		wantErr string
	}{
		{name: "", want: []string{"AWS", "Azure", "GCP"}},
		{name: "AWS", want: []string{"AWS"}},
		{name: "Azure", want: []string{"Azure"}},
		{name: "GCP", want: []string{"GCP"}},
		{name: "aws", wantErr: `serves no platform "aws" (--platform): use one of AWS, Azure, GCP`},
		{name: "None", wantErr: `serves no platform "None"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Serving(registry, tt.name)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Serving(%q) = %v, want an error containing %q", tt.name, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range got {
				names = append(names, p.Name)
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("Serving(%q) = %v, want %v", tt.name, names, tt.want)
			}
		})
	}
}

// TestPlatformNamesAreTheirTypes: the management operator renders
// --platform as the cluster's platform type, so each platform's name must
// be its type.
func TestPlatformNamesAreTheirTypes(t *testing.T) {
	for _, p := range Platforms().All() {
		if p.Name != string(p.Type) {
			t.Errorf("platform %q serves type %q: --platform <type> would not find it", p.Name, p.Type)
		}
	}
}
