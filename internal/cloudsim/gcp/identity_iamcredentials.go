package gcp

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// IAM Credentials' generateAccessToken
// (https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateAccessToken):
// a caller holding iam.serviceAccounts.getAccessToken on a service account
// (roles/iam.workloadIdentityUser or roles/iam.serviceAccountTokenCreator,
// on the account or its project) gets an access token of that account.

// maxTokenLifetime is the default cap on a generated token's lifetime
// (one hour, unless an organization policy extends it to twelve).
const maxTokenLifetime = time.Hour

func generateAccessToken(x *call) (any, *Error) {
	email, action, _ := strings.Cut(x.r.PathValue("account"), ":")
	if action != "generateAccessToken" {
		return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
	}
	resource := "projects/-/serviceAccounts/" + email
	if err := x.require("iam.serviceAccounts.getAccessToken", resource); err != nil {
		return nil, err
	}
	var req struct {
		Scope    []string `json:"scope"`
		Lifetime string   `json:"lifetime"`
	}
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if len(req.Scope) == 0 {
		return nil, errInvalid("Scope required.")
	}
	lifetime := maxTokenLifetime
	if req.Lifetime != "" {
		d, err := time.ParseDuration(req.Lifetime)
		if err != nil || d <= 0 {
			return nil, errInvalid("Invalid value for field 'lifetime': '%s'.", req.Lifetime)
		}
		if d > maxTokenLifetime {
			return nil, errInvalid("The lifetime requested is greater than the maximum allowed lifetime of %d seconds.", int(maxTokenLifetime.Seconds()))
		}
		lifetime = d
	}
	token, expires := x.c.issueToken("serviceAccount:"+email, x.now, lifetime)
	return map[string]string{"accessToken": token, "expireTime": expires.UTC().Format(time.RFC3339)}, nil
}

// errServiceAccountDenied is IAM Credentials' 403, which does not tell a
// missing account from a missing permission.
func errServiceAccountDenied(permission string) *Error {
	return &Error{Code: http.StatusForbidden, Reason: "forbidden",
		Message: fmt.Sprintf("Permission '%s' denied on resource (or it may not exist).", permission)}
}
