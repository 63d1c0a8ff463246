package aws

import (
	"encoding/json"
	"strings"
)

// Trust-policy evaluation for STS: does a role's AssumeRolePolicyDocument
// let this principal perform this action? An explicit Deny wins over any
// Allow; nothing allowed means denied. Conditions support the String*,
// Arn*, Bool and Null operators (with IfExists), which is what our trust
// and identity policies use;
// a condition on a key the request does not carry is false, as on AWS.

// trustRequest is what one AssumeRole* call asks.
type trustRequest struct {
	action string // sts:AssumeRole, sts:AssumeRoleWithWebIdentity
	// principalMatches answers whether an entry of the statement's
	// Principal block (kind AWS, Federated or Service) names the caller.
	principalMatches func(kind, entry string) bool
	// context holds the request's condition keys, lower-cased.
	context map[string][]string
}

// trustAllows evaluates the document; an unparsable one allows nothing.
func trustAllows(doc string, req trustRequest) bool {
	var policy struct {
		Statement json.RawMessage `json:"Statement"`
	}
	if json.Unmarshal([]byte(doc), &policy) != nil {
		return false
	}
	var statements []map[string]any
	if json.Unmarshal(policy.Statement, &statements) != nil {
		var one map[string]any
		if json.Unmarshal(policy.Statement, &one) != nil {
			return false
		}
		statements = []map[string]any{one}
	}
	allowed := false
	for _, st := range statements {
		if !statementApplies(st, req) {
			continue
		}
		if st["Effect"] == "Deny" {
			return false
		}
		if st["Effect"] == "Allow" {
			allowed = true
		}
	}
	return allowed
}

func statementApplies(st map[string]any, req trustRequest) bool {
	if a, ok := st["Action"]; ok {
		if !anyPatternMatches(stringsOf(a), req.action) {
			return false
		}
	} else if na, ok := st["NotAction"]; ok {
		if anyPatternMatches(stringsOf(na), req.action) {
			return false
		}
	} else {
		return false
	}
	if !principalApplies(st["Principal"], req) {
		return false
	}
	cond, _ := st["Condition"].(map[string]any)
	return conditionsHold(cond, req.context)
}

func principalApplies(p any, req trustRequest) bool {
	switch v := p.(type) {
	case string:
		return v == "*"
	case map[string]any:
		for kind, entries := range v {
			for _, e := range stringsOf(entries) {
				if e == "*" && kind == "AWS" {
					return true
				}
				if req.principalMatches(kind, e) {
					return true
				}
			}
		}
	}
	return false
}

// anyPatternMatches matches IAM action patterns: case-insensitive, with * and ?.
func anyPatternMatches(patterns []string, value string) bool {
	for _, p := range patterns {
		if wildcardMatch(strings.ToLower(p), strings.ToLower(value)) {
			return true
		}
	}
	return false
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// conditionsHold requires every operator's every key to hold.
func conditionsHold(cond map[string]any, ctx map[string][]string) bool {
	for op, block := range cond {
		keys, ok := block.(map[string]any)
		if !ok {
			return false
		}
		for key, want := range keys {
			if !conditionHolds(op, ctx[strings.ToLower(key)], stringsOf(want)) {
				return false
			}
		}
	}
	return true
}

func conditionHolds(op string, have, want []string) bool {
	ifExists := strings.HasSuffix(op, "IfExists")
	op = strings.TrimSuffix(op, "IfExists")
	forAll := strings.HasPrefix(op, "ForAllValues:")
	op = strings.TrimPrefix(strings.TrimPrefix(op, "ForAllValues:"), "ForAnyValue:")
	if op == "Null" {
		// "Null": {"key": "true"} holds when the request lacks the key.
		return len(want) == 1 && (want[0] == "true") == (len(have) == 0)
	}
	if len(have) == 0 {
		return ifExists || forAll
	}
	var match func(h, w string) bool
	negate := false
	switch op {
	case "StringEquals":
		match = func(h, w string) bool { return h == w }
	case "StringNotEquals":
		match, negate = func(h, w string) bool { return h == w }, true
	case "StringEqualsIgnoreCase":
		match = strings.EqualFold
	case "StringNotEqualsIgnoreCase":
		match, negate = strings.EqualFold, true
	case "StringLike", "ArnLike", "ArnEquals":
		match = func(h, w string) bool { return wildcardMatch(w, h) }
	case "StringNotLike", "ArnNotLike", "ArnNotEquals":
		match, negate = func(h, w string) bool { return wildcardMatch(w, h) }, true
	case "Bool":
		match = strings.EqualFold
	default:
		return false // an operator cloudsim does not evaluate never grants access
	}
	matchesAny := func(h string) bool {
		for _, w := range want {
			if match(h, w) {
				return true
			}
		}
		return false
	}
	if forAll {
		for _, h := range have {
			if matchesAny(h) == negate {
				return false
			}
		}
		return true
	}
	for _, h := range have {
		if matchesAny(h) {
			return !negate
		}
	}
	return negate
}
