package diagnose

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden pictures in testdata")

// TestSVGGolden keeps the pictures of a healthy and a broken cluster on
// each cloud byte for byte; run with -update after a deliberate change and
// look at the new pictures.
func TestSVGGolden(t *testing.T) {
	for _, tc := range []struct {
		file   string
		report Report
		broken string // the hop drawn red, "" when healthy
	}{
		{"aws-healthy.svg", awsReport(false), ""},
		{"aws-broken.svg", awsReport(true), HopEndpointService},
		{"azure-healthy.svg", azureReport(false), ""},
		{"azure-broken.svg", azureReport(true), HopPrivateLinkService},
		{"gcp-healthy.svg", gcpReport(false), ""},
		{"gcp-broken.svg", gcpReport(true), HopServiceAttachment},
		{"aws-two-endpoints-healthy.svg", awsTwoEndpointReport(false), ""},
		{"aws-two-endpoints-broken.svg", awsTwoEndpointReport(true), HopRecords},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := SVG(tc.report)
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading the golden picture (run with -update to write it): %v", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the picture drawn now; run with -update and look at it", path)
			}
			reds := strings.Count(got, `stroke="#c62828"`)
			if tc.broken == "" && reds != 0 {
				t.Errorf("a healthy cluster has %d red boxes", reds)
			}
			if tc.broken != "" && (reds != 1 || !strings.Contains(got, "✗  "+tc.broken)) {
				t.Errorf("want exactly the %s box red, got %d red boxes", tc.broken, reds)
			}
		})
	}
}
