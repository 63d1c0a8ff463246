package gcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Compute Engine's list filter
// (https://cloud.google.com/compute/docs/reference/rest/v1/forwardingRules/list):
// terms "field = value", "field != value", "field:value" (has), and the older
// "field eq regex" / "field ne regex", joined by AND (parentheses allowed
// around terms). Fields are JSON names, nested with dots (labels.owner).
// A link field compared with "=" also matches its resource name alone
// (network = management), a convenience of cloudsim's.
// OR and functions are not modelled and are refused as invalid.

type filterTerm struct {
	field  string
	op     string // "=", "!=", ":", "eq", "ne"
	value  string
	regexp *regexp.Regexp
}

var termPattern = regexp.MustCompile(`^\s*\(?\s*([A-Za-z][A-Za-z0-9_.-]*)\s*(!=|=|:|\beq\b|\bne\b)\s*(.*?)\s*\)?\s*$`)

func parseFilter(filter string) ([]filterTerm, *Error) {
	filter = strings.TrimSpace(filter)
	if filter == "" {
		return nil, nil
	}
	var terms []filterTerm
	for _, part := range splitAnd(filter) {
		m := termPattern.FindStringSubmatch(part)
		if m == nil || strings.Contains(strings.ToUpper(part), " OR ") {
			return nil, errInvalid("Invalid list filter expression '%s'.", filter)
		}
		t := filterTerm{field: m[1], op: m[2], value: unquote(m[3])}
		if t.op == "eq" || t.op == "ne" {
			re, err := regexp.Compile("^(?:" + t.value + ")$")
			if err != nil {
				return nil, errInvalid("Invalid regular expression in list filter: '%s'.", t.value)
			}
			t.regexp = re
		}
		terms = append(terms, t)
	}
	return terms, nil
}

func splitAnd(filter string) []string {
	return regexp.MustCompile(`(?i)\)\s*AND\s*\(|\s+AND\s+|\)\s+\(`).Split(filter, -1)
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// filterItems keeps the items every term matches.
func filterItems(filter string, items []any) ([]any, *Error) {
	terms, err := parseFilter(filter)
	if err != nil || len(terms) == 0 {
		if items == nil {
			items = []any{}
		}
		return items, err
	}
	out := []any{}
	for _, item := range items {
		var fields map[string]any
		raw, _ := json.Marshal(item)
		_ = json.Unmarshal(raw, &fields)
		if matchesAll(terms, fields) {
			out = append(out, item)
		}
	}
	return out, nil
}

func matchesAll(terms []filterTerm, fields map[string]any) bool {
	for _, t := range terms {
		if !t.matches(lookup(fields, t.field)) {
			return false
		}
	}
	return true
}

func (t filterTerm) matches(v any) bool {
	s := ""
	if v != nil {
		s = fmt.Sprint(v)
	}
	switch t.op {
	case "=":
		return s == t.value || v != nil && lastSegment(s) == t.value && strings.Contains(s, "/")
	case "!=":
		return s != t.value
	case ":":
		return v != nil && (t.value == "*" || strings.Contains(s, t.value))
	case "eq":
		return t.regexp.MatchString(s)
	}
	return !t.regexp.MatchString(s) // ne
}

func lookup(fields map[string]any, path string) any {
	var cur any = fields
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}
