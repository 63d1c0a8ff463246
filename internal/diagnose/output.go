package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// Formats of Write.
const (
	FormatText = "text"
	FormatJSON = "json"
	FormatYAML = "yaml"
)

// Write prints the report in format (text, json or yaml).
func Write(w io.Writer, r Report, format string) error {
	switch format {
	case "", FormatText:
		_, err := io.WriteString(w, Text(r))
		return err
	case FormatJSON:
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case FormatYAML:
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("unknown output format %q: use text, json or yaml", format)
}

// Text is the report for a terminal: one line per hop, then what was seen
// and, on a broken hop, what to do; a summary line last.
func Text(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Private path of %s (%s; management %s, customer %s)\n", r.Cluster, orNone(r.Platform), orNone(r.Management), orNone(r.Customer))
	for _, h := range r.Hops {
		fmt.Fprintf(&b, "%s %-22s [%s]\n", h.Verdict.Mark(), r.Where(h), h.Side)
		if h.Seen != "" {
			fmt.Fprintf(&b, "    seen: %s\n", h.Seen)
		}
		if h.Fix != "" {
			fmt.Fprintf(&b, "    fix:  %s\n", h.Fix)
		}
		if h.Why != "" {
			fmt.Fprintf(&b, "    not checked: %s\n", h.Why)
		}
		if h.Note != "" {
			fmt.Fprintf(&b, "    note: %s\n", h.Note)
		}
	}
	b.WriteString(summary(r) + "\n")
	return b.String()
}

func summary(r Report) string {
	switch r.ExitCode() {
	case ExitHealthy:
		return "Healthy: every hop holds."
	case ExitBroken:
		return "Broken at " + r.Where(*r.FirstFailure()) + "."
	}
	return "Nothing broken among the hops checked, but some could not be checked (see ?)."
}
