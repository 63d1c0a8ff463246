package gcp

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Project is a Google Cloud project: an ID, a number, and its IAM policy.
type Project struct {
	ID     string `json:"projectId"`
	Number string `json:"projectNumber"`
	Policy Policy `json:"iamPolicy"`
}

// ServiceAccount is a Google service account, with the policy on the
// account itself that says who may impersonate it.
type ServiceAccount struct {
	Email       string `json:"email"`
	ProjectID   string `json:"projectId"`
	UniqueID    string `json:"uniqueId"`
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	Policy      Policy `json:"iamPolicy"`
	// keys are the public halves of the account's keys (identity_oauth2.go).
	keys sim.JWKS
}

// Provider is a workload identity pool's OIDC provider.
type Provider struct {
	ProjectNumber string `json:"projectNumber"`
	PoolID        string `json:"poolId"`
	ProviderID    string `json:"providerId"`
	IssuerURI     string `json:"issuerUri"`
	// AllowedAudiences; empty accepts the provider's own URL
	// (https://iam.googleapis.com/projects/N/locations/global/...), as Google does.
	AllowedAudiences []string `json:"allowedAudiences,omitempty"`
	// AttributeMapping maps google.subject and attribute.* to assertion.CLAIM;
	// without google.subject, assertion.sub.
	AttributeMapping map[string]string `json:"attributeMapping,omitempty"`
	DisplayName      string            `json:"displayName,omitempty"`
	Description      string            `json:"description,omitempty"`
	Disabled         bool              `json:"disabled,omitempty"`
	// Deleted providers sign nobody in and keep their ID until undeleted.
	Deleted bool `json:"deleted,omitempty"`
}

func (p *Provider) state() string {
	if p.Deleted {
		return "DELETED"
	}
	return "ACTIVE"
}

// check refuses what cloudsim cannot honour: no issuer URL, or a mapping
// other than google.subject and attribute.NAME from assertion.CLAIM.
func (p *Provider) check() error {
	if p.PoolID == "" || p.ProviderID == "" || !strings.HasPrefix(p.IssuerURI, "https://") && !strings.HasPrefix(p.IssuerURI, "http://") {
		return fmt.Errorf("a provider needs poolId, providerId and an issuerUri URL")
	}
	for target, expr := range p.AttributeMapping {
		if !strings.HasPrefix(expr, "assertion.") || (target != "google.subject" && !strings.HasPrefix(target, "attribute.")) {
			return fmt.Errorf("attribute mapping %s=%s: cloudsim maps google.subject and attribute.NAME from assertion.CLAIM only", target, expr)
		}
	}
	return nil
}

// signsIn tells whether STS may exchange tokens at the provider: it and its
// pool are neither deleted nor disabled.
func (c *Cloud) signsIn(p *Provider) bool {
	pool := c.st.pools[strings.TrimSuffix(p.Name(), "/providers/"+p.ProviderID)]
	return !p.Deleted && !p.Disabled && (pool == nil || pool.State == "ACTIVE" && !pool.Disabled)
}

// Name is the provider's resource name, as STS's audience names it after "//iam.googleapis.com/".
func (p *Provider) Name() string {
	return fmt.Sprintf("projects/%s/locations/global/workloadIdentityPools/%s/providers/%s", p.ProjectNumber, p.PoolID, p.ProviderID)
}

// poolPrincipalPrefix starts every principal the pool federates.
func (p *Provider) poolPrincipalPrefix() string {
	return fmt.Sprintf("principal://iam.googleapis.com/projects/%s/locations/global/workloadIdentityPools/%s/subject/", p.ProjectNumber, p.PoolID)
}

type accessToken struct {
	principal string
	expires   time.Time
}

// AdminToken is the bootstrap administrator's access token: the owner of
// every project cloudsim holds. Give it to gcloud
// (CLOUDSDK_AUTH_ACCESS_TOKEN) or to a Go client's token source.
const AdminToken = "ya29.cloudsim-admin"

// AdminPrincipal is the administrator as IAM names it.
const AdminPrincipal = "user:admin@cloudsim.test"

// tokenLifetime is how long STS and IAM Credentials tokens last (Google's default, one hour).
const tokenLifetime = time.Hour

func (c *Cloud) bootstrapAdmin() {
	c.st.tokens[AdminToken] = &accessToken{principal: AdminPrincipal, expires: time.Unix(1<<40, 0)}
}

// AddProject creates a project (its number is made up when empty) whose
// owner is the administrator.
func (c *Cloud) AddProject(id, number string) (*Project, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !validName(id) || len(id) < 6 || len(id) > 30 {
		return nil, fmt.Errorf("project ID %q: 6 to 30 lower-case letters, digits or hyphens, starting with a letter", id)
	}
	if c.st.projects[id] != nil {
		return nil, fmt.Errorf("project %s exists", id)
	}
	if other := c.project(number); number != "" && other != nil {
		return nil, fmt.Errorf("project number %s belongs to %s", number, other.ID)
	}
	for number == "" { // a made-up number, unlike every other project's
		if candidate := fmt.Sprint(100000000000 + c.newID()%900000000000); c.project(candidate) == nil {
			number = candidate
		}
	}
	p := &Project{ID: id, Number: number, Policy: Policy{Version: 1, Bindings: []Binding{{Role: "roles/owner", Members: []string{AdminPrincipal}}}}}
	p.Policy.Etag = c.etag()
	c.st.projects[id] = p
	return p, nil
}

