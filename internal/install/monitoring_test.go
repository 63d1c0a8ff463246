package install

import (
	"testing"
)

// --monitoring adds the PrometheusRule and the dashboard, labelled as
// install's (so uninstall removes them); without it, neither.
func TestMonitoringObjects(t *testing.T) {
	kinds := func(opts Options) map[string]map[string]string {
		t.Helper()
		objs, err := Objects(opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]string{}
		for _, o := range objs {
			out[o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName()] = o.GetLabels()
		}
		return out
	}
	without := kinds(Options{})
	with := kinds(Options{Monitoring: true})
	for _, name := range []string{"PrometheusRule/hcplink", "ConfigMap/hcplink-dashboard"} {
		if _, ok := without[name]; ok {
			t.Errorf("%s rendered without --monitoring", name)
		}
		labels, ok := with[name]
		if !ok {
			t.Fatalf("%s missing with --monitoring", name)
		}
		if labels[ManagedByLabel] != ManagedByValue {
			t.Errorf("%s lacks install's label, so uninstall would keep it", name)
		}
	}
	if len(with) != len(without)+2 {
		t.Errorf("--monitoring rendered %d objects, want %d", len(with), len(without)+2)
	}
}
