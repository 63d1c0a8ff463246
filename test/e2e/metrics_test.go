package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestOperatorServesReconcileAndCloudMetrics scrapes the management
// operator's metrics endpoint as Prometheus would.
func TestOperatorServesReconcileAndCloudMetrics(t *testing.T) {
	eventually(t, shortWait, "reconcile and cloud-call metrics", func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, env.OperatorMetricsURL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		for _, metric := range []string{
			`controller_runtime_reconcile_total{controller="hostedcluster"`,
			`hcplink_cloud_requests_total{`,
			`hcplink_cloud_request_duration_seconds_bucket{`,
		} {
			if !strings.Contains(string(body), metric) {
				return fmt.Errorf("metrics lack %s", metric)
			}
		}
		return nil
	})
}
