package gcp

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// IAM's service accounts, their own IAM policies and their keys
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts).
// An account is named projects/{project or -}/serviceAccounts/{email or
// uniqueId}. Deleting one leaves the bindings that named it in project
// policies as "deleted:serviceAccount:EMAIL?uid=ID", as IAM does
// (https://cloud.google.com/iam/docs/service-accounts-delete-undelete), so
// whoever removes an account removes its project bindings first.

// accountID is what CreateServiceAccountRequest.accountId allows.
var accountID = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// maxKeysPerAccount is how many user-managed keys an account may hold
// (https://cloud.google.com/iam/quotas: 10 keys per service account).
const maxKeysPerAccount = 10

func (c *Cloud) registerServiceAccounts(mux *http.ServeMux) {
	const accounts = "/iam/v1/projects/{project}/serviceAccounts"
	const account = "/iam/v1/projects/{saProject}/serviceAccounts/{account}"
	c.handle(mux, "POST "+accounts, iamAPI("projects.serviceAccounts.create", ""), createServiceAccount)
	c.handle(mux, "GET "+accounts, iamAPI("projects.serviceAccounts.list", "iam.serviceAccounts.list"), listServiceAccounts)
	c.handle(mux, "GET "+account, iamAPI("projects.serviceAccounts.get", ""), getServiceAccount)
	c.handle(mux, "DELETE "+account, iamAPI("projects.serviceAccounts.delete", ""), deleteServiceAccount)
	c.handle(mux, "POST "+account, iamAPI("projects.serviceAccounts.{action}", ""), serviceAccountPolicy)
	c.handle(mux, "POST "+account+"/keys", iamAPI("projects.serviceAccounts.keys.create", ""), createKey)
	c.handle(mux, "GET "+account+"/keys", iamAPI("projects.serviceAccounts.keys.list", ""), listKeys)
	c.handle(mux, "DELETE "+account+"/keys/{key}", iamAPI("projects.serviceAccounts.keys.delete", ""), deleteKey)
}

// renderAccount is the account as IAM answers it (no policy, no keys).
func renderAccount(sa *ServiceAccount) map[string]any {
	return map[string]any{"name": "projects/" + sa.ProjectID + "/serviceAccounts/" + sa.Email, "projectId": sa.ProjectID,
		"uniqueId": sa.UniqueID, "email": sa.Email, "displayName": sa.DisplayName, "description": sa.Description,
		"oauth2ClientId": sa.UniqueID, "etag": sa.Policy.Etag}
}

func createServiceAccount(x *call) (any, *Error) {
	var req struct {
		AccountID      string `json:"accountId"`
		ServiceAccount struct {
			DisplayName string `json:"displayName"`
			Description string `json:"description"`
		} `json:"serviceAccount"`
	}
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if err := x.require("iam.serviceAccounts.create", "projects/"+x.project.ID); err != nil {
		return nil, err
	}
	if len(req.AccountID) < 6 || len(req.AccountID) > 30 || !accountID.MatchString(req.AccountID) {
		return nil, errInvalid("Invalid accountId %q: 6 to 30 lower-case letters, digits or hyphens, starting with a letter.", req.AccountID)
	}
	email := req.AccountID + "@" + x.project.ID + ".iam.gserviceaccount.com"
	if x.c.st.serviceAccounts[email] != nil {
		return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists",
			Message: "Service account " + req.AccountID + " already exists within project projects/" + x.project.ID + "."}
	}
	sa := &ServiceAccount{Email: email, ProjectID: x.project.ID, UniqueID: fmt.Sprint(x.c.newID()),
		DisplayName: req.ServiceAccount.DisplayName, Description: req.ServiceAccount.Description}
	sa.Policy.Version, sa.Policy.Etag = 1, x.c.etag()
	x.c.st.serviceAccounts[email] = sa
	return renderAccount(sa), nil
}

// Service accounts are listed a page at a time: "The default is 20, and the
// maximum is 100"
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts/list).
const (
	accountsPageDefault = 20
	accountsPageMost    = 100
)

func listServiceAccounts(x *call) (any, *Error) {
	var out []any
	for _, k := range sortedKeys(x.c.st.serviceAccounts) {
		if sa := x.c.st.serviceAccounts[k]; sa.ProjectID == x.project.ID {
			out = append(out, renderAccount(sa))
		}
	}
	return x.iamPage("accounts", out, accountsPageDefault, accountsPageMost)
}

// account finds the path's service account and checks permission on it.
// A missing account is 404 to a caller holding the permission on the named
// project, and IAM's 403 "(or it may not exist)" to anyone else.
func (x *call) account(permission string) (*ServiceAccount, *Error) {
	ref, _, _ := strings.Cut(x.r.PathValue("account"), ":")
	var sa *ServiceAccount
	for _, candidate := range x.c.st.serviceAccounts {
		if candidate.Email == ref || candidate.UniqueID == ref {
			sa = candidate
		}
	}
	if project := x.r.PathValue("saProject"); sa != nil && project != "-" && project != sa.ProjectID {
		sa = nil
	}
	if sa == nil {
		project := x.c.project(x.r.PathValue("saProject"))
		if project != nil && x.require(permission, "projects/"+project.ID) == nil {
			return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Unknown service account"}
		}
		return nil, errServiceAccountDenied(permission)
	}
	if err := x.require(permission, "projects/"+sa.ProjectID+"/serviceAccounts/"+sa.Email); err != nil {
		return nil, err
	}
	return sa, nil
}

