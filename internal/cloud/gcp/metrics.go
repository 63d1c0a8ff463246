package gcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
)

// metricsTransport records every attempt of every request (Compute Engine,
// Cloud DNS, and the sign-in's STS and IAM Credentials) in
// hcplink_cloud_requests_total and its duration histogram, the metrics the
// AWS and Azure clients feed, so throttling is seen per service and
// operation on every cloud.
type metricsTransport struct {
	component string
	next      http.RoundTripper
}

func (t metricsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	service, operation := RequestName(req.Method, req.URL.Host, req.URL.Path)
	cloud.ObserveRequest(t.component, service, operation, responseClass(resp, err), time.Since(start))
	return resp, err
}

// responseClass classifies one attempt by its status, and for a 403 by its
// reason: Compute Engine answers a rate quota with 403 rateLimitExceeded.
func responseClass(resp *http.Response, err error) cloud.Class {
	switch {
	case err != nil || resp == nil:
		return cloud.ClassServerError
	case resp.StatusCode == http.StatusTooManyRequests:
		return cloud.ClassThrottled
	case resp.StatusCode == http.StatusForbidden && throttledReasons[peekReason(resp)]:
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

// maxErrorBody bounds how much of an error body is read to find its
// reason; Google's envelopes are far smaller.
const maxErrorBody = 64 << 10

// peekReason reads the first reason of an error body and puts the body
// back for the client to decode.
func peekReason(resp *http.Response) string {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var envelope struct {
		Error struct {
			Errors []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &envelope) != nil || len(envelope.Error.Errors) == 0 {
		return ""
	}
	return envelope.Error.Errors[0].Reason
}

// RequestName names a request for the metrics without any name or ID in
// it: the API as the service ("compute", "dns", "sts", "iamcredentials")
// and the method with the collections as the operation ("POST
// serviceAttachments", "GET managedZones/rrsets", "POST operations/wait").
// Regions and the global scope are left out. It reads the API from the
// host (compute.googleapis.com) or, on an endpoint serving several APIs
// under path prefixes (cloudsim), from the first path segment.
func RequestName(method, host, path string) (service, operation string) {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	service, _, _ = strings.Cut(host, ".")
	if strings.HasSuffix(host, ".googleapis.com") && service != "www" {
		if service == "compute" || service == "dns" {
			segments = segments[1:] // "compute/v1/...", "dns/v1/..."
		}
	} else if len(segments) > 0 {
		service, segments = segments[0], segments[1:]
	}
	if len(segments) > 0 && strings.HasPrefix(segments[0], "v") {
		segments = segments[1:] // the version
	}
	if len(segments) == 0 {
		return service, method
	}
	last := segments[len(segments)-1]
	if _, action, ok := strings.Cut(last, ":"); ok { // a custom method: serviceAccounts/x:generateAccessToken
		return service, method + " " + collections(segments) + ":" + action
	}
	return service, method + " " + collections(segments)
}

// collections keeps the collection segments of "projects/p/regions/r/
// serviceAttachments/name/verb": "serviceAttachments/verb".
func collections(segments []string) string {
	var out []string
	for i := 0; i < len(segments); {
		switch segments[i] {
		case "projects", "regions", "zones", "locations":
			i += 2
			continue
		case "global":
			i++
			continue
		}
		out = append(out, segments[i])
		i += 2
	}
	if len(out) == 0 {
		return strings.Join(segments, "/")
	}
	return strings.Join(out, "/")
}
