package azure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/hcplink/hcplink/internal/cloud"
)

const (
	testSub       = "11111111-1111-4111-8111-111111111111"
	testRequestID = "0f3c2b1a-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
)

// armError builds the SDK's own *azcore.ResponseError from an ARM answer,
// the way the real clients do (runtime.NewResponseError), with the request
// URL, request and correlation IDs that must never reach a condition.
func armError(status int, code, message string, header http.Header) error {
	u, _ := url.Parse("https://management.azure.com/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/privateLinkServices/pls-abc?api-version=2024-05-01")
	if header == nil {
		header = http.Header{}
	}
	header.Set("x-ms-request-id", testRequestID)
	header.Set("x-ms-correlation-request-id", testRequestID)
	header.Set("Content-Type", "application/json")
	body := fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, code, message)
	resp := &http.Response{
		StatusCode: status, Status: http.StatusText(status), Header: header,
		Body:    io.NopCloser(strings.NewReader(body)),
		Request: &http.Request{Method: http.MethodPut, URL: u},
	}
	return runtime.NewResponseError(resp)
}

// tokenError is azidentity's error for a token request the identity
// platform answered with status (0: no answer).
func tokenError(status int) error {
	e := &azidentity.AuthenticationFailedError{}
	if status != 0 {
		e.RawResponse = &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")),
			Request: &http.Request{Method: http.MethodPost, URL: &url.URL{Scheme: "https", Host: "login.microsoftonline.com", Path: "/tenant/oauth2/v2.0/token"}}}
	}
	return fmt.Errorf("getting a token: %w", e)
}

