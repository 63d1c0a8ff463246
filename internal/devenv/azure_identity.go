package devenv

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/google/uuid"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	simazure "github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
)

const (
	// azureIssuer issues the CPOs' service-account tokens; cloudsim trusts
	// its keys, registered at start, as it would fetch a cluster issuer's.
	azureIssuer = "https://" + oidcHost + "/azure"
	// azurePollInterval is how often devenv polls its own long-running
	// operations on cloudsim.
	azurePollInterval = 100 * time.Millisecond
)

// azureEnv is devenv's Azure directory work: the administrator's reach,
// the issuer that signs the control-plane operators' tokens, and the
// management operator's identity.
type azureEnv struct {
	server *cloudsim.Server
	cloud  azcloud.Configuration
	caPEM  []byte
	admin  azcore.TokenCredential
	opts   *arm.ClientOptions
	signer *sim.Signer
	// operatorPrincipalID is the management operator's service principal.
	operatorPrincipalID string
	guest               AzureGuestNetwork
}

// newAzureEnv registers the subscriptions and the issuer's keys in a
// started cloudsim (HTTPS) and signs in as its administrator.
func newAzureEnv(server *cloudsim.Server) (*azureEnv, error) {
	for _, sub := range []string{AzureManagementSubscription, AzureGuestSubscription, AzureOtherSubscription} {
		if err := server.Azure.AddSubscription(simazure.DefaultTenantID, sub); err != nil {
			return nil, fmt.Errorf("registering subscription %s: %w", sub, err)
		}
	}
	a := &azureEnv{
		server: server,
		cloud:  azurecloud.CloudConfiguration(server.URL(), server.URL(), ""),
		caPEM:  server.CACertPEM(),
		signer: sim.NewSigner(),
	}
	server.Azure.SetIssuerKeys(azureIssuer, a.signer.JWKS())
	admin := a.config(azurecloud.Config{Kind: azurecloud.ClientSecret, TenantID: simazure.DefaultTenantID,
		ClientID: simazure.AdminClientID, ClientSecret: simazure.AdminClientSecret})
	var err error
	if a.admin, err = admin.Credential(); err != nil {
		return nil, err
	}
	if a.opts, err = admin.ClientOptions(); err != nil {
		return nil, err
	}
	return a, nil
}

// config completes an identity with cloudsim's endpoints and CA.
func (a *azureEnv) config(c azurecloud.Config) azurecloud.Config {
	c.Cloud, c.CACertPEM = a.cloud, a.caPEM
	return c
}

// managementOperator registers the management operator's service
// principal, holding exactly the management operator's custom role on the
// management subscription, and returns its configuration.
func (a *azureEnv) managementOperator(ctx context.Context) (azurecloud.Config, error) {
	scope := "/subscriptions/" + AzureManagementSubscription
	role, err := a.customRole(ctx, azurecloud.ManagementOperator, scope)
	if err != nil {
		return azurecloud.Config{}, err
	}
	sp, err := a.server.Azure.AddServicePrincipal(simazure.DefaultTenantID, "hcplink-management-operator")
	if err != nil {
		return azurecloud.Config{}, err
	}
	if err := a.assign(ctx, scope, role, sp.ObjectID); err != nil {
		return azurecloud.Config{}, err
	}
	a.operatorPrincipalID = sp.ObjectID
	return a.config(azurecloud.Config{Kind: azurecloud.ClientSecret, TenantID: sp.TenantID, ClientID: sp.ClientID,
		ClientSecret: sp.ClientSecret, SubscriptionID: AzureManagementSubscription}), nil
}

// customRole creates a component's custom role (azurecloud.CustomRole)
// assignable at scope and returns its ID.
func (a *azureEnv) customRole(ctx context.Context, c azurecloud.Component, scope string) (string, error) {
	defs, err := armauthorization.NewRoleDefinitionsClient(a.admin, a.opts)
	if err != nil {
		return "", err
	}
	role := azurecloud.CustomRole(c, scope)
	out, err := defs.CreateOrUpdate(ctx, scope, stableGUID("role", string(c), scope), armauthorization.RoleDefinition{
		Properties: &armauthorization.RoleDefinitionProperties{
			RoleName: to.Ptr(role.Name), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
			Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...), NotActions: []*string{}}},
			AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
		},
	}, nil)
	if err != nil {
		return "", fmt.Errorf("creating the custom role %q: %w", role.Name, err)
	}
	return *out.ID, nil
}

// assign gives a principal a role at scope; the assignment's name is
// derived from all three, so that assigning again changes nothing.
func (a *azureEnv) assign(ctx context.Context, scope, roleID, principalID string) error {
	assignments, err := armauthorization.NewRoleAssignmentsClient(AzureManagementSubscription, a.admin, a.opts)
	if err != nil {
		return err
	}
	_, err = assignments.Create(ctx, scope, stableGUID("assignment", scope, roleID, principalID), armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(principalID), RoleDefinitionID: to.Ptr(roleID),
			PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal),
		},
	}, nil)
	if err != nil {
		return fmt.Errorf("assigning role %s at %s: %w", roleID, scope, err)
	}
	return nil
}

// prepareCluster makes the cluster's control-plane operator identity with
// the code behind hcplink create iam azure, as a user would, and returns
// the cluster's fixture with its tenant and client ID.
func (a *azureEnv) prepareCluster(ctx context.Context, namespace, name, infraID string) (AzureClusterFixture, error) {
	f := AzureClusterFixture{
		SubscriptionID: a.guest.SubscriptionID, ResourceGroup: a.guest.ResourceGroup, Location: AzureLocation,
		VNetID: a.guest.VNetID, SubnetID: a.guest.SubnetIDs[0], SecondSubnetID: a.guest.SubnetIDs[1],
	}
	out, err := azureiam.Create(ctx, azureiam.Clients{Credential: a.admin, Options: a.opts}, nil, azureiam.Options{
		InfraID: infraID, Namespace: namespace, Name: name, IssuerURL: azureIssuer,
		SubscriptionID: a.guest.SubscriptionID, ResourceGroup: a.guest.ResourceGroup, Location: AzureLocation,
	})
	if err != nil {
		return f, fmt.Errorf("creating the control-plane operator's identity: %w", err)
	}
	f.TenantID, f.ControlPlaneOperatorClientID, f.ControlPlaneOperatorPrincipalID = out.TenantID, out.ClientID, out.PrincipalID
	return f, nil
}

// serviceAccountToken signs the token the kubelet would project for a
// ServiceAccount with audience: the devenv issuer is the management
// cluster's.
func (a *azureEnv) serviceAccountToken(namespace, serviceAccount, audience string, now time.Time) (string, error) {
	return a.signer.Sign(map[string]any{
		"iss": azureIssuer,
		"sub": "system:serviceaccount:" + namespace + ":" + serviceAccount,
		"aud": []string{audience},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	})
}

// tenantID is the tenant every devenv identity lives in.
func (a *azureEnv) tenantID() string { return simazure.DefaultTenantID }

// stableGUID is a GUID derived from parts, for names that must not change
// between runs of the same set-up.
func stableGUID(parts ...string) string {
	data := ""
	for _, p := range parts {
		data += p + "\x00"
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("hcplink-devenv\x00"+data)).String()
}
