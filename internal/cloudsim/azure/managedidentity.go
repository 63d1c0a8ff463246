package azure

import (
	"strings"
)

// Microsoft.ManagedIdentity: user-assigned managed identities and their
// federated identity credentials, as armmsi and `az identity` use them.
// Each identity is also a service principal in the subscription's tenant
// (its clientId signs in, its principalId is what role assignments name),
// and each federated credential lets tokens of an external issuer sign in
// as it: workload identity, checked as for app registrations.

const (
	typeUserAssignedIdentity = "Microsoft.ManagedIdentity/userAssignedIdentities"
	typeFederatedCredential  = "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"
	// maxFederatedCredentials per identity: "A maximum of 20 federated
	// identity credentials can be added to an application or user-assigned
	// managed identity" (learn.microsoft.com/entra/workload-id/workload-identity-federation-considerations).
	maxFederatedCredentials = 20
)

// The api-versions Azure serves for the two types, from
// learn.microsoft.com/azure/templates/microsoft.managedidentity/allversions:
// every GA version and the previews still listed there, because stock
// clients send them (az 2.45's `az identity` sends 2022-01-31-preview);
// armmsi v1.3.0 sends 2024-11-30.
var (
	managedIdentityAPIVersions = []string{"2015-08-31-preview", "2018-11-30", "2021-09-30-preview", "2022-01-31-preview",
		"2023-01-31", "2023-07-31-preview", "2024-11-30", "2025-01-31-preview"}
	federatedCredentialAPIVersions = []string{"2022-01-31-preview", "2023-01-31", "2023-07-31-preview", "2024-11-30", "2025-01-31-preview"}
)

func init() {
	Register(TypeSpec{
		Type: typeUserAssignedIdentity, APIVersions: managedIdentityAPIVersions, RequiresLocation: true,
		NoProvisioningState: true, PlainETag: true,
		Put: putUserAssignedIdentity, Removed: userAssignedIdentityRemoved,
	})
	Register(TypeSpec{
		Type: typeFederatedCredential, APIVersions: federatedCredentialAPIVersions,
		NoProvisioningState: true, PlainETag: true,
		Put: putFederatedCredential, Removed: federatedCredentialRemoved,
	})
}

// identityProps are a user-assigned identity's read-only properties.
type identityProps struct {
	TenantID    string `json:"tenantId"`
	PrincipalID string `json:"principalId"`
	ClientID    string `json:"clientId"`
}

// federatedCredentialProps are a federated identity credential's.
type federatedCredentialProps struct {
	Issuer    string   `json:"issuer"`
	Subject   string   `json:"subject"`
	Audiences []string `json:"audiences"`
}

func putUserAssignedIdentity(req *Request, existing *Resource) (*Reply, *Error) {
	env, err := req.Envelope(nil)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		// IDs never change; only tags (the location cannot).
		if !strings.EqualFold(NormalizeLocation(env.Location), existing.Location) {
			return nil, BadRequest("InvalidResourceLocation", "The resource '%s' already exists in location '%s' in resource group '%s'. A resource with the same name cannot be created in location '%s'. Please select a new resource name.",
				existing.Name(), existing.Location, req.ID.ResourceGroup, NormalizeLocation(env.Location))
		}
		res := *existing
		res.Tags = env.Tags
		return &Reply{Resource: &res}, nil
	}
	sub := req.Cloud.directory.subscription(req.ID.Subscription, req.Principal.TenantID)
	tenant := req.Cloud.directory.tenant(sub.TenantID)
	if tenant == nil {
		return nil, NewError(404, "SubscriptionNotFound", "The subscription '%s' could not be found.", req.ID.Subscription)
	}
	props := &identityProps{TenantID: tenant.ID, PrincipalID: newGUID(), ClientID: newGUID()}
	tenant.Applications[strings.ToLower(props.ClientID)] = &Application{
		ClientID: props.ClientID, ObjectID: newGUID(), PrincipalID: props.PrincipalID,
		DisplayName: req.ID.Name(), TenantID: tenant.ID,
	}
	return &Reply{Resource: req.NewResource(env, props)}, nil
}

// userAssignedIdentityRemoved deletes the identity's service principal.
func userAssignedIdentityRemoved(c *Cloud, r *Resource) {
	p := r.Properties.(*identityProps)
	if t := c.directory.tenant(p.TenantID); t != nil {
		delete(t.Applications, strings.ToLower(p.ClientID))
	}
}

func putFederatedCredential(req *Request, existing *Resource) (*Reply, *Error) {
	var body struct {
		Properties *federatedCredentialProps `json:"properties"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	p := body.Properties
	if p == nil || p.Issuer == "" || p.Subject == "" {
		return nil, BadRequest("BadRequest", "The issuer and subject of a federated identity credential are required.")
	}
	if !strings.HasPrefix(p.Issuer, "https://") {
		return nil, BadRequest("BadRequest", "The issuer must be a valid URL that starts with 'https://'.")
	}
	if len(p.Audiences) != 1 {
		return nil, BadRequest("BadRequest", "Exactly one audience is required for a federated identity credential.")
	}
	app := identityApplication(req.Cloud, req.Store.Get(req.ID.Parent()))
	if app == nil {
		return nil, ErrResourceNotFound(req.ID.Parent())
	}
	name := req.ID.Name()
	kept := app.FederatedCredentials[:0]
	for _, fc := range app.FederatedCredentials {
		if fc.Name != name {
			kept = append(kept, fc)
		}
	}
	if len(kept) >= maxFederatedCredentials {
		return nil, BadRequest("BadRequest", "The maximum number of federated identity credentials (%d) for this identity has been reached.", maxFederatedCredentials)
	}
	app.FederatedCredentials = append(kept, FederatedCredential{Name: name, Issuer: p.Issuer, Subject: p.Subject, Audiences: p.Audiences})
	return &Reply{Resource: &Resource{Properties: p, CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now}}, nil
}

// federatedCredentialRemoved stops the credential from signing in.
func federatedCredentialRemoved(c *Cloud, r *Resource) {
	app := identityApplication(c, c.store.Get(r.ID.Parent()))
	if app == nil {
		return // the identity went first, with its service principal
	}
	kept := app.FederatedCredentials[:0]
	for _, fc := range app.FederatedCredentials {
		if fc.Name != r.Name() {
			kept = append(kept, fc)
		}
	}
	app.FederatedCredentials = kept
}

// identityApplication is the service principal behind a stored identity.
func identityApplication(c *Cloud, identity *Resource) *Application {
	if identity == nil {
		return nil
	}
	p := identity.Properties.(*identityProps)
	return c.directory.application(p.TenantID, p.ClientID)
}
