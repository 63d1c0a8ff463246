package azure

import "strings"

// Decision counts how often one action was allowed and denied for one
// principal.
type Decision struct {
	Allowed int `json:"allowed"`
	Denied  int `json:"denied"`
}

// evaluationLog is what was decided for each principal (by lower-cased
// object ID), by action: the evidence a least-privilege test compares
// with the principal's role. Guarded by Cloud.mu.
type evaluationLog map[string]map[string]*Decision

func (l evaluationLog) record(principalID, action string, allowed bool) {
	key := strings.ToLower(principalID)
	byAction := l[key]
	if byAction == nil {
		byAction = map[string]*Decision{}
		l[key] = byAction
	}
	d := byAction[action]
	if d == nil {
		d = &Decision{}
		byAction[action] = d
	}
	if allowed {
		d.Allowed++
	} else {
		d.Denied++
	}
}

// Evaluations returns every action evaluated for a principal (its object
// ID, as role assignments name it), linked actions included, and what was
// decided.
func (c *Cloud) Evaluations(principalID string) map[string]Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]Decision{}
	for action, d := range c.evaluations[strings.ToLower(principalID)] {
		out[action] = *d
	}
	return out
}

// ForgetEvaluations clears what was recorded for a principal.
func (c *Cloud) ForgetEvaluations(principalID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.evaluations, strings.ToLower(principalID))
}
