package azure

import (
	"fmt"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The directory's administration, for tests, tools and the control API.
// Microsoft Graph is not emulated: app registrations are made here.

// ServicePrincipal is what a caller needs to log in as a new application.
type ServicePrincipal struct {
	TenantID     string `json:"tenantId"`
	ClientID     string `json:"appId"`
	ObjectID     string `json:"objectId"` // the service principal's, as role assignments name it
	ClientSecret string `json:"clientSecret,omitempty"`
}

// AddTenant creates a tenant (id "" picks a new GUID) and returns its ID.
func (c *Cloud) AddTenant(id, displayName string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		id = newGUID()
	}
	if t := c.directory.tenant(id); t != nil {
		return t.ID
	}
	c.directory.addTenant(id, displayName)
	return id
}

// AddSubscription registers a subscription in a tenant. A subscription
// never registered joins the tenant of the first caller that uses it.
func (c *Cloud) AddSubscription(tenantID, subscriptionID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.directory.tenant(tenantID) == nil {
		return fmt.Errorf("tenant %s does not exist", tenantID)
	}
	if s := c.directory.Subscriptions[strings.ToLower(subscriptionID)]; s != nil && !strings.EqualFold(s.TenantID, tenantID) {
		return fmt.Errorf("subscription %s is already in tenant %s", subscriptionID, s.TenantID)
	}
	c.directory.subscription(subscriptionID, tenantID)
	return nil
}

// AddServicePrincipal registers an application with a service principal
// and one client secret in a tenant.
func (c *Cloud) AddServicePrincipal(tenantID, displayName string) (ServicePrincipal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.directory.tenant(tenantID)
	if t == nil {
		return ServicePrincipal{}, fmt.Errorf("tenant %s does not exist", tenantID)
	}
	secret := "cs~" + strings.ReplaceAll(newGUID(), "-", "")
	app := &Application{
		ClientID: newGUID(), ObjectID: newGUID(), PrincipalID: newGUID(), DisplayName: displayName, TenantID: t.ID,
		Secrets: []ClientSecret{{KeyID: newGUID(), Value: secret, Hint: secret[:3], Expires: time.Now().AddDate(2, 0, 0)}},
	}
	t.Applications[strings.ToLower(app.ClientID)] = app
	return ServicePrincipal{TenantID: t.ID, ClientID: app.ClientID, ObjectID: app.PrincipalID, ClientSecret: secret}, nil
}

// AddFederatedCredential lets tokens from an external issuer log in as the
// application (workload identity).
func (c *Cloud) AddFederatedCredential(tenantID, clientID string, fc FederatedCredential) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	app := c.directory.application(tenantID, clientID)
	if app == nil {
		return fmt.Errorf("application %s not found in tenant %s", clientID, tenantID)
	}
	if fc.Name == "" || fc.Issuer == "" || fc.Subject == "" {
		return fmt.Errorf("a federated credential needs a name, an issuer and a subject")
	}
	if len(fc.Audiences) == 0 {
		fc.Audiences = []string{"api://AzureADTokenExchange"}
	}
	for _, existing := range app.FederatedCredentials {
		if existing.Name == fc.Name {
			return fmt.Errorf("federated credential %q already exists", fc.Name)
		}
	}
	app.FederatedCredentials = append(app.FederatedCredentials, fc)
	return nil
}

// SetIssuerKeys registers an OIDC issuer's keys by hand, for issuers that
// cannot be fetched (a test's issuer with no discovery endpoint).
func (c *Cloud) SetIssuerKeys(issuer string, keys sim.JWKS) { c.issuerKeys.Set(issuer, keys) }