func getServiceAccount(x *call) (any, *Error) {
	sa, err := x.account("iam.serviceAccounts.get")
	if err != nil {
		return nil, err
	}
	return renderAccount(sa), nil
}

func deleteServiceAccount(x *call) (any, *Error) {
	sa, err := x.account("iam.serviceAccounts.delete")
	if err != nil {
		return nil, err
	}
	delete(x.c.st.serviceAccounts, sa.Email)
	member, tombstone := "serviceAccount:"+sa.Email, "deleted:serviceAccount:"+sa.Email+"?uid="+sa.UniqueID
	for _, p := range x.c.st.projects {
		for i := range p.Policy.Bindings {
			for j, m := range p.Policy.Bindings[i].Members {
				if m == member {
					p.Policy.Bindings[i].Members[j] = tombstone
				}
			}
		}
	}
	for token, t := range x.c.st.tokens {
		if t.principal == member {
			delete(x.c.st.tokens, token)
		}
	}
	return map[string]any{}, nil
}

// serviceAccountPolicy is getIamPolicy and setIamPolicy on an account:
// who may act as it (roles/iam.workloadIdentityUser,
// roles/iam.serviceAccountTokenCreator). A set with a stale etag is
// refused, as on a project.
func serviceAccountPolicy(x *call) (any, *Error) {
	switch x.api.method {
	case "projects.serviceAccounts.getIamPolicy":
		sa, err := x.account("iam.serviceAccounts.getIamPolicy")
		if err != nil {
			return nil, err
		}
		return sa.Policy, nil
	case "projects.serviceAccounts.setIamPolicy":
		sa, err := x.account("iam.serviceAccounts.setIamPolicy")
		if err != nil {
			return nil, err
		}
		policy, err := x.newPolicy(sa.Policy.Etag)
		if err != nil {
			return nil, err
		}
		sa.Policy = policy
		return sa.Policy, nil
	}
	return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
}

// newPolicy reads a setIamPolicy request and checks it against the current
// etag, the roles and the conditions cloudsim evaluates.
func (x *call) newPolicy(etag string) (Policy, *Error) {
	var req struct {
		Policy Policy `json:"policy"`
	}
	if err := x.decode(&req); err != nil {
		return Policy{}, err
	}
	if req.Policy.Etag != "" && req.Policy.Etag != etag {
		return Policy{}, errAborted()
	}
	for _, b := range req.Policy.Bindings {
		if err := x.c.checkRole(b.Role); err != nil {
			return Policy{}, errInvalid("Role %s is not supported for this resource.", b.Role)
		}
		if b.Condition != nil && !b.Condition.valid() {
			return Policy{}, errInvalid("Condition %q: cloudsim evaluates only resource.name.startsWith(\"...\") and resource.name == \"...\" joined by ||.", b.Condition.Expression)
		}
	}
	return Policy{Version: max(req.Policy.Version, 1), Bindings: req.Policy.Bindings, Etag: x.c.etag()}, nil
}

// createKey makes a key and answers its key file once, base64 in
// privateKeyData (the only time IAM shows the private half).
func createKey(x *call) (any, *Error) {
	sa, err := x.account("iam.serviceAccountKeys.create")
	if err != nil {
		return nil, err
	}
	if len(sa.keys.Keys) >= maxKeysPerAccount {
		return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "Precondition check failed."}
	}
	file, keyID, kerr := x.c.newKey(sa, x.base+"/oauth2/token")
	if kerr != nil {
		return nil, &Error{Code: http.StatusInternalServerError, Reason: "backendError", Message: "Internal error encountered."}
	}
	out := renderKey(sa, keyID)
	out["privateKeyType"] = "TYPE_GOOGLE_CREDENTIALS_FILE"
	out["privateKeyData"] = base64.StdEncoding.EncodeToString(file)
	out["validAfterTime"] = x.now.UTC().Format("2006-01-02T15:04:05Z")
	return out, nil
}

func renderKey(sa *ServiceAccount, keyID string) map[string]any {
	return map[string]any{"name": "projects/" + sa.ProjectID + "/serviceAccounts/" + sa.Email + "/keys/" + keyID,
		"keyAlgorithm": "KEY_ALG_RSA_2048", "keyOrigin": "GOOGLE_PROVIDED", "keyType": "USER_MANAGED"}
}

func listKeys(x *call) (any, *Error) {
	sa, err := x.account("iam.serviceAccountKeys.list")
	if err != nil {
		return nil, err
	}
	var out []any
	for _, k := range sa.keys.Keys {
		out = append(out, renderKey(sa, k.Kid))
	}
	return map[string]any{"keys": out}, nil
}

func deleteKey(x *call) (any, *Error) {
	sa, err := x.account("iam.serviceAccountKeys.delete")
	if err != nil {
		return nil, err
	}
	keyID := x.r.PathValue("key")
	i := slices.IndexFunc(sa.keys.Keys, func(k sim.JWK) bool { return k.Kid == keyID })
	if i < 0 {
		return nil, errNotFound("projects/" + sa.ProjectID + "/serviceAccounts/" + sa.Email + "/keys/" + keyID)
	}
	sa.keys.Keys = slices.Delete(sa.keys.Keys, i, i+1)
	return map[string]any{}, nil
}
