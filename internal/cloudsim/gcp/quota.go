package gcp

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Rate quotas. Google counts requests in per-minute windows that refill at
// the start of the next minute, one count per quota group. The figures live
// in sim.FaultConfig's Throttling, under the service's name, as per-minute
// numbers in Burst: NonMutating for reads (get, list, operations), Mutating
// for writes. PerSecond is not used.
//
//   - Compute Engine counts per project and answers 403 rateLimitExceeded
//     (https://cloud.google.com/compute/api-quota: "If your project exceeds a
//     rate quota, you receive a 403 error with the reason rateLimitExceeded").
//   - Cloud DNS counts per IAM user per minute
//     (https://cloud.google.com/dns/quotas: "the maximum number of API
//     requests that an IAM user can make to the Cloud DNS API within a
//     one-minute time period"); the page publishes no default figure, so
//     DefaultQuotas leaves it out. Exceeded, it answers as Google's quota
//     system does: 429 RESOURCE_EXHAUSTED, reason rateLimitExceeded.

// DefaultQuotas are Compute Engine's default per-project rate quotas,
// GlobalReadsPerMinutePerProject and GlobalWritesPerMinutePerProject, both
// 1,500 (https://cloud.google.com/compute/api-quota).
func DefaultQuotas() map[string]sim.ServiceLimits {
	return map[string]sim.ServiceLimits{
		computeService: {NonMutating: sim.Limit{Burst: 1500}, Mutating: sim.Limit{Burst: 1500}},
	}
}

type quotaWindows struct {
	mu     sync.Mutex
	counts map[quotaKey]int
}

type quotaKey struct {
	scope, service, group string
	window                time.Time
}

func newQuotaWindows() *quotaWindows { return &quotaWindows{counts: map[quotaKey]int{}} }

func (q *quotaWindows) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.counts = map[quotaKey]int{}
}

// takeQuota counts the call in its project's window, or refuses it.
func (c *Cloud) takeQuota(x *call, projectID string) *Error {
	cfg := c.faults.Get().Throttling
	limits, ok := cfg.Services[x.api.service]
	if !cfg.Enabled || !ok || projectID == "" {
		return nil
	}
	group, limit := "Write requests", limits.Mutating.Burst
	if isRead(x.api.method) {
		group, limit = "Read requests", limits.NonMutating.Burst
	}
	if limit <= 0 {
		return nil
	}
	scope, status, consumer := projectID, http.StatusForbidden, "project:"+projectID
	if x.api.service == dnsService {
		scope, status, consumer = x.principal, http.StatusTooManyRequests, "user:"+principalEmail(x.principal)
	}
	key := quotaKey{scope: scope, service: x.api.service, group: group, window: c.clock.Now().Truncate(time.Minute)}
	q := c.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.counts[key] >= int(limit) {
		return &Error{Code: status, Reason: "rateLimitExceeded", Message: fmt.Sprintf(
			"Quota exceeded for quota metric '%s' and limit '%s per minute' of service '%s' for consumer '%s'.",
			group, group, x.api.service, consumer)}
	}
	for k := range q.counts {
		if k.window.Before(key.window) {
			delete(q.counts, k)
		}
	}
	q.counts[key]++
	return nil
}

func isRead(method string) bool {
	verb := method[strings.LastIndex(method, ".")+1:]
	switch verb {
	case "get", "list", "aggregatedList", "wait", "getIamPolicy":
		return true
	}
	return false
}
