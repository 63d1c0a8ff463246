package gcp

import (
	"testing"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Which figure a call gets: the project's last override that covers its
// service and group, else the fault configuration's while throttling is
// on, else none.
func TestQuotaLimit(t *testing.T) {
	defaults := sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		computeService: {NonMutating: sim.Limit{Burst: 1500}, Mutating: sim.Limit{Burst: 1000}},
	}}
	overrides := map[string][]QuotaOverride{
		"low-reads":  {{Service: computeService, Group: QuotaGroupRead, PerMinute: 5}},
		"low-all":    {{PerMinute: 7}},
		"later-wins": {{PerMinute: 7}, {Service: dnsService, Group: QuotaGroupWrite, PerMinute: 2}},
		"zero":       {{Service: computeService, PerMinute: 0}},
	}
	for _, tc := range []struct {
		name, project, service, group string
		cfg                           sim.Throttling
		want                          int
		wantOverridden, wantLimited   bool
	}{
		{"a project without overrides gets the default read figure", "other", computeService, QuotaGroupRead, defaults, 1500, false, true},
		{"and the default write figure", "other", computeService, QuotaGroupWrite, defaults, 1000, false, true},
		{"a service without a default is not limited", "other", dnsService, QuotaGroupRead, defaults, 0, false, false},
		{"throttling off limits nothing", "other", computeService, QuotaGroupRead, sim.Throttling{Services: defaults.Services}, 0, false, false},
		{"the override of the group", "low-reads", computeService, QuotaGroupRead, defaults, 5, true, true},
		{"another group keeps the default", "low-reads", computeService, QuotaGroupWrite, defaults, 1000, false, true},
		{"another service keeps the default", "low-reads", dnsService, QuotaGroupRead, defaults, 0, false, false},
		{"an override of every group and service", "low-all", dnsService, QuotaGroupWrite, defaults, 7, true, true},
		{"overrides apply with throttling off", "low-all", computeService, QuotaGroupRead, sim.Throttling{}, 7, true, true},
		{"the last covering override decides", "later-wins", dnsService, QuotaGroupWrite, defaults, 2, true, true},
		{"an earlier one covers the rest", "later-wins", dnsService, QuotaGroupRead, defaults, 7, true, true},
		{"zero refuses every call", "zero", computeService, QuotaGroupWrite, defaults, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &quotaWindows{overrides: overrides}
			got, overridden, limited := q.limit(tc.cfg, tc.project, tc.service, tc.group)
			if got != tc.want || overridden != tc.wantOverridden || limited != tc.wantLimited {
				t.Errorf("limit = %d, overridden %v, limited %v; want %d, %v, %v", got, overridden, limited, tc.want, tc.wantOverridden, tc.wantLimited)
			}
		})
	}
}

func TestQuotaOverrideValidation(t *testing.T) {
	for _, tc := range []struct {
		o  QuotaOverride
		ok bool
	}{
		{QuotaOverride{PerMinute: 3}, true},
		{QuotaOverride{Service: computeService, Group: QuotaGroupRead, PerMinute: 0}, true},
		{QuotaOverride{Service: "storage.googleapis.com", PerMinute: 3}, false},
		{QuotaOverride{Group: "reads", PerMinute: 3}, false},
		{QuotaOverride{PerMinute: -1}, false},
	} {
		if err := tc.o.validate(); (err == nil) != tc.ok {
			t.Errorf("validate(%+v) = %v, want ok %v", tc.o, err, tc.ok)
		}
	}
}
