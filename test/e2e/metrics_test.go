package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestOperatorServesReconcileAndCloudMetrics scrapes the management
// operator's metrics endpoint as Prometheus would: controller-runtime's
// reconcile metrics, the cloud-call metrics, and a cluster's readiness,
// which goes with the cluster.
func TestOperatorServesReconcileAndCloudMetrics(t *testing.T) {
	ns := suite.CreateNamespace(t, "metrics")
	hc := validPrivateCluster(ns, "refused", "metr1")
	hc.Spec.Platform.AWS.Region = "eu-west-1" // not the operator's region: refused, with no cloud call
	if err := env.Client.Create(context.Background(), hc); err != nil {
		t.Fatal(err)
	}
	readiness := fmt.Sprintf(`hcplink_hostedcluster_available{name="refused",namespace=%q,platform="AWS",reason=%q} 0`, ns, hcplinkv1beta1.InvalidConfigurationReason)
	suite.Eventually(t, e2eutil.ShortWait, "reconcile, cloud-call and readiness metrics", func(ctx context.Context) error {
		body, err := scrapeOperator(ctx)
		if err != nil {
			return err
		}
		for _, metric := range []string{
			`controller_runtime_reconcile_total{controller="hostedcluster"`,
			`hcplink_cloud_requests_total{`,
			`hcplink_cloud_request_duration_seconds_bucket{`,
			readiness,
		} {
			if !strings.Contains(body, metric) {
				return fmt.Errorf("metrics lack %s", metric)
			}
		}
		return nil
	})
	if err := env.Client.Delete(context.Background(), hc); err != nil {
		t.Fatal(err)
	}
	suite.Eventually(t, e2eutil.ShortWait, "the deleted cluster's readiness series to go", func(ctx context.Context) error {
		body, err := scrapeOperator(ctx)
		if err != nil {
			return err
		}
		if strings.Contains(body, `name="refused",namespace="`+ns+`"`) {
			return fmt.Errorf("the metrics still have a series of the deleted cluster")
		}
		return nil
	})
}

func scrapeOperator(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.OperatorMetricsURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}
