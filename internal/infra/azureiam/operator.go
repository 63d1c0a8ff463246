package azureiam

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

const (
	// DefaultOperatorIdentity names the management operator's identity.
	DefaultOperatorIdentity = "hcplink-operator"
	// operatorFederatedCredentialName names its one federated credential.
	operatorFederatedCredentialName = "management-operator"
)

// OperatorOptions say which management cluster the management operator's
// identity is for. The identity's role is assigned at the load balancers'
// resource group and the VNet's, never at the subscription: those are the
// only places the operator reads or writes (internal/cloud/azure,
// permissions.go).
type OperatorOptions struct {
	// IdentityName names the identity (DefaultOperatorIdentity when empty).
	IdentityName string
	// Namespace is where hcplink install runs the operator: its
	// ServiceAccount there is the only subject the identity trusts.
	Namespace string
	// IssuerURL is the management cluster's service-account issuer.
	IssuerURL string
	// SubscriptionID is the management subscription.
	SubscriptionID string
	// LoadBalancerResourceGroup is the management cluster's load balancers'
	// resource group (the operator's --azure-pls-resource-group): where it
	// reads load balancers and makes Private Link Services.
	LoadBalancerResourceGroup string
	// VNetID is the management cluster's VNet (the operator's
	// --azure-vnet-id), where it makes NAT subnets; empty when the VNet is
	// in LoadBalancerResourceGroup.
	VNetID string
	// ResourceGroup is where the identity lives (LoadBalancerResourceGroup
	// when empty); its role is not assigned there unless it is one of the
	// two above.
	ResourceGroup string
	// Location is the identity's region.
	Location string
	// Tags are added to the identity.
	Tags map[string]string
}

// OperatorOutput is what hcplink install needs (InstallFlags) and the IDs
// of everything made.
type OperatorOutput struct {
	TenantID              string   `json:"tenantID"`
	ClientID              string   `json:"clientID"`
	PrincipalID           string   `json:"principalID"`
	IdentityID            string   `json:"identityID"`
	FederatedCredentialID string   `json:"federatedCredentialID"`
	Issuer                string   `json:"issuer"`
	Subject               string   `json:"subject"`
	RoleDefinitionID      string   `json:"roleDefinitionID"`
	RoleAssignmentIDs     []string `json:"roleAssignmentIDs"`
	// InstallFlags are hcplink install's flags that run the operator as
	// this identity, in this management cluster.
	InstallFlags []string `json:"installFlags"`
}

// withDefaults fills the defaults in.
func (o OperatorOptions) withDefaults() OperatorOptions {
	if o.IdentityName == "" {
		o.IdentityName = DefaultOperatorIdentity
	}
	if o.ResourceGroup == "" {
		o.ResourceGroup = o.LoadBalancerResourceGroup
	}
	return o
}

func (o OperatorOptions) validate(create bool) error {
	switch {
	case !uuidPattern.MatchString(o.SubscriptionID):
		return fmt.Errorf("--subscription-id must be the management subscription's UUID")
	case !isResourceGroup(o.LoadBalancerResourceGroup):
		return fmt.Errorf("--azure-pls-resource-group must name the management cluster's load balancers' resource group (the operator's, as hcplink install takes it)")
	case !isResourceGroup(o.ResourceGroup):
		return fmt.Errorf("--resource-group must name a resource group")
	case len(o.IdentityName) < 3 || len(o.IdentityName) > 128:
		return fmt.Errorf("--operator-identity must be 3 to 128 characters")
	}
	if o.VNetID != "" {
		vnet, err := azurecloud.ParseVNetID(o.VNetID)
		if err != nil {
			return fmt.Errorf("--azure-vnet-id: %w", err)
		}
		if !strings.EqualFold(vnet.SubscriptionID, o.SubscriptionID) {
			return fmt.Errorf("--azure-vnet-id is in subscription %s, not the management subscription %s: the operator works in one subscription", vnet.SubscriptionID, o.SubscriptionID)
		}
	}
	if !create {
		return nil
	}
	switch {
	case o.Namespace == "":
		return fmt.Errorf("--namespace must name the namespace hcplink install runs the operator in")
	case o.Location == "":
		return fmt.Errorf("--location is required")
	}
	u, err := url.Parse(o.IssuerURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--oidc-issuer-url must be an https URL, not %q", o.IssuerURL)
	}
	return nil
}

func isResourceGroup(s string) bool {
	return resourceGroupPattern.MatchString(s) && !strings.HasSuffix(s, ".")
}

// OperatorSubject is the only ServiceAccount the management operator's
// identity trusts: the one hcplink install renders, in its namespace.
func OperatorSubject(namespace string) string {
	return "system:serviceaccount:" + namespace + ":" + hcplinkv1beta1.ManagementOperatorName
}

