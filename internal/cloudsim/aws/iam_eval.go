package aws

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Identity-policy evaluation: a role session or an IAM user may call only
// what the inline and attached managed policies of its role or user allow,
// and nothing an explicit Deny forbids. The account's root (its 12-digit
// key, or any key cloudsim did not issue) stays unrestricted, so tests and
// tools that do not model IAM keep working. Every decision is recorded per
// identity, so a test can compare what a component called with what it was
// granted.

// Decision counts how often one identity was allowed or denied one action.
type Decision = sim.Evaluation

// Evaluations returns, for one role or user ARN, every action evaluated for
// its sessions and what was decided.
func (c *Cloud) Evaluations(identityARN string) map[string]Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.accounts[accountFromARN(identityARN)]
	if a == nil {
		return map[string]Decision{}
	}
	return a.IAM.evaluations.Of(identityARN)
}

// ForgetEvaluations clears what was recorded for one identity.
func (c *Cloud) ForgetEvaluations(identityARN string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.accounts[accountFromARN(identityARN)]; a != nil {
		delete(a.IAM.evaluations, identityARN)
	}
}

// unevaluated are the calls AWS answers whatever the identity's policies
// say: GetCallerIdentity needs no permission, and a web-identity call
// carries no identity of its own (the role's trust policy decides).
var unevaluated = map[string]bool{
	"sts:GetCallerIdentity":         true,
	"sts:AssumeRoleWithWebIdentity": true,
}

// authorize decides the call for its principal. The caller holds c.mu and
// has resolved call.Account.
func (c *Cloud) authorize(call *Call) *APIError {
	identity, docs, restricted := c.identityPolicies(call.Principal)
	if !restricted {
		return nil
	}
	action := iamActionPrefix(call.Service) + ":" + call.Action
	if unevaluated[action] {
		return nil
	}
	req := evalRequest{action: action, resource: resourceARN(call), context: requestContext(call)}
	verdict := evaluateIdentityPolicies(docs, req)
	c.account(accountFromARN(identity)).IAM.evaluationsLog().Record(identity, action, verdict == allowed)
	if verdict == allowed {
		return nil
	}
	return accessDenied(call, action, req.resource, verdict == explicitlyDenied)
}

// identityPolicies finds the policy documents of the principal's role or
// user; restricted is false for the account root.
func (c *Cloud) identityPolicies(p Principal) (identity string, docs []string, restricted bool) {
	switch {
	case p.RoleARN != "":
		identity = p.RoleARN
		iam := c.account(accountFromARN(identity)).IAM
		if r := iam.Role(lastSegment(identity)); r != nil {
			docs = iam.documents(r.InlinePolicies, r.AttachedPolicies)
		}
		return identity, docs, true
	case p.UserARN != "":
		identity = p.UserARN
		iam := c.account(accountFromARN(identity)).IAM
		if u := iam.User(lastSegment(identity)); u != nil {
			docs = iam.documents(u.InlinePolicies, u.AttachedPolicies)
		}
		return identity, docs, true
	}
	return "", nil, false
}

func (s *IAMState) documents(inline map[string]string, attached []string) []string {
	names := make([]string, 0, len(inline))
	for n := range inline {
		names = append(names, n)
	}
	sort.Strings(names)
	var docs []string
	for _, n := range names {
		docs = append(docs, inline[n])
	}
	for _, arn := range attached {
		if p := s.Policies[arn]; p != nil {
			docs = append(docs, p.Document)
		}
	}
	return docs
}

func (s *IAMState) evaluationsLog() sim.EvaluationLog {
	if s.evaluations == nil {
		s.evaluations = sim.EvaluationLog{}
	}
	return s.evaluations
}

// iamActionPrefix is the service prefix IAM actions use; it is the SigV4
// signing name for every service cloudsim speaks.
func iamActionPrefix(service string) string { return service }

// requestContext holds the global condition keys a policy can test.
func requestContext(call *Call) map[string][]string {
	ctx := map[string][]string{
		"aws:principalaccount": {call.Principal.Account},
		"aws:principalarn":     {principalARNForConditions(call.Principal)},
		"aws:userid":           {call.Principal.UserID},
		"aws:securetransport":  {"true"},
	}
	if call.RegionID != "" {
		ctx["aws:requestedregion"] = []string{call.RegionID}
		ctx["ec2:region"] = []string{call.RegionID}
	} else {
		ctx["aws:requestedregion"] = []string{"us-east-1"}
	}
	if call.Principal.UserARN != "" {
		ctx["aws:username"] = []string{lastSegment(call.Principal.UserARN)}
	}
	return ctx
}

// principalARNForConditions is aws:PrincipalArn: the role's ARN for a role
// session, as AWS reports it, and the user's ARN for a user.
func principalARNForConditions(p Principal) string {
	if p.RoleARN != "" {
		return p.RoleARN
	}
	if p.UserARN != "" {
		return p.UserARN
	}
	return p.ARN
}

