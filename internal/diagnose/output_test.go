package diagnose

import (
	"bytes"
	"encoding/json"
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
