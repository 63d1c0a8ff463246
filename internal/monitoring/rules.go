// Package monitoring renders what a Prometheus and a Grafana need to watch
// hcplink: the alerting rules (as a PrometheusRule for the Prometheus
// Operator, or a plain rule file) and a dashboard, both built on the
// metrics the operators serve (internal/metrics, internal/cloud).
package monitoring

import (
	"fmt"
	"time"

	"sigs.k8s.io/yaml"
)

// RuleOptions tune the alerts; the zero value is the defaults.
type RuleOptions struct {
	// UnavailableFor is how long a HostedCluster may be not Available
	// before HcplinkHostedClusterUnavailable fires (default 15 minutes).
	UnavailableFor time.Duration
}

// RuleGroup and Rule are Prometheus's rule file format.
type RuleGroup struct {
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
}

type Rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// The alerts, by name: tests and runbooks refer to them.
const (
	AlertClusterUnavailable  = "HcplinkHostedClusterUnavailable"
	AlertThrottlingSustained = "HcplinkCloudThrottlingSustained"
	AlertSuspectedLeak       = "HcplinkSuspectedCloudLeak"
	AlertCredentialsInvalid  = "HcplinkCloudCredentialsInvalid"
	AlertClusterCredentials  = "HcplinkClusterCloudCredentialsInvalid"
)

// Rules are hcplink's alerting rules.
func Rules(opts RuleOptions) []RuleGroup {
	unavailableFor := opts.UnavailableFor
	if unavailableFor <= 0 {
		unavailableFor = 15 * time.Minute
	}
	return []RuleGroup{{Name: "hcplink", Rules: []Rule{
		{
			Alert:  AlertClusterUnavailable,
			Expr:   `max by (namespace, name, platform, reason) (hcplink_hostedcluster_available) == 0`,
			For:    promDuration(unavailableFor),
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary":     "HostedCluster {{ $labels.namespace }}/{{ $labels.name }} has not been Available for " + promDuration(unavailableFor) + " ({{ $labels.reason }}).",
				"description": "Its private path from the workers to the control plane is not working. Run `hcplink diagnose {{ $labels.namespace }}/{{ $labels.name }}` to see which hop fails and what to do.",
			},
		},
		{
			Alert: AlertThrottlingSustained,
			Expr: `sum by (component, service, operation) (rate(hcplink_cloud_requests_total{outcome="throttled"}[10m]))` +
				` / sum by (component, service, operation) (rate(hcplink_cloud_requests_total[10m])) > 0.2`,
			For:    "15m",
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary":     "More than a fifth of the {{ $labels.component }}'s {{ $labels.service }} {{ $labels.operation }} calls have been throttled for 15 minutes.",
				"description": "The account's API budget is spent, by hcplink or by something sharing the account; clusters become Available slowly. Compare hcplink_cloud_requests_total by component with the account's other users.",
			},
		},
		{
			Alert: AlertSuspectedLeak,
			Expr: `sum by (component, kind) (increase(hcplink_orphans_deleted_total[1h])) > 0` +
				` or sum by (platform) (increase(hcplink_cloud_cleanups_abandoned_total[1h])) > 0`,
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary":     "hcplink found cloud resources that no object owned, or gave up a cluster's cleanup.",
				"description": "A sweeper deleted orphans (their Events name them), or a HostedCluster was deleted with CloudResourcesMayHaveLeaked: its condition and Event list what may remain to delete by hand.",
			},
		},
		{
			Alert:  AlertCredentialsInvalid,
			Expr:   `max by (platform) (hcplink_cloud_credentials_valid) == 0`,
			For:    "10m",
			Labels: map[string]string{"severity": "critical"},
			Annotations: map[string]string{
				"summary":     "The management operator's {{ $labels.platform }} credentials have been refused for 10 minutes.",
				"description": "No endpoint service or Private Link Service can be created, changed or deleted. Check the credentials `hcplink install` configured.",
			},
		},
		{
			Alert:  AlertClusterCredentials,
			Expr:   `max by (namespace, name, platform) (hcplink_hostedcluster_available{reason="InvalidCredentials"}) == 0`,
			For:    "10m",
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary":     "The control-plane operator of {{ $labels.namespace }}/{{ $labels.name }} cannot use its cloud credentials.",
				"description": "Its role or identity in the customer's account is refused; see the HostedControlPlane's ValidCloudCredentials condition.",
			},
		},
	}}}
}

// RuleFileYAML is the rules as a Prometheus rule file.
func RuleFileYAML(opts RuleOptions) ([]byte, error) {
	return yaml.Marshal(map[string]any{"groups": Rules(opts)})
}

// promDuration writes d the way Prometheus reads durations ("15m", "1h30m").
func promDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return fmt.Sprintf("%ds", d/time.Second)
	}
}
