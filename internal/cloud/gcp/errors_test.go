package gcp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func googleErr(code int, reason, message string) error {
	return fmt.Errorf("calling: %w", &googleapi.Error{Code: code, Message: message,
		Errors: []googleapi.ErrorItem{{Reason: reason, Message: message}}})
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want cloud.Class
	}{
		{"nil", nil, cloud.ClassNone},
		{"Compute rate quota", googleErr(403, "rateLimitExceeded", "Quota exceeded for quota metric 'Read requests'"), cloud.ClassThrottled},
		{"per-user rate quota", googleErr(403, "userRateLimitExceeded", "User Rate Limit Exceeded"), cloud.ClassThrottled},
		{"Cloud DNS rate quota", googleErr(429, "rateLimitExceeded", "Quota exceeded"), cloud.ClassThrottled},
		{"429 without reason", googleErr(429, "", "Too Many Requests"), cloud.ClassThrottled},
		{"not found", googleErr(404, "notFound", "The resource 'projects/p/regions/r/addresses/a' was not found"), cloud.ClassNotFound},
		{"already exists", googleErr(409, "alreadyExists", "The resource already exists"), cloud.ClassDependency},
		{"stale fingerprint", googleErr(412, "conditionNotMet", "Supplied fingerprint does not match"), cloud.ClassDependency},
		{"in use", googleErr(400, "resourceInUseByAnotherResource", "is already being used by"), cloud.ClassDependency},
		{"zone not empty", googleErr(400, "containerNotEmpty", "not empty"), cloud.ClassDependency},
		{"permission", googleErr(403, "forbidden", "Required 'compute.addresses.create' permission for 'projects/p/regions/r/addresses/a'"), cloud.ClassAccessDenied},
		{"API not enabled", googleErr(403, "accessNotConfigured", "Compute Engine API has not been used in project 123456789012"), cloud.ClassAccessDenied},
		{"401", googleErr(401, "authError", "Request had invalid authentication credentials."), cloud.ClassAccessDenied},
		{"resource quota", googleErr(403, "quotaExceeded", "Quota 'FORWARDING_RULES' exceeded. Limit: 75.0 in region us-central1."), cloud.ClassClientError},
		{"invalid", googleErr(400, "invalid", "Invalid value for field 'resource.name'"), cloud.ClassInvalidInput},
		{"required", googleErr(400, "required", "Required field 'resource.network' not specified"), cloud.ClassInvalidInput},
		{"backend error", googleErr(500, "backendError", "Internal error."), cloud.ClassServerError},
		{"unavailable", googleErr(503, "backendError", "The service is currently unavailable."), cloud.ClassServerError},
		{"other 4xx", googleErr(405, "", "Method not allowed"), cloud.ClassClientError},
		{"STS refused the token", &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "The ID Token has expired."}, cloud.ClassAccessDenied},
		{"operation: in use", &gcpcloud.OperationError{Code: "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", HTTPStatus: 400}, cloud.ClassDependency},
		{"operation: gone", &gcpcloud.OperationError{Code: "RESOURCE_NOT_FOUND", HTTPStatus: 404}, cloud.ClassNotFound},
		{"operation: quota", &gcpcloud.OperationError{Code: "QUOTA_EXCEEDED", HTTPStatus: 403}, cloud.ClassClientError},
		{"operation: invalid", &gcpcloud.OperationError{Code: "INVALID_USAGE", HTTPStatus: 400}, cloud.ClassInvalidInput},
		{"operation: unknown code", &gcpcloud.OperationError{Code: "SOMETHING_NEW", HTTPStatus: 503}, cloud.ClassServerError},
		{"no answer", errors.New("dial tcp: connection refused"), cloud.ClassServerError},
		{"cancelled", context.Canceled, cloud.ClassClientError},
		{"already classified", &cloud.Error{Class: cloud.ClassInvalidInput}, cloud.ClassInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gcpcloud.Classify(tc.err); got != tc.want {
				t.Fatalf("Classify = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestErrorMessagesArePlainAndBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		want    []string
		notWant []string
	}{
		{"permission named", googleErr(403, "forbidden", "Required 'compute.serviceAttachments.create' permission for 'projects/hcp-management/regions/us-central1/serviceAttachments/x'"),
			[]string{"forbidden", "lacks the permission compute.serviceAttachments.create", "hcplink permissions gcp"}, []string{"projects/"}},
		{"IAM Credentials denial", googleErr(403, "forbidden", "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist)."),
			[]string{"iam.serviceAccounts.getAccessToken"}, nil},
		{"paths, numbers and URLs scrubbed", googleErr(400, "invalid", "Invalid value for field 'resource.target': 'https://compute.googleapis.com/compute/v1/projects/hcp-management/regions/us-central1/serviceAttachments/sa-1' in project 123456789012, operation-1767268800000-5f3a"),
			[]string{"invalid", "check the cluster's GCP settings"}, []string{"https://", "123456789012", "projects/", "operation-"}},
		{"quota", googleErr(403, "quotaExceeded", "Quota 'FORWARDING_RULES' exceeded. Limit: 75.0 in region us-central1."),
			[]string{"raise it", "FORWARDING_RULES"}, nil},
		{"long", googleErr(400, "invalid", strings.Repeat("a very long message ", 50)), nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := gcpcloud.ErrorMessage(tc.err)
			if len(msg) > gcpcloud.MaxMessageLength {
				t.Errorf("message is %d bytes, longer than %d", len(msg), gcpcloud.MaxMessageLength)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("message %q holds %q", msg, w)
				}
			}
		})
	}
}

