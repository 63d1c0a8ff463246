package aws

import (
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// IAMState is the IAM model of one account (IAM is global). Owner: iam*.go.
type IAMState struct {
	Roles            map[string]*Role            `json:"roles"`            // by role name
	Policies         map[string]*ManagedPolicy   `json:"policies"`         // by ARN
	InstanceProfiles map[string]*InstanceProfile `json:"instanceProfiles"` // by name
	OIDCProviders    map[string]*OIDCProvider    `json:"oidcProviders"`    // by ARN
	Users            map[string]*User            `json:"users"`            // by user name

	// evaluations records the identity-policy decisions (iam_eval.go).
	// evaluations is what was decided for each identity (role or user
	// ARN) of the account, by action; Reset forgets it with the account.
	evaluations sim.EvaluationLog
}

func newIAMState() *IAMState {
	return &IAMState{
		Roles:            map[string]*Role{},
		Policies:         map[string]*ManagedPolicy{},
		InstanceProfiles: map[string]*InstanceProfile{},
		OIDCProviders:    map[string]*OIDCProvider{},
		Users:            map[string]*User{},
	}
}

// Role is an IAM role. Policy documents are kept exactly as given.
type Role struct {
	Name                     string `json:"name"`
	Path                     string `json:"path"`
	ARN                      string `json:"arn"`
	AssumeRolePolicyDocument string `json:"assumeRolePolicyDocument"`

	ID                  string            `json:"id"` // AROA…
	Description         string            `json:"description,omitempty"`
	MaxSessionDuration  int               `json:"maxSessionDuration"` // seconds
	PermissionsBoundary string            `json:"permissionsBoundary,omitempty"`
	CreatedAt           time.Time         `json:"createdAt"`
	Tags                map[string]string `json:"tags,omitempty"`
	// InlinePolicies are PutRolePolicy documents by policy name.
	InlinePolicies map[string]string `json:"inlinePolicies,omitempty"`
	// AttachedPolicies are managed policy ARNs, in attachment order.
	AttachedPolicies []string `json:"attachedPolicies,omitempty"`
}

// ManagedPolicy is a customer managed policy (one version, v1).
type ManagedPolicy struct {
	Name        string            `json:"name"`
	Path        string            `json:"path"`
	ARN         string            `json:"arn"`
	ID          string            `json:"id"` // ANPA…
	Description string            `json:"description,omitempty"`
	Document    string            `json:"document"`
	CreatedAt   time.Time         `json:"createdAt"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// InstanceProfile holds at most one role, as on AWS.
type InstanceProfile struct {
	Name      string            `json:"name"`
	Path      string            `json:"path"`
	ARN       string            `json:"arn"`
	ID        string            `json:"id"` // AIPA…
	RoleNames []string          `json:"roleNames,omitempty"`
	CreatedAt time.Time         `json:"createdAt"`
	Tags      map[string]string `json:"tags,omitempty"`
}

// OIDCProvider is an IAM OpenID Connect identity provider.
type OIDCProvider struct {
	ARN         string            `json:"arn"`
	URL         string            `json:"url"` // https://host/path as given, less a trailing slash
	ClientIDs   []string          `json:"clientIds"`
	Thumbprints []string          `json:"thumbprints,omitempty"`
	CreatedAt   time.Time         `json:"createdAt"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// HostPath is the provider's URL without its scheme, as IAM uses it in the
// provider ARN and in condition keys ("<host/path>:sub").
func (p *OIDCProvider) HostPath() string { return oidcHostPath(p.URL) }

func oidcHostPath(u string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/")
}

// Role returns the role with the given name; IAM names are unique without
// regard to case, and lookups ignore case too.
func (s *IAMState) Role(name string) *Role {
	if r := s.Roles[name]; r != nil {
		return r
	}
	for n, r := range s.Roles {
		if strings.EqualFold(n, name) {
			return r
		}
	}
	return nil
}

// InstanceProfile returns the instance profile with the given name, ignoring case.
func (s *IAMState) InstanceProfile(name string) *InstanceProfile {
	if p := s.InstanceProfiles[name]; p != nil {
		return p
	}
	for n, p := range s.InstanceProfiles {
		if strings.EqualFold(n, name) {
			return p
		}
	}
	return nil
}
