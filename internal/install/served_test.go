package install

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/hcplink/hcplink/internal/monitoring"
	"github.com/hcplink/hcplink/internal/testenv"
)

// install --monitoring on a cluster without the Prometheus Operator is
// refused before anything is applied, dry run or not, and says what to do;
// once the cluster serves PrometheusRule it installs (issue 23, item 2).
func TestMonitoringNeedsThePrometheusOperatorFirst(t *testing.T) {
	c := kube(t)
	ns := "hcplink-monitoring"
	opts := lifecycleOptions(ns)
	opts.Monitoring = true
	for _, dryRun := range []bool{true, false} {
		var progress bytes.Buffer
		results, err := Apply(t.Context(), c, opts, ApplyOptions{DryRun: dryRun, Progress: &progress})
		if err == nil {
			t.Fatalf("dry run %v: install --monitoring was applied on a cluster without PrometheusRule", dryRun)
		}
		for _, want := range []string{"PrometheusRule (monitoring.coreos.com/v1)", "nothing was applied", "install its CRDs first", "drop --monitoring", "--render"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("dry run %v: the error %q does not say %q", dryRun, err, want)
			}
		}
		if len(results) != 0 || progress.Len() != 0 {
			t.Errorf("dry run %v: reported %d objects before refusing:\n%s", dryRun, len(results), progress.String())
		}
	}
	if exists(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) {
		t.Error("the namespace was created although install was refused")
	}

	crd := prometheusRuleCRD()
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(t.Context(), crd) })
	testenv.EventuallyWithin(t, settleWithin, "the cluster serves PrometheusRule", func() (bool, error) {
		_, err := kube(t).RESTMapper().RESTMapping(monitoring.PrometheusRuleKind.GroupKind(), monitoring.PrometheusRuleKind.Version)
		return err == nil, nil
	})
	if _, err := Apply(t.Context(), kube(t), opts, ApplyOptions{DryRun: true}); err != nil {
		t.Fatalf("install --monitoring --dry-run with the Prometheus Operator's CRD: %v", err)
	}
}

// prometheusRuleCRD stands in for the Prometheus Operator's CRD: only its
// kind matters here.
func prometheusRuleCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheusrules.monitoring.coreos.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "monitoring.coreos.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "prometheusrules", Singular: "prometheusrule", Kind: "PrometheusRule", ListKind: "PrometheusRuleList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}
