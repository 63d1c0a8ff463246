package azure

import (
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/hcplink/hcplink/internal/cloud"
)

// metricsPolicy records every attempt of every request (ARM and Entra ID)
// in hcplink_cloud_requests_total and its duration histogram, the metrics
// the AWS clients feed, so throttling is seen per service and operation on
// either cloud.
type metricsPolicy struct{ component string }

func (p metricsPolicy) Do(req *policy.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := req.Next()
	service, operation := RequestName(req.Raw().Method, req.Raw().URL.Path)
	cloud.ObserveRequest(p.component, service, operation, responseClass(resp, err), time.Since(start))
	return resp, err
}

// responseClass classifies one attempt by its status alone (the body is
// the SDK's to read).
func responseClass(resp *http.Response, err error) cloud.Class {
	switch {
	case err != nil || resp == nil:
		return cloud.ClassServerError
	case resp.StatusCode == http.StatusTooManyRequests:
		return cloud.ClassThrottled
	case resp.StatusCode == http.StatusNotFound:
		return cloud.ClassNotFound
	case resp.StatusCode < http.StatusBadRequest:
		return cloud.ClassNone
	case resp.StatusCode >= http.StatusInternalServerError:
		return cloud.ClassServerError
	default:
		return cloud.ClassClientError
	}
}

// RequestName names a request for the metrics without any ID in it: the
// resource provider as the service and the method with the resource types
// as the operation ("PUT privateLinkServices", "GET virtualNetworks/subnets",
// "GET locations/operationResults"); Entra ID token requests are
// ("EntraID", "POST token").
func RequestName(method, path string) (service, operation string) {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	if n := len(segments); n > 0 && segments[n-1] == "token" {
		return "EntraID", method + " token"
	}
	provider := -1
	for i, s := range segments {
		if strings.EqualFold(s, "providers") && i+1 < len(segments) {
			provider = i + 1 // the last one: nested providers name the innermost
		}
	}
	if provider < 0 {
		return "ARM", method + " " + armTypes(segments)
	}
	return segments[provider], method + " " + armTypes(segments[provider+1:])
}

// armTypes keeps the type segments of type/name pairs:
// "virtualNetworks/v1/subnets/s1" → "virtualNetworks/subnets".
func armTypes(pairs []string) string {
	var types []string
	for i := 0; i < len(pairs); i += 2 {
		types = append(types, pairs[i])
	}
	return strings.Join(types, "/")
}