func TestClassify(t *testing.T) {
	scope := "/subscriptions/" + testSub + "/resourceGroups/rg"
	for _, tc := range []struct {
		name string
		err  error
		want cloud.Class
	}{
		{"nil", nil, cloud.ClassNone},
		{"429", armError(429, "TooManyRequests", "too many", nil), cloud.ClassThrottled},
		{"403 AuthorizationFailed", armError(403, CodeAuthorizationFailed, "The client 'x' with object id 'x' does not have authorization to perform action 'Microsoft.Network/privateLinkServices/write' over scope '"+scope+"'.", nil), cloud.ClassAccessDenied},
		{"403 LinkedAuthorizationFailed", armError(403, CodeLinkedAuthorizationFailed, "linked", nil), cloud.ClassAccessDenied},
		{"401 InvalidAuthenticationToken", armError(401, "InvalidAuthenticationToken", "bad token", nil), cloud.ClassAccessDenied},
		{"404 ResourceNotFound", armError(404, CodeResourceNotFound, "gone", nil), cloud.ClassNotFound},
		{"404 NotFound (a child resource)", armError(404, "NotFound", "gone", nil), cloud.ClassNotFound},
		{"404 ParentResourceNotFound", armError(404, CodeParentResourceNotFound, "zone gone", nil), cloud.ClassNotFound},
		{"404 without a code", armError(404, "", "", nil), cloud.ClassNotFound},
		// The scope is missing, not the resource: never "gone" (a delete
		// path would drop its finalizer and leak).
		{"404 ResourceGroupNotFound", armError(404, CodeResourceGroupNotFound, "gone", nil), cloud.ClassInvalidInput},
		{"404 SubscriptionNotFound", armError(404, CodeSubscriptionNotFound, "gone", nil), cloud.ClassInvalidInput},
		{"404 another ...NotFound code", armError(404, "PrincipalNotFound", "gone", nil), cloud.ClassClientError},
		{"400 ...NotFound code", armError(400, "InvalidResourceReferenceNotFound", "gone", nil), cloud.ClassInvalidInput},
		{"409 AnotherOperationInProgress", armError(409, CodeAnotherOperationInProgress, "busy", nil), cloud.ClassDependency},
		{"409 other conflict", armError(409, "Conflict", "conflict", nil), cloud.ClassDependency},
		{"400 InUseSubnetCannotBeDeleted", armError(400, "InUseSubnetCannotBeDeleted", "in use", nil), cloud.ClassDependency},
		{"400 PLS with connections", armError(400, "PrivateLinkServiceWithPrivateEndpointConnectionsCannotBeDeleted", "has connections", nil), cloud.ClassDependency},
		{"412 PreconditionFailed", armError(412, CodePreconditionFailed, "etag", nil), cloud.ClassDependency},
		{"400 InvalidRequestFormat", armError(400, "InvalidRequestFormat", "bad", nil), cloud.ClassInvalidInput},
		{"400 NetcfgInvalidSubnet", armError(400, "NetcfgInvalidSubnet", "bad", nil), cloud.ClassInvalidInput},
		{"500", armError(500, "InternalServerError", "oops", nil), cloud.ClassServerError},
		{"503", armError(503, "ServiceUnavailable", "later", nil), cloud.ClassServerError},
		{"405 other 4xx", armError(405, "MethodNotAllowed", "no", nil), cloud.ClassClientError},
		// azidentity reports every failure to get a token the same way; the
		// identity platform's answer tells a refusal from its own trouble.
		{"token refused (400 invalid_client)", tokenError(400), cloud.ClassAccessDenied},
		{"token refused (401)", tokenError(401), cloud.ClassAccessDenied},
		{"token without an answer", tokenError(0), cloud.ClassAccessDenied},
		{"token request throttled (429)", tokenError(429), cloud.ClassThrottled},
		{"token endpoint failing (500)", tokenError(500), cloud.ClassServerError},
		{"token endpoint unavailable (503)", tokenError(503), cloud.ClassServerError},
		{"network error", errors.New("dial tcp: connection refused"), cloud.ClassServerError},
		{"timeout", context.DeadlineExceeded, cloud.ClassServerError},
		{"cancelled", context.Canceled, cloud.ClassClientError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.err); got != tc.want {
				t.Errorf("Classify = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"17"}}, 17 * time.Second},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds win", http.Header{"Retry-After": {"5"}, "Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		{"x-ms milliseconds", http.Header{"X-Ms-Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfterHeader(tc.header, now); got != tc.want {
				t.Errorf("retryAfterHeader = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWrapCarriesClassCodeAndRetryAfter(t *testing.T) {
	err := Wrap("writing the Private Link Service", armError(429, "TooManyRequests", "slow down", http.Header{"Retry-After": {"42"}}))
	ce, ok := cloud.AsError(err)
	if !ok {
		t.Fatalf("Wrap returned %T, want *cloud.Error", err)
	}
	if ce.Class != cloud.ClassThrottled || ce.Code != "TooManyRequests" || ce.RetryAfter != 42*time.Second || ce.Doing != "writing the Private Link Service" {
		t.Errorf("wrapped = %+v", ce)
	}
	if again := Wrap("something else", err); again != err {
		t.Errorf("wrapping twice changed the error: %v", again)
	}
	if Wrap("x", nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}

// TestMessagesAreSanitised: what reaches a condition carries the code and
// plain words, never the request URL, a subscription ID, a request or
// correlation ID, or ARM's JSON body — although the SDK's own Error()
// carries all of them.
func TestMessagesAreSanitised(t *testing.T) {
	scope := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet1/subnets/nat"
	for _, tc := range []struct {
		name     string
		err      error
		contains []string
	}{
		{"authorization failed names the action",
			armError(403, CodeAuthorizationFailed, "The client '"+testRequestID+"' with object id '"+testRequestID+"' does not have authorization to perform action 'Microsoft.Network/privateEndpoints/write' over scope '"+scope+"' or the scope is invalid. If access was recently granted, please refresh your credentials.", nil),
			[]string{"AuthorizationFailed", "Microsoft.Network/privateEndpoints/write"}},
		{"linked authorization failed names the linked action",
			armError(403, CodeLinkedAuthorizationFailed, "The client 'c' with object id 'c' has permission to perform action 'Microsoft.Network/privateLinkServices/write' on scope '"+scope+"'; however, it does not have permission to perform action(s) 'Microsoft.Network/virtualNetworks/subnets/join/action' on the linked scope(s) '"+scope+"' (respectively) or the linked scope(s) are invalid.", nil),
			[]string{"LinkedAuthorizationFailed", "Microsoft.Network/virtualNetworks/subnets/join/action"}},
		{"not found keeps the resource's name",
			armError(404, CodeResourceNotFound, "The Resource 'Microsoft.Network/privateLinkServices/pls-abc' under resource group 'rg' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix", nil),
			[]string{"ResourceNotFound", "pls-abc", "does not exist"}},
		{"conflict with an operation URL",
			armError(409, CodeAnotherOperationInProgress, "Operation PutSubnetOperation (https://management.azure.com/subscriptions/"+testSub+"/providers/Microsoft.Network/locations/eastus/operations/"+testRequestID+"?api-version=2024-05-01) on "+scope+" is in progress.", nil),
			[]string{"AnotherOperationInProgress", "in progress"}},
		{"invalid input with JSON inside", armError(400, "InvalidRequestFormat", `Cannot parse the request: {"properties":{"subnet":null}} for `+scope, nil),
			[]string{"InvalidRequestFormat", "not valid"}},
		{"throttled", armError(429, "TooManyRequests", "The request is being throttled. RequestId: "+testRequestID, http.Header{"Retry-After": {"30"}}),
			[]string{"TooManyRequests", "throttled"}},
		{"no answer", fmt.Errorf("Put %q: dial tcp 10.0.0.1:443: connect: connection refused", "https://management.azure.com/subscriptions/"+testSub), []string{"did not answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.err.Error()
			msg := ErrorMessage(tc.err)
			full := Wrap("doing it", tc.err).Error()
			t.Logf("%s", full)
			if _, ok := ResponseError(tc.err); ok && !strings.Contains(raw, testSub) {
				t.Fatalf("the SDK's own Error() no longer carries the URL; the test proves nothing:\n%s", raw)
			}
			for _, s := range []string{msg, full} {
				assertSanitised(t, s)
				for _, want := range tc.contains {
					if !strings.Contains(s, want) {
						t.Errorf("message %q does not contain %q", s, want)
					}
				}
			}
		})
	}
}

func assertSanitised(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{testSub, testRequestID, "https://", "http://", "{", "}", "/subscriptions/", "api-version", "RESPONSE", "x-ms-"} {
		if strings.Contains(s, bad) {
			t.Errorf("message %q contains %q", s, bad)
		}
	}
	if len(s) > MaxMessageLength+len("doing it: ") {
		t.Errorf("message is %d bytes, more than the bound", len(s))
	}
}

func TestMessageIsBounded(t *testing.T) {
	long := strings.Repeat("the subnet is not valid because ", 40)
	msg := ErrorMessage(armError(400, "InvalidRequestFormat", long, nil))
	if len(msg) > MaxMessageLength || !strings.HasSuffix(msg, "…") {
		t.Errorf("message of %d bytes: %q", len(msg), msg)
	}
}

func TestBoundCutsOnARuneBoundary(t *testing.T) {
	got := Bound(strings.Repeat("é", 20), 11)
	if len(got) > 11 || !strings.HasSuffix(got, "…") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("Bound = %q", got)
	}
	if Bound("short", 10) != "short" {
		t.Error("a short text changed")
	}
}

func TestMissingAction(t *testing.T) {
	err := armError(403, CodeLinkedAuthorizationFailed, "The client 'c' has permission to perform action 'Microsoft.Network/privateLinkServices/write' on scope 's'; however, it does not have permission to perform action(s) 'Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action' on the linked scope(s) 'l'.", nil)
	if got := MissingAction(err); got != "Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action" {
		t.Errorf("MissingAction = %q", got)
	}
	if got := MissingAction(errors.New("plain")); got != "" {
		t.Errorf("MissingAction of a plain error = %q", got)
	}
}
