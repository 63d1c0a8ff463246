package aws

import "strings"

// A role's and a user's policies work alike: inline documents by name
// within a size quota, and up to ten attached managed policies. The
// handlers of both kinds share these functions.

// policyHolder is one role's or user's policies.
type policyHolder struct {
	kind        string // "role" or "user", as IAM's messages say it
	name        string
	inline      *map[string]string
	attached    *[]string
	inlineLimit int    // characters other than white space, over all inline documents
	attachQuota string // the quota IAM names when an eleventh policy is attached
}

func (r *Role) policies() policyHolder {
	return policyHolder{"role", r.Name, &r.InlinePolicies, &r.AttachedPolicies, 10240, "PoliciesPerRole"}
}

func (u *User) policies() policyHolder {
	return policyHolder{"user", u.Name, &u.InlinePolicies, &u.AttachedPolicies, 2048, "PoliciesPerUser"}
}

// policyHandler is one operation on a role's or user's policies.
type policyHandler func(call *Call, h policyHolder) (any, *APIError)

// forRole runs f on the policies of the role named by RoleName.
func forRole(f policyHandler) Handler {
	return func(call *Call) (any, *APIError) {
		r, err := roleParam(call)
		if err != nil {
			return nil, err
		}
		return f(call, r.policies())
	}
}

// forUser runs f on the policies of the user named by UserName.
func forUser(f policyHandler) Handler {
	return func(call *Call) (any, *APIError) {
		u, err := userParam(call)
		if err != nil {
			return nil, err
		}
		return f(call, u.policies())
	}
}

func putInlinePolicy(call *Call, h policyHolder) (any, *APIError) {
	name, err := iamName(call, "PolicyName", "policyName", 128)
	if err != nil {
		return nil, err
	}
	doc, err := policyDocument(call, "PolicyDocument", "policyDocument", false)
	if err != nil {
		return nil, err
	}
	total := policySize(doc)
	for n, d := range *h.inline {
		if n != name {
			total += policySize(d)
		}
	}
	if total > h.inlineLimit {
		return nil, iamLimitExceeded("Maximum policy size of %d bytes exceeded for %s %s", h.inlineLimit, h.kind, h.name)
	}
	if *h.inline == nil {
		*h.inline = map[string]string{}
	}
	(*h.inline)[name] = doc
	return nil, nil
}

// inlinePolicyName returns the PolicyName parameter of an existing policy.
func inlinePolicyName(call *Call, h policyHolder) (string, *APIError) {
	name, err := iamRequired(call, "PolicyName", "policyName")
	if err != nil {
		return "", err
	}
	if _, ok := (*h.inline)[name]; !ok {
		return "", noSuchEntity("The %s policy with name %s cannot be found.", h.kind, name)
	}
	return name, nil
}

func deleteInlinePolicy(call *Call, h policyHolder) (any, *APIError) {
	name, err := inlinePolicyName(call, h)
	if err != nil {
		return nil, err
	}
	delete(*h.inline, name)
	return nil, nil
}

type listInlinePoliciesResult struct {
	PolicyNames members[string] `xml:"PolicyNames"`
	IsTruncated bool            `xml:"IsTruncated"`
	Marker      string          `xml:"Marker,omitempty"`
}

func listInlinePolicies(call *Call, h policyHolder) (any, *APIError) {
	names := make([]string, 0, len(*h.inline))
	for n := range *h.inline {
		names = append(names, n)
	}
	page, truncated, marker, err := iamPage(call, names, func(s string) string { return s })
	if err != nil {
		return nil, err
	}
	return listInlinePoliciesResult{PolicyNames: members[string]{page}, IsTruncated: truncated, Marker: marker}, nil
}

func attachManagedPolicy(call *Call, h policyHolder) (any, *APIError) {
	arn, err := iamRequired(call, "PolicyArn", "policyArn")
	if err != nil {
		return nil, err
	}
	if call.Account.IAM.Policies[arn] == nil {
		return nil, noSuchEntity("Policy %s does not exist or is not attachable.", arn)
	}
	if contains(*h.attached, arn) {
		return nil, nil
	}
	if len(*h.attached) >= 10 {
		return nil, iamLimitExceeded("Cannot exceed quota for %s: 10", h.attachQuota)
	}
	*h.attached = append(*h.attached, arn)
	return nil, nil
}

func detachManagedPolicy(call *Call, h policyHolder) (any, *APIError) {
	arn, err := iamRequired(call, "PolicyArn", "policyArn")
	if err != nil {
		return nil, err
	}
	if !contains(*h.attached, arn) {
		return nil, noSuchEntity("Policy %s was not found.", arn)
	}
	*h.attached = without(*h.attached, []string{arn})
	return nil, nil
}

type iamAttachedPolicyXML struct {
	PolicyName string `xml:"PolicyName"`
	PolicyArn  string `xml:"PolicyArn"`
}

type listAttachedPoliciesResult struct {
	AttachedPolicies members[iamAttachedPolicyXML] `xml:"AttachedPolicies"`
	IsTruncated      bool                          `xml:"IsTruncated"`
	Marker           string                        `xml:"Marker,omitempty"`
}

func listAttachedPolicies(call *Call, h policyHolder) (any, *APIError) {
	var attached []iamAttachedPolicyXML
	for _, arn := range *h.attached {
		p := call.Account.IAM.Policies[arn]
		if p != nil && strings.HasPrefix(p.Path, call.Str("PathPrefix")) {
			attached = append(attached, iamAttachedPolicyXML{PolicyName: p.Name, PolicyArn: arn})
		}
	}
	page, truncated, marker, err := iamPage(call, attached, func(a iamAttachedPolicyXML) string { return a.PolicyName })
	if err != nil {
		return nil, err
	}
	return listAttachedPoliciesResult{AttachedPolicies: members[iamAttachedPolicyXML]{page}, IsTruncated: truncated, Marker: marker}, nil
}
