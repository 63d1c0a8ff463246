package azure

import (
	"sort"
	"strings"
	"time"
)

// Entra ID, as far as ARM's callers need it: tenants, applications with
// their service principals, client secrets and federated credentials, and
// the subscriptions each tenant holds.

// Bootstrap identities, so that a fresh cloudsim can be used at once: one
// tenant, and an administrator application that owns every subscription of
// that tenant (a role assignment at the root scope).
const (
	DefaultTenantID     = "72f988bf-0000-4000-8000-00000000c10d"
	AdminClientID       = "a0000000-0000-4000-8000-00000000ad01"
	AdminClientSecret   = "cloudsim-admin-secret"
	adminObjectID       = "a0000000-0000-4000-8000-00000000ad02"
	adminApplicationOID = "a0000000-0000-4000-8000-00000000ad03"
)

// DefaultSubscriptions exist from the start in the default tenant, so that
// a fresh cloudsim has subscriptions to log in to (az login lists them).
var DefaultSubscriptions = []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"}

// Directory holds the tenants and which tenant each subscription is in.
type Directory struct {
	Tenants       map[string]*Tenant       `json:"tenants"`       // by lower-cased tenant ID
	Subscriptions map[string]*Subscription `json:"subscriptions"` // by lower-cased subscription ID
}

// Tenant is one Entra ID directory.
type Tenant struct {
	ID           string                  `json:"id"`
	DisplayName  string                  `json:"displayName"`
	Applications map[string]*Application `json:"applications"` // by lower-cased client (app) ID
}

// Application is an app registration and its service principal in one:
// the client ID callers log in with, the service principal's object ID that
// role assignments name, its secrets and federated credentials.
type Application struct {
	ClientID             string                `json:"appId"`
	ObjectID             string                `json:"applicationObjectId"`
	PrincipalID          string                `json:"servicePrincipalObjectId"`
	DisplayName          string                `json:"displayName"`
	TenantID             string                `json:"tenantId"`
	Secrets              []ClientSecret        `json:"secrets"`
	FederatedCredentials []FederatedCredential `json:"federatedCredentials"`
}

// ClientSecret is a password credential of an application.
type ClientSecret struct {
	KeyID   string    `json:"keyId"`
	Value   string    `json:"-"`
	Hint    string    `json:"hint"`
	Expires time.Time `json:"endDateTime"`
}

// FederatedCredential lets tokens of an external issuer (a Kubernetes
// service account) act as the application: issuer, subject and audience
// must all match exactly, as Entra ID requires.
type FederatedCredential struct {
	Name      string   `json:"name"`
	Issuer    string   `json:"issuer"`
	Subject   string   `json:"subject"`
	Audiences []string `json:"audiences"`
}

// Subscription is a subscription and its tenant.
type Subscription struct {
	ID          string `json:"subscriptionId"`
	TenantID    string `json:"tenantId"`
	DisplayName string `json:"displayName"`
	State       string `json:"state"`
}

// Principal is who is calling ARM, from the access token.
type Principal struct {
	TenantID    string `json:"tenantId"`
	ObjectID    string `json:"objectId"`
	ClientID    string `json:"appId"`
	DisplayName string `json:"displayName"`
}

func newDirectory() *Directory {
	d := &Directory{Tenants: map[string]*Tenant{}, Subscriptions: map[string]*Subscription{}}
	t := d.addTenant(DefaultTenantID, "cloudsim")
	t.Applications[strings.ToLower(AdminClientID)] = &Application{
		ClientID: AdminClientID, ObjectID: adminApplicationOID, PrincipalID: adminObjectID,
		DisplayName: "cloudsim-admin", TenantID: DefaultTenantID,
		Secrets: []ClientSecret{{KeyID: newGUID(), Value: AdminClientSecret, Hint: AdminClientSecret[:3], Expires: time.Now().AddDate(10, 0, 0)}},
	}
	for _, sub := range DefaultSubscriptions {
		d.subscription(sub, DefaultTenantID)
	}
	return d
}

func (d *Directory) addTenant(id, name string) *Tenant {
	t := &Tenant{ID: id, DisplayName: name, Applications: map[string]*Application{}}
	d.Tenants[strings.ToLower(id)] = t
	return t
}

func (d *Directory) tenant(id string) *Tenant { return d.Tenants[strings.ToLower(id)] }

// application finds an application by client ID in a tenant.
func (d *Directory) application(tenantID, clientID string) *Application {
	t := d.tenant(tenantID)
	if t == nil {
		return nil
	}
	return t.Applications[strings.ToLower(clientID)]
}

// tenantOfClient finds the tenant holding an application.
func (d *Directory) tenantOfClient(clientID string) *Tenant {
	for _, t := range d.Tenants {
		if t.Applications[strings.ToLower(clientID)] != nil {
			return t
		}
	}
	return nil
}

// principalByObjectID finds a service principal anywhere.
func (d *Directory) principalByObjectID(oid string) *Application {
	for _, t := range d.Tenants {
		for _, a := range t.Applications {
			if strings.EqualFold(a.PrincipalID, oid) {
				return a
			}
		}
	}
	return nil
}

// subscription returns a subscription, creating it in the caller's tenant
// on first use: like AWS accounts, subscriptions simply exist, and belong
// to whoever's tenant touches them first unless registered beforehand.
func (d *Directory) subscription(id, tenantID string) *Subscription {
	s := d.Subscriptions[strings.ToLower(id)]
	if s == nil && tenantID != "" {
		s = &Subscription{ID: id, TenantID: tenantID, DisplayName: "cloudsim " + id, State: "Enabled"}
		d.Subscriptions[strings.ToLower(id)] = s
	}
	return s
}

func (d *Directory) snapshot() []map[string]any {
	var out []map[string]any
	for _, t := range d.Tenants {
		var apps []*Application
		for _, a := range t.Applications {
			apps = append(apps, a)
		}
		sort.Slice(apps, func(i, j int) bool { return apps[i].ClientID < apps[j].ClientID })
		var subs []*Subscription
		for _, s := range d.Subscriptions {
			if strings.EqualFold(s.TenantID, t.ID) {
				subs = append(subs, s)
			}
		}
		sort.Slice(subs, func(i, j int) bool { return subs[i].ID < subs[j].ID })
		out = append(out, map[string]any{"id": t.ID, "displayName": t.DisplayName, "applications": apps, "subscriptions": subs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["id"].(string) < out[j]["id"].(string) })
	return out
}
