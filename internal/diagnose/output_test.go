package diagnose

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestWriteFormats(t *testing.T) {
	r := awsReport(true)
	for _, format := range []string{FormatText, FormatJSON, FormatYAML} {
		var buf bytes.Buffer
		if err := Write(&buf, r, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var back Report
		switch format {
		case FormatText:
			out := buf.String()
			if !strings.Contains(out, "✗ endpoint service") || !strings.Contains(out, "fix:  Allow principal") || !strings.HasSuffix(out, "Broken at endpoint service.\n") {
				t.Errorf("text output lacks the broken hop or its fix:\n%s", out)
			}
			continue
		case FormatJSON:
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
				t.Fatalf("json: %v", err)
			}
		case FormatYAML:
			if err := yaml.Unmarshal(buf.Bytes(), &back); err != nil {
				t.Fatalf("yaml: %v", err)
			}
		}
		if len(back.Hops) != len(r.Hops) || back.FirstFailure().Name != HopEndpointService || back.Hops[4].Verdict != Fail {
			t.Errorf("%s does not round-trip: %+v", format, back)
		}
	}
	if err := Write(&bytes.Buffer{}, r, "xml"); err == nil {
		t.Error("an unknown format is accepted")
	}
}

// TestJSONKeysAreTheSameOnEveryCloud: a script reads a GCP report with the
// keys it reads an AWS one with.
func TestJSONKeysAreTheSameOnEveryCloud(t *testing.T) {
	keys := func(r Report) (top, hop []string) {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for k := range doc {
			top = append(top, k)
		}
		seen := map[string]bool{}
		for _, h := range doc["hops"].([]any) {
			for k := range h.(map[string]any) {
				if !seen[k] {
					seen[k] = true
					hop = append(hop, k)
				}
			}
		}
		slices.Sort(top)
		slices.Sort(hop)
		return top, hop
	}
	awsTop, _ := keys(awsReport(true))
	gcpTop, gcpHop := keys(gcpReport(true))
	if !slices.Equal(gcpTop, awsTop) {
		t.Errorf("GCP report keys %v, AWS %v", gcpTop, awsTop)
	}
	if want := []string{"endpoint", "fix", "name", "seen", "side", "verdict"}; !slices.Equal(gcpHop, want) {
		t.Errorf("GCP hop keys %v, want %v", gcpHop, want)
	}
}