func TestWrap(t *testing.T) {
	if gcpcloud.Wrap("x", nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	ge := &googleapi.Error{Code: 429, Header: http.Header{"Retry-After": {"7"}}, Errors: []googleapi.ErrorItem{{Reason: "rateLimitExceeded"}}}
	err := gcpcloud.Wrap("creating endpoint e", ge)
	ce, ok := cloud.AsError(err)
	if !ok || ce.Class != cloud.ClassThrottled || ce.RetryAfter != 7*time.Second || ce.Code != "rateLimitExceeded" || ce.Doing != "creating endpoint e" {
		t.Fatalf("Wrap = %+v", ce)
	}
	if !errors.Is(err, ge) && !errors.As(err, new(*googleapi.Error)) {
		t.Fatal("the Google error is not in the chain")
	}
	if again := gcpcloud.Wrap("other", err); again != err {
		t.Fatal("a classified error was wrapped again")
	}
}

// Google's rate quotas refill each minute; only their answers say so.
func TestQuotaWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want time.Duration
	}{
		{"Compute Engine's 403 rateLimitExceeded", googleErr(403, gcpcloud.ReasonRateLimitExceeded, "Quota exceeded"), time.Minute},
		{"Cloud DNS's 429 rateLimitExceeded", googleErr(429, gcpcloud.ReasonRateLimitExceeded, "Quota exceeded"), time.Minute},
		{"userRateLimitExceeded", googleErr(403, gcpcloud.ReasonUserRateLimitExceeded, "Quota exceeded"), time.Minute},
		{"an operation's RATE_LIMIT_EXCEEDED", &gcpcloud.OperationError{Operation: "op", Code: "RATE_LIMIT_EXCEEDED", HTTPStatus: 403}, time.Minute},
		{"a bare 429", &googleapi.Error{Code: 429}, 0},
		{"a resource quota", googleErr(403, gcpcloud.ReasonQuotaExceeded, "Quota 'FORWARDING_RULES' exceeded"), 0},
		{"a denial", googleErr(403, gcpcloud.ReasonForbidden, "Required 'compute.addresses.create' permission"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce, _ := cloud.AsError(gcpcloud.Wrap("doing", tc.err))
			if ce.QuotaWindow != tc.want {
				t.Errorf("QuotaWindow = %v, want %v", ce.QuotaWindow, tc.want)
			}
		})
	}
}
