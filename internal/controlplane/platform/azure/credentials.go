package azure

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/controlplane/azureprivatelink"
)

// CredentialsChecker checks the control-plane operator's Azure identity
// for the shared credentials controller: it asks Entra ID for a Resource
// Manager token (which needs no role), and the answer becomes the
// HostedControlPlane's ValidCloudCredentials condition, which the
// operator's escape hatch reads when a deletion is stuck on cloud cleanup.
type CredentialsChecker struct {
	Cloud *azureprivatelink.ARMFactory
}

// Name names the Azure check's controller.
func (c *CredentialsChecker) Name() string { return "azurecredentials" }

// Serves: Azure clusters with the private configuration.
func (c *CredentialsChecker) Serves(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return azureprivatelink.PrivateConfigured(hcp)
}

// Proven is false: nothing records successful Azure calls yet, and the
// token check is cheap.
func (c *CredentialsChecker) Proven() bool { return false }

// Check asks Entra ID for a token.
func (c *CredentialsChecker) Check(ctx context.Context, _ *hcplinkv1beta1.HostedControlPlane) (metav1.Condition, error) {
	err := c.Cloud.TokenCheck(ctx)
	return CredentialsCondition(err), err
}

// CredentialsCondition turns the answer of a token request into the
// ValidCloudCredentials condition: True when Entra ID issued a token; False
// when it refused the identity; Unknown when the check could not tell.
// Messages carry the HTTP status at most, never the authority's answer
// (it holds URLs, trace and correlation IDs).
func CredentialsCondition(err error) metav1.Condition {
	cond := metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition}
	var authErr *azidentity.AuthenticationFailedError
	var missing *azurecloud.MissingWorkloadIdentityError
	switch {
	case err == nil:
		cond.Status, cond.Reason = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason
		cond.Message = "The control-plane operator's Azure identity obtains Resource Manager tokens"
	case errors.As(err, &missing):
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.IdentityNotConfiguredReason
		cond.Message = "The control-plane operator has no Azure workload identity, and uses no other: set spec.platform.azure.tenantID and " +
			"spec.platform.azure.azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID on the HostedCluster " +
			"(hcplink create iam azure makes the identity)"
	case errors.As(err, &authErr) && authErr.RawResponse != nil && authErr.RawResponse.StatusCode/100 == 4:
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason
		cond.Message = fmt.Sprintf("Entra ID refused the control-plane operator's Azure identity (HTTP %d): check the workload identity's client ID, tenant and federated credential",
			authErr.RawResponse.StatusCode)
	default:
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason
		cond.Message = "Could not obtain a token from Entra ID to check the control-plane operator's Azure identity; retrying"
	}
	return cond
}
