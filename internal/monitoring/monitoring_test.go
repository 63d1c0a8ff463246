package monitoring

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/hcplink/hcplink/internal/cloud"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/operator"
)

// promtool runs Prometheus's own rule checker; CI installs it (the Debian
// package prometheus), like the stock aws and az CLIs.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not on PATH (CI installs it: apt-get install prometheus); skipping the rule checks")
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeRules(t *testing.T) string {
	t.Helper()
	data, err := RuleFileYAML(RuleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRulesPassPromtoolCheck(t *testing.T) {
	dir := writeRules(t)
	promtool(t, "check", "rules", filepath.Join(dir, "rules.yaml"))
}

// alertCase is one alert's promtool unit test: the series, and when the
// alert must not fire and then fire with these labels.
type alertCase struct {
	alert   string
	series  map[string]string // series → values
	quietAt string
	firesAt string
	labels  map[string]string
}

// TestRulesFireWhenTheyShould runs `promtool test rules`: each alert stays
// quiet before its time and fires after, with the labels a person needs.
func TestRulesFireWhenTheyShould(t *testing.T) {
	cases := []alertCase{
		{
			alert: AlertClusterUnavailable,
			series: map[string]string{
				`hcplink_hostedcluster_available{namespace="team-a",name="red",platform="AWS",reason="EndpointRejected"}`: "0x40",
				`hcplink_hostedcluster_available{namespace="team-a",name="green",platform="AWS",reason="AsExpected"}`:     "1x40",
			},
			quietAt: "10m", firesAt: "20m",
			labels: map[string]string{"severity": "warning", "namespace": "team-a", "name": "red", "platform": "AWS", "reason": "EndpointRejected"},
		},
		{
			alert: AlertThrottlingSustained,
			series: map[string]string{
				`hcplink_cloud_requests_total{component="operator",service="EC2",operation="DescribeVpcEndpointServiceConfigurations",outcome="throttled"}`: "0+30x60",
				`hcplink_cloud_requests_total{component="operator",service="EC2",operation="DescribeVpcEndpointServiceConfigurations",outcome="success"}`:   "0+30x60",
				`hcplink_cloud_requests_total{component="operator",service="EC2",operation="CreateTags",outcome="success"}`:                                 "0+30x60",
			},
			quietAt: "5m", firesAt: "40m",
			labels: map[string]string{"severity": "warning", "component": "operator", "service": "EC2", "operation": "DescribeVpcEndpointServiceConfigurations"},
		},
		{
			alert: AlertSuspectedLeak,
			series: map[string]string{
				`hcplink_orphans_deleted_total{component="control-plane-operator",kind="vpc_endpoint"}`: "0x20 1x40",
			},
			quietAt: "15m", firesAt: "30m",
			labels: map[string]string{"severity": "warning", "component": "control-plane-operator", "kind": "vpc_endpoint"},
		},
		{
			alert:   AlertCredentialsInvalid,
			series:  map[string]string{`hcplink_cloud_credentials_valid{platform="Azure"}`: "1x5 0x30"},
			quietAt: "10m", firesAt: "20m",
			labels: map[string]string{"severity": "critical", "platform": "Azure"},
		},
		{
			alert: AlertClusterCredentials,
			series: map[string]string{
				`hcplink_hostedcluster_available{namespace="team-b",name="blue",platform="Azure",reason="InvalidCredentials"}`: "0x30",
			},
			quietAt: "5m", firesAt: "12m",
			labels: map[string]string{"severity": "warning", "namespace": "team-b", "name": "blue", "platform": "Azure"},
		},
	}
	var tests []any
	for _, c := range cases {
		var series []any
		for s, v := range c.series {
			series = append(series, map[string]any{"series": s, "values": v})
		}
		tests = append(tests, map[string]any{
			"name": c.alert, "interval": "1m", "input_series": series,
			"alert_rule_test": []any{
				map[string]any{"eval_time": c.quietAt, "alertname": c.alert, "exp_alerts": []any{}},
				map[string]any{"eval_time": c.firesAt, "alertname": c.alert, "exp_alerts": []any{map[string]any{
					"exp_labels": c.labels, "exp_annotations": expandedAnnotations(t, c.alert, c.labels),
				}}},
			},
		})
	}
	data, err := yaml.Marshal(map[string]any{"rule_files": []string{"rules.yaml"}, "evaluation_interval": "1m", "tests": tests})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeRules(t)
	file := filepath.Join(dir, "rules_test.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	promtool(t, "test", "rules", file)
}

// expandedAnnotations are the alert's annotations with {{ $labels.x }}
// filled in, as Prometheus would.
func expandedAnnotations(t *testing.T, alert string, labels map[string]string) map[string]string {
	t.Helper()
	for _, g := range Rules(RuleOptions{}) {
		for _, r := range g.Rules {
			if r.Alert != alert {
				continue
			}
			out := map[string]string{}
			for k, v := range r.Annotations {
				for name, value := range labels {
					v = strings.ReplaceAll(v, "{{ $labels."+name+" }}", value)
				}
				out[k] = v
			}
			return out
		}
	}
	t.Fatalf("no rule %s", alert)
	return nil
}

// Every metric the rules and the dashboard query is one the operators
// serve: a renamed metric fails here, not silently in someone's Grafana.
func TestQueriesUseServedMetrics(t *testing.T) {
	served := append(append(metrics.Names(), cloud.RequestMetricNames()...), operator.CredentialsValidMetric)
	name := regexp.MustCompile(`hcplink_[a-z_]+`)
	for _, expr := range Exprs() {
		for _, m := range name.FindAllString(expr, -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")
			if !slices.Contains(served, base) {
				t.Errorf("query %q uses %s, which no operator serves (served: %v)", expr, m, served)
			}
		}
	}
}

func TestDashboardIsGrafanaJSON(t *testing.T) {
	data, err := DashboardJSON()
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dashboard); err != nil {
		t.Fatal(err)
	}
	if dashboard.Title != "hcplink" || len(dashboard.Panels) != len(dashboardPanels) {
		t.Fatalf("dashboard %q with %d panels, want hcplink with %d", dashboard.Title, len(dashboard.Panels), len(dashboardPanels))
	}
	for _, p := range dashboard.Panels {
		if len(p.Targets) == 0 || p.Targets[0].Expr == "" {
			t.Errorf("panel %q has no query", p.Title)
		}
	}
}

func TestObjects(t *testing.T) {
	objs, err := Objects("hcplink", RuleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind()+"/"+o.GetName())
		if o.GetNamespace() != "hcplink" {
			t.Errorf("%s/%s in namespace %q", o.GetKind(), o.GetName(), o.GetNamespace())
		}
	}
	if want := []string{"PrometheusRule/hcplink", "ConfigMap/hcplink-dashboard"}; !slices.Equal(kinds, want) {
		t.Fatalf("objects %v, want %v", kinds, want)
	}
	if objs[1].GetLabels()["grafana_dashboard"] != "1" {
		t.Error("the dashboard ConfigMap lacks the grafana_dashboard label the Grafana sidecar looks for")
	}
}