// resourceARN is the resource a call acts on, where cloudsim models
// resource-level permissions (Route 53 hosted zones and changes, IAM
// entities); "*" elsewhere, so that only Resource "*" grants those calls —
// which is how AWS treats actions without resource-level permissions.
func resourceARN(call *Call) string {
	switch call.Service {
	case "route53":
		if id := call.PathVars["Id"]; id != "" {
			if call.Action == "GetChange" {
				return "arn:aws:route53:::change/" + id
			}
			return "arn:aws:route53:::hostedzone/" + id
		}
		if call.PathVars["ResourceType"] == "hostedzone" && call.PathVars["ResourceId"] != "" {
			return "arn:aws:route53:::hostedzone/" + call.PathVars["ResourceId"]
		}
	case "iam":
		return iamResourceARN(call)
	case "sts":
		if arn := call.Params.Get("RoleArn"); arn != "" {
			return arn
		}
	}
	return "*"
}

func iamResourceARN(call *Call) string {
	account := call.Principal.Account
	switch {
	case call.Params.Get("PolicyArn") != "" && !strings.Contains(call.Action, "RolePolicy") && !strings.Contains(call.Action, "UserPolicy"):
		return call.Params.Get("PolicyArn")
	case call.Params.Get("OpenIDConnectProviderArn") != "":
		return call.Params.Get("OpenIDConnectProviderArn")
	case call.Params.Get("RoleName") != "":
		return roleARN(account, entityPath(call, call.Account.IAM.rolePath(call.Params.Get("RoleName"))), call.Params.Get("RoleName"))
	case call.Params.Get("InstanceProfileName") != "":
		return "arn:aws:iam::" + account + ":instance-profile" + entityPath(call, "/") + call.Params.Get("InstanceProfileName")
	case call.Params.Get("UserName") != "":
		return "arn:aws:iam::" + account + ":user" + entityPath(call, "/") + call.Params.Get("UserName")
	case call.Action == "CreatePolicy":
		return "arn:aws:iam::" + account + ":policy" + entityPath(call, "/") + call.Params.Get("PolicyName")
	case call.Action == "CreateOpenIDConnectProvider":
		return "arn:aws:iam::" + account + ":oidc-provider/" + oidcHostPath(call.Params.Get("Url"))
	}
	return "*"
}

// entityPath is the Path parameter of a Create call, else the known path.
func entityPath(call *Call, known string) string {
	if p := call.Params.Get("Path"); p != "" {
		return p
	}
	return known
}

func (s *IAMState) rolePath(name string) string {
	if r := s.Role(name); r != nil {
		return r.Path
	}
	return "/"
}

// verdict is the outcome of evaluating identity policies.
type verdict int

const (
	implicitlyDenied verdict = iota
	allowed
	explicitlyDenied
)

// evalRequest is one action on one resource, with its condition keys
// (lower-cased).
type evalRequest struct {
	action, resource string
	context          map[string][]string
}

// evaluateIdentityPolicies: an explicit Deny in any document wins; else an
// Allow in any document allows; else the call is implicitly denied.
func evaluateIdentityPolicies(docs []string, req evalRequest) verdict {
	v := implicitlyDenied
	for _, doc := range docs {
		for _, st := range policyStatements(doc) {
			if !identityStatementApplies(st, req) {
				continue
			}
			switch st["Effect"] {
			case "Deny":
				return explicitlyDenied
			case "Allow":
				v = allowed
			}
		}
	}
	return v
}

// policyStatements returns a document's statements (one or a list); an
// unparsable document has none.
func policyStatements(doc string) []map[string]any {
	var policy struct {
		Statement json.RawMessage `json:"Statement"`
	}
	if json.Unmarshal([]byte(doc), &policy) != nil {
		return nil
	}
	var list []map[string]any
	if json.Unmarshal(policy.Statement, &list) == nil {
		return list
	}
	var one map[string]any
	if json.Unmarshal(policy.Statement, &one) == nil {
		return []map[string]any{one}
	}
	return nil
}

func identityStatementApplies(st map[string]any, req evalRequest) bool {
	if !matchesEither(st, "Action", "NotAction", req.action, anyPatternMatches) {
		return false
	}
	if !matchesEither(st, "Resource", "NotResource", req.resource, anyResourceMatches) {
		return false
	}
	cond, _ := st["Condition"].(map[string]any)
	return conditionsHold(cond, req.context)
}

// matchesEither applies the positive field when present, else the negated
// one; a statement with neither applies to nothing.
func matchesEither(st map[string]any, field, notField, value string, match func([]string, string) bool) bool {
	if v, ok := st[field]; ok {
		return match(stringsOf(v), value)
	}
	if v, ok := st[notField]; ok {
		return !match(stringsOf(v), value)
	}
	return false
}

// anyResourceMatches matches ARN patterns case-sensitively, with * and ?.
func anyResourceMatches(patterns []string, arn string) bool {
	for _, p := range patterns {
		if p == "*" || wildcardMatch(p, arn) {
			return true
		}
	}
	return false
}

// accessDenied is each service's answer to a refused call.
func accessDenied(call *Call, action, resource string, explicit bool) *APIError {
	why := "because no identity-based policy allows the " + action + " action"
	if explicit {
		why = "with an explicit deny in an identity-based policy"
	}
	who := call.Principal.ARN
	msg := "User: " + who + " is not authorized to perform: " + action + " on resource: " + resource + " " + why
	switch call.Service {
	case "ec2":
		return &APIError{Status: http.StatusForbidden, Code: "UnauthorizedOperation",
			Message: "You are not authorized to perform this operation. " + msg}
	default:
		return &APIError{Status: http.StatusForbidden, Code: "AccessDenied", Message: msg}
	}
}