// scopes are where the operator's role is assigned: the load balancers'
// resource group and the VNet's when it is another.
func (o OperatorOptions) scopes() []string {
	s := []string{resourceGroupScope(o.SubscriptionID, o.LoadBalancerResourceGroup)}
	if o.VNetID == "" {
		return s
	}
	if vnet, err := azurecloud.ParseVNetID(o.VNetID); err == nil && !strings.EqualFold(vnet.ResourceGroup, o.LoadBalancerResourceGroup) {
		s = append(s, resourceGroupScope(o.SubscriptionID, vnet.ResourceGroup))
	}
	return s
}

// spec is the management operator's identity.
func (o OperatorOptions) spec() identitySpec {
	tags := map[string]*string{TagCreatedBy: to.Ptr(TagCreatedByValue), TagComponent: to.Ptr(string(azurecloud.ManagementOperator))}
	for k, v := range o.Tags {
		tags[k] = to.Ptr(v)
	}
	return identitySpec{
		component: azurecloud.ManagementOperator, subscriptionID: o.SubscriptionID, resourceGroup: o.ResourceGroup,
		name: o.IdentityName, location: o.Location, tags: tags,
		owned: func(tags map[string]*string) bool {
			return deref(tags[TagCreatedBy]) == TagCreatedByValue && deref(tags[TagComponent]) == string(azurecloud.ManagementOperator)
		},
		notOurs: fmt.Sprintf("the management operator (tags %s=%s, %s=%s)", TagCreatedBy, TagCreatedByValue, TagComponent, azurecloud.ManagementOperator),
		remedy:  "choose another --operator-identity or delete it",
		issuer:  o.IssuerURL, subject: OperatorSubject(o.Namespace), federatedCredential: operatorFederatedCredentialName,
		// One role per identity, unique in the tenant: destroying one
		// management cluster's never touches another's.
		roleName: azurecloud.CustomRole(azurecloud.ManagementOperator).Name + " " + o.ResourceGroup + "/" + o.IdentityName,
		roleGUID: stableGUID("operator-role", o.SubscriptionID, o.ResourceGroup, o.IdentityName),
		scopes:   o.scopes(),
	}
}

// CreateOperator makes, or finds and completes, the management operator's
// identity: a user-assigned managed identity trusting exactly the
// ServiceAccount hcplink install renders (at the management cluster's
// issuer), and a custom role of exactly the management operator's actions
// assigned at the load balancers' resource group and the VNet's. Running
// it again changes nothing; an identity of that name that hcplink did not
// make for the management operator is refused.
func CreateOperator(ctx context.Context, c Clients, log io.Writer, o OperatorOptions) (*OperatorOutput, error) {
	o = o.withDefaults()
	if err := o.validate(true); err != nil {
		return nil, err
	}
	s := o.spec()
	m, err := s.ensure(ctx, c, log)
	if err != nil {
		return nil, err
	}
	p := m.identity.Properties
	out := &OperatorOutput{TenantID: deref(p.TenantID), ClientID: deref(p.ClientID), PrincipalID: deref(p.PrincipalID),
		IdentityID: deref(m.identity.ID), FederatedCredentialID: m.federatedCredentialID, Issuer: o.IssuerURL, Subject: s.subject,
		RoleDefinitionID: m.roleID, RoleAssignmentIDs: m.roleAssignmentIDs}
	out.InstallFlags = o.installFlags(out.ClientID, out.TenantID)
	return out, nil
}

// installFlags are hcplink install's flags for this identity; the names
// are install's own (cmd/hcplink/install.go), which a test holds them to.
func (o OperatorOptions) installFlags(clientID, tenantID string) []string {
	flags := []string{"--private-platform", "Azure",
		"--azure-workload-identity-client-id", clientID, "--azure-tenant-id", tenantID,
		"--azure-subscription-id", o.SubscriptionID, "--azure-pls-resource-group", o.LoadBalancerResourceGroup}
	if o.VNetID != "" {
		flags = append(flags, "--azure-vnet-id", o.VNetID)
	}
	return append(flags, "--namespace", o.Namespace)
}

// DestroyOperator deletes what CreateOperator made: the role's assignments
// (wherever the role is assignable), the role, and the identity with its
// federated credential; only an identity tagged as hcplink's management
// operator.
func DestroyOperator(ctx context.Context, c Clients, log io.Writer, o OperatorOptions) error {
	o = o.withDefaults()
	if err := o.validate(false); err != nil {
		return err
	}
	return o.spec().destroy(ctx, c, log)
}
