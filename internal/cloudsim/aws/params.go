package aws

import (
	"sort"
	"strconv"
	"strings"
)

// Str returns a parameter ("" when absent).
func (call *Call) Str(name string) string { return call.Params.Get(name) }

// Required returns a parameter or the MissingParameter error.
func (call *Call) Required(name string) (string, *APIError) {
	v := call.Params.Get(name)
	if v == "" {
		return "", errMissingParameter(name)
	}
	return v, nil
}

// Int returns an integer parameter, def when absent.
func (call *Call) Int(name string, def int) (int, *APIError) {
	v := call.Params.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errBadRequest("InvalidParameterValue", "Value (%s) for parameter %s is invalid. Expected an integer.", v, name)
	}
	return n, nil
}

// Bool returns a boolean parameter, def when absent.
func (call *Call) Bool(name string, def bool) (bool, *APIError) {
	v := call.Params.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errBadRequest("InvalidParameterValue", "Value (%s) for parameter %s is invalid. Expected a boolean.", v, name)
	}
	return b, nil
}

// List returns an EC2-style list: Name.1, Name.2, … in index order.
func (call *Call) List(name string) []string { return indexed(call.Params, name+".") }

// Members returns a Query-style list: Name.member.1, Name.member.2, …
func (call *Call) Members(name string) []string { return indexed(call.Params, name+".member.") }

// indexed collects prefix+N values in N order (AWS numbers from 1 but
// tolerates gaps).
func indexed(params map[string][]string, prefix string) []string {
	type item struct {
		n int
		v string
	}
	var items []item
	for k, v := range params {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok || len(v) == 0 {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil {
			continue
		}
		items = append(items, item{n, v[0]})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].n < items[j].n })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

// Structs returns the distinct N of parameters named prefix.N.<field>, in
// order, for lists of structures (Filter.N.Name, TagSpecification.N.…).
func (call *Call) Structs(prefix string) []string {
	seen := map[int]bool{}
	var ns []int
	for k := range call.Params {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		numStr, _, found := strings.Cut(rest, ".")
		if !found {
			continue
		}
		n, err := strconv.Atoi(numStr)
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		ns = append(ns, n)
	}
	sort.Ints(ns)
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = prefix + "." + strconv.Itoa(n)
	}
	return out
}

// Filter is one EC2 Filter.N: a name and the values any of which may match.
type Filter struct {
	Name   string
	Values []string
}

// Filters returns the request's Filter.N list.
func (call *Call) Filters() []Filter {
	var out []Filter
	for _, p := range call.Structs("Filter") {
		out = append(out, Filter{Name: call.Params.Get(p + ".Name"), Values: call.List(p + ".Value")})
	}
	return out
}

// TagSpecifications returns the tags a create call asks for on resourceType
// (TagSpecification.N.ResourceType / .Tag.M.Key / .Tag.M.Value).
func (call *Call) TagSpecifications(resourceType string) map[string]string {
	tags := map[string]string{}
	for _, p := range call.Structs("TagSpecification") {
		if rt := call.Params.Get(p + ".ResourceType"); rt != "" && rt != resourceType {
			continue
		}
		for _, t := range call.Structs(p + ".Tag") {
			tags[call.Params.Get(t+".Key")] = call.Params.Get(t + ".Value")
		}
	}
	return tags
}

// EC2Tags returns Tag.N.Key / Tag.N.Value pairs (CreateTags, DeleteTags).
// A key with no Value parameter maps to nil value presence: see EC2TagKeys.
func (call *Call) EC2Tags() map[string]string {
	tags := map[string]string{}
	for _, t := range call.Structs("Tag") {
		tags[call.Params.Get(t+".Key")] = call.Params.Get(t + ".Value")
	}
	return tags
}

// EC2TagValueGiven reports whether Tag.N.Value was sent for the given key,
// which DeleteTags uses to tell "delete whatever the value" from "delete
// only with this value".
func (call *Call) EC2TagValueGiven(key string) bool {
	for _, t := range call.Structs("Tag") {
		if call.Params.Get(t+".Key") == key {
			_, given := call.Params[t+".Value"]
			return given
		}
	}
	return false
}

// MemberTags returns Query-style Tags.member.N.Key / .Value pairs (ELBv2, IAM).
func (call *Call) MemberTags(name string) map[string]string {
	tags := map[string]string{}
	for _, t := range call.Structs(name + ".member") {
		tags[call.Params.Get(t+".Key")] = call.Params.Get(t + ".Value")
	}
	return tags
}
