// Package azureiam creates and destroys the Azure identity a private hosted
// cluster's control-plane operator signs in as: a user-assigned managed
// identity, a federated identity credential trusting exactly that
// cluster's control-plane-operator ServiceAccount at the management
// cluster's issuer, and a custom role of exactly the control-plane
// operator's actions (the table in internal/cloud/azure, permissions.go)
// assigned at the guest resource group and the VNet's, never wider. It is
// the Azure counterpart of internal/infra/awsiam.
package azureiam

import (
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/google/uuid"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Tags on the identity: what hcplink made, and for which infra ID. Destroy
// deletes only an identity that carries both.
const (
	TagCreatedBy      = "hcplink.io/created-by"
	TagCreatedByValue = "hcplink"
	TagInfraID        = "hcplink.io/infra-id"
	TagComponent      = "hcplink.io/component"

	// tokenAudience is the audience Entra ID's token exchange expects of a
	// workload identity's token.
	tokenAudience = "api://AzureADTokenExchange"
	// federatedCredentialName names the one federated credential.
	federatedCredentialName = "control-plane-operator"
)

// Options say which cluster the identity is for.
type Options struct {
	// InfraID names the identity and its role and tags the identity.
	InfraID string
	// Namespace and Name are the HostedCluster's: its control-plane
	// operator's ServiceAccount is the only subject the identity trusts.
	Namespace, Name string
	// IssuerURL is the management cluster's service-account issuer.
	IssuerURL string
	// SubscriptionID, ResourceGroup and Location are the cluster's
	// (spec.platform.azure): the identity lives in the resource group and
	// its role is assigned there.
	SubscriptionID, ResourceGroup, Location string
	// VNetResourceGroup is the resource group of the cluster's VNet when it
	// is another (same subscription); the role is assigned there too.
	VNetResourceGroup string
	// Tags are added to the identity.
	Tags map[string]string
}

// Clients are the Azure credential and options the commands call with.
type Clients struct {
	Credential azcore.TokenCredential
	Options    *arm.ClientOptions
}

// Output is what the HostedCluster needs (tenantID, clientID) and the IDs
// of everything made.
type Output struct {
	InfraID               string   `json:"infraID"`
	TenantID              string   `json:"tenantID"`
	ClientID              string   `json:"clientID"`
	PrincipalID           string   `json:"principalID"`
	IdentityID            string   `json:"identityID"`
	FederatedCredentialID string   `json:"federatedCredentialID"`
	Issuer                string   `json:"issuer"`
	Subject               string   `json:"subject"`
	RoleDefinitionID      string   `json:"roleDefinitionID"`
	RoleAssignmentIDs     []string `json:"roleAssignmentIDs"`
}

var (
	uuidPattern          = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	resourceGroupPattern = regexp.MustCompile(`^[-A-Za-z0-9_.()]{1,90}$`)
)

func (o Options) validate(create bool) error {
	switch {
	case o.InfraID == "":
		return fmt.Errorf("--infra-id is required")
	case len(identityName(o.InfraID)) > 128:
		return fmt.Errorf("--infra-id %q is too long: identity names are at most 128 characters", o.InfraID)
	case !uuidPattern.MatchString(o.SubscriptionID):
		return fmt.Errorf("--subscription-id must be a subscription UUID")
	case !resourceGroupPattern.MatchString(o.ResourceGroup) || strings.HasSuffix(o.ResourceGroup, "."):
		return fmt.Errorf("--resource-group must name a resource group")
	case o.VNetResourceGroup != "" && (!resourceGroupPattern.MatchString(o.VNetResourceGroup) || strings.HasSuffix(o.VNetResourceGroup, ".")):
		return fmt.Errorf("--vnet-resource-group must name a resource group")
	}
	if !create {
		return nil
	}
	switch {
	case o.Name == "" || o.Namespace == "":
		return fmt.Errorf("--name and --namespace of the HostedCluster are required: the identity trusts only its control-plane operator")
	case o.Location == "":
		return fmt.Errorf("--location is required")
	}
	u, err := url.Parse(o.IssuerURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--oidc-issuer-url must be an https URL, not %q", o.IssuerURL)
	}
	return nil
}

// identityName is the managed identity's name.
func identityName(infraID string) string { return infraID + "-control-plane-operator" }

// Subject is the only ServiceAccount the identity trusts: the cluster's
// control-plane operator in its control-plane namespace.
func Subject(namespace, name string) string {
	return "system:serviceaccount:" + hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name) + ":control-plane-operator"
}

// resourceGroupScope is a resource group's ID, the only scope roles are
// assigned at.
func resourceGroupScope(subscriptionID, group string) string {
	return "/subscriptions/" + subscriptionID + "/resourceGroups/" + group
}

// scopes are where the role is assigned: the cluster's resource group and
// the VNet's when it is another.
func (o Options) scopes() []string {
	s := []string{resourceGroupScope(o.SubscriptionID, o.ResourceGroup)}
	if o.VNetResourceGroup != "" && !strings.EqualFold(o.VNetResourceGroup, o.ResourceGroup) {
		s = append(s, resourceGroupScope(o.SubscriptionID, o.VNetResourceGroup))
	}
	return s
}

// roleName is the custom role's name, unique in the tenant: one role per
// cluster, so that destroying one cluster's never touches another's.
func roleName(infraID string) string {
	return azurecloud.CustomRole(azurecloud.ControlPlaneOperator).Name + " " + infraID
}

// stableGUID derives the names of role definitions and assignments, so
// that running again finds what the last run made.
func stableGUID(parts ...string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("hcplink-azureiam\x00"+strings.Join(parts, "\x00"))).String()
}

func ownedBy(tags map[string]*string, infraID string) bool {
	return deref(tags[TagCreatedBy]) == TagCreatedByValue && deref(tags[TagInfraID]) == infraID
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// authorizationGoneCodes are the 404 codes Microsoft.Authorization answers
// for its own absent resources, besides ARM's generic ones.
var authorizationGoneCodes = map[string]bool{"RoleDefinitionDoesNotExist": true, "RoleAssignmentNotFound": true}

// gone reports whether the resource addressed is absent (never a missing
// subscription or resource group: that is an error to report).
func gone(err error) bool {
	if azurecloud.IsNotFound(err) {
		return true
	}
	re, ok := azurecloud.ResponseError(err)
	return ok && re.StatusCode == 404 && authorizationGoneCodes[re.ErrorCode]
}
