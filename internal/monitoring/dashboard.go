package monitoring

import "encoding/json"

// panel is one Grafana time-series or stat panel with its queries.
type panel struct {
	title, kind, unit string
	exprs             []string
	legend            string
}

// dashboardPanels answer, top to bottom: are the clusters available, how
// long do they take, what is the cloud saying, what goes wrong, what leaks.
var dashboardPanels = []panel{
	{title: "HostedClusters not Available", kind: "stat", exprs: []string{`count(hcplink_hostedcluster_available == 0) or vector(0)`}},
	{title: "Not Available, by cluster and reason", kind: "timeseries", legend: "{{namespace}}/{{name}} {{reason}}",
		exprs: []string{`hcplink_hostedcluster_available == 0`}},
	{title: "Time to Available", kind: "timeseries", unit: "s", legend: "{{platform}} p{{quantile}}", exprs: []string{
		`histogram_quantile(0.5, sum by (le, platform) (rate(hcplink_hostedcluster_time_to_available_seconds_bucket[1h])))`,
		`histogram_quantile(0.9, sum by (le, platform) (rate(hcplink_hostedcluster_time_to_available_seconds_bucket[1h])))`,
	}},
	{title: "Cloud calls by outcome", kind: "timeseries", unit: "reqps", legend: "{{component}} {{outcome}}",
		exprs: []string{`sum by (component, outcome) (rate(hcplink_cloud_requests_total[5m]))`}},
	{title: "Throttled cloud calls by operation", kind: "timeseries", unit: "reqps", legend: "{{component}} {{service}} {{operation}}",
		exprs: []string{`sum by (component, service, operation) (rate(hcplink_cloud_requests_total{outcome="throttled"}[5m])) > 0`}},
	{title: "Cloud call latency (p90)", kind: "timeseries", unit: "s", legend: "{{service}} {{operation}}",
		exprs: []string{`histogram_quantile(0.9, sum by (le, service, operation) (rate(hcplink_cloud_request_duration_seconds_bucket[5m])))`}},
	{title: "Reconcile errors by reason", kind: "timeseries", unit: "ops", legend: "{{reason}}",
		exprs: []string{`sum by (reason) (rate(hcplink_reconcile_errors_total[5m]))`}},
	{title: "Orphans swept and cleanups abandoned (per hour)", kind: "timeseries", legend: "{{component}} {{kind}}{{platform}}", exprs: []string{
		`sum by (component, kind) (increase(hcplink_orphans_deleted_total[1h]))`,
		`sum by (platform) (increase(hcplink_cloud_cleanups_abandoned_total[1h]))`,
	}},
	{title: "Management credentials valid", kind: "stat", legend: "{{platform}}", exprs: []string{`hcplink_cloud_credentials_valid`}},
}

// DashboardJSON is a Grafana dashboard over the hcplink metrics, with a
// Prometheus data-source variable so that it imports anywhere.
func DashboardJSON() ([]byte, error) {
	var panels []map[string]any
	for i, p := range dashboardPanels {
		var targets []map[string]any
		for j, expr := range p.exprs {
			targets = append(targets, map[string]any{
				"refId": string(rune('A' + j)), "expr": expr, "legendFormat": p.legend,
				"datasource": map[string]any{"type": "prometheus", "uid": "${datasource}"},
			})
		}
		width := 12
		if p.kind == "stat" {
			width = 6
		}
		panels = append(panels, map[string]any{
			"id": i + 1, "type": p.kind, "title": p.title,
			"gridPos":     map[string]any{"x": (i % 2) * 12, "y": (i / 2) * 8, "w": width, "h": 8},
			"datasource":  map[string]any{"type": "prometheus", "uid": "${datasource}"},
			"fieldConfig": map[string]any{"defaults": map[string]any{"unit": p.unit}, "overrides": []any{}},
			"targets":     targets,
		})
	}
	return json.MarshalIndent(map[string]any{
		"title": "hcplink", "uid": "hcplink", "schemaVersion": 39, "refresh": "1m",
		"time": map[string]any{"from": "now-6h", "to": "now"},
		"tags": []string{"hcplink"},
		"templating": map[string]any{"list": []any{map[string]any{
			"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus",
		}}},
		"panels": panels,
	}, "", "  ")
}

// Exprs are every query of the rules and the dashboard (for tests).
func Exprs() []string {
	var exprs []string
	for _, g := range Rules(RuleOptions{}) {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	for _, p := range dashboardPanels {
		exprs = append(exprs, p.exprs...)
	}
	return exprs
}
