package sim

// Evaluation counts how often one identity was allowed or denied one action
// (an IAM action, an Azure RBAC action, a GCP permission).
type Evaluation struct {
	Allowed int `json:"allowed"`
	Denied  int `json:"denied"`
}

// EvaluationLog is what each cloud's authorization decided, by identity
// then action: the evidence a least-privilege test compares with what the
// identity was granted. It is not safe for concurrent use; each cloud
// guards it with its own lock.
type EvaluationLog map[string]map[string]*Evaluation

// Record counts one decision.
func (l EvaluationLog) Record(identity, action string, allowed bool) {
	byAction := l[identity]
	if byAction == nil {
		byAction = map[string]*Evaluation{}
		l[identity] = byAction
	}
	d := byAction[action]
	if d == nil {
		d = &Evaluation{}
		byAction[action] = d
	}
	if allowed {
		d.Allowed++
	} else {
		d.Denied++
	}
}

// Of is a copy of one identity's decisions, by action (empty, never nil,
// when nothing was decided for it).
func (l EvaluationLog) Of(identity string) map[string]Evaluation {
	out := map[string]Evaluation{}
	for action, d := range l[identity] {
		out[action] = *d
	}
	return out
}