// project finds a project by ID or number.
func (c *Cloud) project(idOrNumber string) *Project {
	if p := c.st.projects[idOrNumber]; p != nil {
		return p
	}
	for _, p := range c.st.projects {
		if p.Number == idOrNumber {
			return p
		}
	}
	return nil
}

// AddServiceAccount creates NAME@PROJECT.iam.gserviceaccount.com.
func (c *Cloud) AddServiceAccount(projectID, name, displayName string) (*ServiceAccount, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.projects[projectID] == nil {
		return nil, fmt.Errorf("no project %s", projectID)
	}
	if !validName(name) || len(name) < 6 || len(name) > 30 {
		return nil, fmt.Errorf("service account name %q: 6 to 30 lower-case letters, digits or hyphens", name)
	}
	email := name + "@" + projectID + ".iam.gserviceaccount.com"
	if c.st.serviceAccounts[email] != nil {
		return nil, fmt.Errorf("service account %s exists", email)
	}
	sa := &ServiceAccount{Email: email, ProjectID: projectID, UniqueID: fmt.Sprint(c.newID()), DisplayName: displayName}
	sa.Policy.Version, sa.Policy.Etag = 1, c.etag()
	c.st.serviceAccounts[email] = sa
	return sa, nil
}

// GrantOnServiceAccount adds member to role in a service account's own policy
// (roles/iam.workloadIdentityUser for a federated principal, for instance).
func (c *Cloud) GrantOnServiceAccount(email, role, member string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	sa := c.st.serviceAccounts[email]
	if sa == nil {
		return fmt.Errorf("no service account %s", email)
	}
	if err := c.checkRole(role); err != nil {
		return err
	}
	sa.Policy.add(role, member, nil)
	sa.Policy.Etag = c.etag()
	return nil
}

// AddProvider creates a workload identity pool provider (and its pool).
func (c *Cloud) AddProvider(p Provider) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.project(p.ProjectNumber) == nil {
		return fmt.Errorf("no project numbered %s", p.ProjectNumber)
	}
	if err := p.check(); err != nil {
		return err
	}
	p.ProjectNumber = c.project(p.ProjectNumber).Number
	if c.st.providers[p.Name()] != nil {
		return fmt.Errorf("provider %s exists", p.Name())
	}
	c.st.providers[p.Name()] = &p
	pool := strings.TrimSuffix(p.Name(), "/providers/"+p.ProviderID)
	if c.st.pools[pool] == nil {
		c.st.pools[pool] = &Pool{Name: pool, State: "ACTIVE"}
	}
	return nil
}

// SetIssuerKeys registers an OIDC issuer's keys, for issuers cloudsim cannot fetch.
func (c *Cloud) SetIssuerKeys(issuer string, keys sim.JWKS) { c.issuerKeys.Set(issuer, keys) }

// issueToken mints an opaque access token for principal.
func (c *Cloud) issueToken(principal string, now time.Time, lifetime time.Duration) (string, time.Time) {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	token := "ya29.cs" + base64.RawURLEncoding.EncodeToString(raw)
	expires := now.Add(lifetime)
	c.st.tokens[token] = &accessToken{principal: principal, expires: expires}
	return token, expires
}

// authenticate maps the request's bearer token to its principal.
func (c *Cloud) authenticate(r *http.Request) (string, *Error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return "", errUnauthenticated("Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.st.tokens[token]
	if t == nil || !c.clock.Now().Before(t.expires) {
		return "", errUnauthenticated("Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	return t.principal, nil
}

// principalEmail is the "user" an operation records.
func principalEmail(principal string) string {
	if _, email, ok := strings.Cut(principal, ":"); ok && !strings.HasPrefix(principal, "principal") {
		return email
	}
	return principal
}

func (c *Cloud) etag() string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%08x", c.newID())))
}

// Grant adds member to role in a project's IAM policy, under an optional
// condition (as setIamPolicy would).
func (c *Cloud) Grant(projectID, role, member string, cond *Expr) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.project(projectID)
	if p == nil {
		return fmt.Errorf("no project %s", projectID)
	}
	if err := c.checkRole(role); err != nil {
		return err
	}
	if cond != nil && !cond.valid() {
		return fmt.Errorf("condition %q: cloudsim evaluates resource.name.startsWith(\"...\") and resource.name == \"...\" joined by ||", cond.Expression)
	}
	p.Policy.add(role, member, cond)
	p.Policy.Etag = c.etag()
	return nil
}

// IssueToken mints an access token for any principal, for tests and tools
// that skip the sign-in (as gcloud auth print-access-token would give).
func (c *Cloud) IssueToken(principal string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	token, _ := c.issueToken(principal, c.clock.Now(), tokenLifetime)
	return token
}

// ResetQuotas empties the rate quotas' windows; the control API calls it
// when the fault configuration changes.
func (c *Cloud) ResetQuotas() { c.quotas.reset() }
