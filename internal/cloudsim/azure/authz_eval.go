package azure

import (
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Decision counts how often one action was allowed and denied for one
// principal.
type Decision = sim.Evaluation

// The evaluation log (Cloud.evaluations, a sim.EvaluationLog) is kept by
// lower-cased object ID, as role assignments name principals; guarded by
// Cloud.mu.

// Evaluations returns every action evaluated for a principal (its object
// ID, as role assignments name it), linked actions included, and what was
// decided.
func (c *Cloud) Evaluations(principalID string) map[string]Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.evaluations.Of(strings.ToLower(principalID))
}

// ForgetEvaluations clears what was recorded for a principal.
func (c *Cloud) ForgetEvaluations(principalID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.evaluations, strings.ToLower(principalID))
}
