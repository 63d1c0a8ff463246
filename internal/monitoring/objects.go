package monitoring

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The objects' names and the rule's kind, for those who remove them.
const (
	PrometheusRuleName     = "hcplink"
	DashboardConfigMapName = "hcplink-dashboard"
)

// PrometheusRuleKind is the Prometheus Operator's rule kind.
var PrometheusRuleKind = schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRule"}

// Objects are what `hcplink install --render --monitoring` adds: a
// PrometheusRule (for the Prometheus Operator) and a ConfigMap holding the
// dashboard, labelled for Grafana's dashboard sidecar.
func Objects(namespace string, opts RuleOptions) ([]*unstructured.Unstructured, error) {
	dashboard, err := DashboardJSON()
	if err != nil {
		return nil, err
	}
	var groups []any
	for _, g := range Rules(opts) {
		var rules []any
		for _, r := range g.Rules {
			rule := map[string]any{"alert": r.Alert, "expr": r.Expr, "labels": toAny(r.Labels), "annotations": toAny(r.Annotations)}
			if r.For != "" {
				rule["for"] = r.For
			}
			rules = append(rules, rule)
		}
		groups = append(groups, map[string]any{"name": g.Name, "rules": rules})
	}
	labels := map[string]any{"app.kubernetes.io/name": "hcplink", "app.kubernetes.io/component": "monitoring"}
	rule := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
		"metadata": map[string]any{"name": PrometheusRuleName, "namespace": namespace, "labels": labels},
		"spec":     map[string]any{"groups": groups},
	}}
	cmLabels := map[string]any{"grafana_dashboard": "1"}
	for k, v := range labels {
		cmLabels[k] = v
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": DashboardConfigMapName, "namespace": namespace, "labels": cmLabels},
		"data":     map[string]any{"hcplink.json": string(dashboard)},
	}}
	return []*unstructured.Unstructured{rule, cm}, nil
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
