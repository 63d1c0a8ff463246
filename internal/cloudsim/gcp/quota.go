package gcp

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
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
//
// A project may have its own figures (QuotaOverride), as a quota override
// on a consumer project sets a lower limit than the default
// (https://cloud.google.com/docs/quotas/view-manage: "quota overrides"):
// they apply to that project's calls only, whether the fault
// configuration's throttling is on or not.

// DefaultQuotas are Compute Engine's default per-project rate quotas,
// GlobalReadsPerMinutePerProject and GlobalWritesPerMinutePerProject, both
// 1,500 (https://cloud.google.com/compute/api-quota).
func DefaultQuotas() map[string]sim.ServiceLimits {
	return map[string]sim.ServiceLimits{
		computeService: {NonMutating: sim.Limit{Burst: 1500}, Mutating: sim.Limit{Burst: 1500}},
	}
}

// The quota groups an override names.
const (
	QuotaGroupRead  = "read"
	QuotaGroupWrite = "write"
)

// QuotaOverride is one project's own per-minute figure for a quota group.
// Service is compute.googleapis.com or dns.googleapis.com ("" both), Group
// QuotaGroupRead or QuotaGroupWrite ("" both). PerMinute 0 refuses every
// call of the group, as an override of 0 does on Google Cloud. Cloud DNS
// still counts per IAM user: each user's calls on the project get the
// figure.
type QuotaOverride struct {
	Service   string `json:"service,omitempty"`
	Group     string `json:"group,omitempty"`
	PerMinute int    `json:"perMinute"`
}

// ProjectQuotaOverride is an override with the project it belongs to, as
// the control API lists them.
type ProjectQuotaOverride struct {
	ProjectID string `json:"projectId"`
	QuotaOverride
}

func (o QuotaOverride) validate() error {
	if o.Service != "" && o.Service != computeService && o.Service != dnsService {
		return fmt.Errorf("service %q: %s, %s or empty for both", o.Service, computeService, dnsService)
	}
	if o.Group != "" && o.Group != QuotaGroupRead && o.Group != QuotaGroupWrite {
		return fmt.Errorf("group %q: %s, %s or empty for both", o.Group, QuotaGroupRead, QuotaGroupWrite)
	}
	if o.PerMinute < 0 {
		return fmt.Errorf("perMinute %d: a count of calls, 0 or more", o.PerMinute)
	}
	return nil
}

// matches reports whether the override covers a call of service in group.
func (o QuotaOverride) matches(service, group string) bool {
	return (o.Service == "" || o.Service == service) && (o.Group == "" || o.Group == group)
}

type quotaWindows struct {
	mu        sync.Mutex
	counts    map[quotaKey]int
	overrides map[string][]QuotaOverride // by project ID
}

type quotaKey struct {
	scope, service, group string
	window                time.Time
}

func newQuotaWindows() *quotaWindows {
	return &quotaWindows{counts: map[quotaKey]int{}, overrides: map[string][]QuotaOverride{}}
}

// reset empties the windows; the overrides stay.
func (q *quotaWindows) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.counts = map[quotaKey]int{}
}

// forget empties the windows and drops every override, with the projects
// they were for.
func (q *quotaWindows) forget() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.counts, q.overrides = map[quotaKey]int{}, map[string][]QuotaOverride{}
}

// SetQuotaOverrides replaces a project's overrides (none: the project
// follows the fault configuration again). The last override that covers a
// call decides its figure.
func (c *Cloud) SetQuotaOverrides(projectID string, overrides []QuotaOverride) error {
	for _, o := range overrides {
		if err := o.validate(); err != nil {
			return err
		}
	}
	c.mu.Lock()
	p := c.project(projectID)
	c.mu.Unlock()
	if p == nil || p.ID != projectID {
		return fmt.Errorf("project %s: %w", projectID, ErrNoProject)
	}
	q := c.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(overrides) == 0 {
		delete(q.overrides, projectID)
		return nil
	}
	q.overrides[projectID] = slices.Clone(overrides)
	return nil
}

// QuotaOverrides lists every project's overrides, by project ID.
func (c *Cloud) QuotaOverrides() []ProjectQuotaOverride {
	q := c.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	out := []ProjectQuotaOverride{}
	for project, overrides := range q.overrides {
		for _, o := range overrides {
			out = append(out, ProjectQuotaOverride{ProjectID: project, QuotaOverride: o})
		}
	}
	slices.SortStableFunc(out, func(a, b ProjectQuotaOverride) int { return strings.Compare(a.ProjectID, b.ProjectID) })
	return out
}

// ErrNoProject: the control API was asked about a project cloudsim does not have.
var ErrNoProject = errors.New("no such project")

// limit is the per-minute figure for a call of service in group on the
// project: the project's override if one covers it, else the fault
// configuration's when throttling is on; ok false when nothing limits it.
func (q *quotaWindows) limit(cfg sim.Throttling, projectID, service, group string) (limit int, overridden, ok bool) {
	for _, o := range slices.Backward(q.overrides[projectID]) {
		if o.matches(service, group) {
			return o.PerMinute, true, true
		}
	}
	limits, found := cfg.Services[service]
	if !cfg.Enabled || !found {
		return 0, false, false
	}
	n := limits.Mutating.Burst
	if group == QuotaGroupRead {
		n = limits.NonMutating.Burst
	}
	return int(n), false, n > 0
}

// takeQuota counts the call in its project's window, or refuses it.
func (c *Cloud) takeQuota(x *call, projectID string) *Error {
	if projectID == "" {
		return nil
	}
	service := x.api.service
	group, metric := QuotaGroupWrite, "Write requests"
	if isRead(x.api.method) {
		group, metric = QuotaGroupRead, "Read requests"
	}
	q := c.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	limit, overridden, ok := q.limit(c.faults.Get().Throttling, projectID, service, group)
	if !ok {
		return nil
	}
	scope, status, consumer := projectID, http.StatusForbidden, "project:"+projectID
	if service == dnsService {
		scope, status, consumer = x.principal, http.StatusTooManyRequests, "user:"+principalEmail(x.principal)
		if overridden { // the project's own figure, for each user's calls on it
			scope += " on " + projectID
		}
	}
	key := quotaKey{scope: scope, service: service, group: group, window: c.clock.Now().Truncate(time.Minute)}
	if q.counts[key] >= limit {
		return &Error{Code: status, Reason: "rateLimitExceeded", Message: fmt.Sprintf(
			"Quota exceeded for quota metric '%s' and limit '%s per minute' of service '%s' for consumer '%s'.",
			metric, metric, service, consumer)}
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
