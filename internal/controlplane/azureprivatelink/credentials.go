package azureprivatelink

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
)

// How often the Azure identity is checked again (jittered by up to 20%).
const (
	// credentialsValidRecheck: a working identity rarely breaks; azidentity
	// caches the token, so most checks cost no call at all.
	credentialsValidRecheck = 5 * time.Minute
	// credentialsInvalidRecheck: a fixed identity should unblock a waiting
	// deletion soon.
	credentialsInvalidRecheck = time.Minute
	// credentialsUnknownRecheck: an authority that did not answer may
	// answer soon.
	credentialsUnknownRecheck = 30 * time.Second
	// tokenTimeout bounds one token request.
	tokenTimeout = 20 * time.Second
)

// CredentialsReconciler checks the control-plane operator's Azure identity
// for an Azure cluster with the private configuration: it asks Entra ID
// for a Resource Manager token (which needs no role) and records the
// answer in the HostedControlPlane's ValidCloudCredentials condition,
// which the operator's escape hatch reads when a deletion is stuck on
// cloud cleanup. (The AWS credentials controller writes the same condition
// for AWS clusters, under the same field manager; a cluster has one
// platform, so each condition has one writer.)
type CredentialsReconciler struct {
	Client client.Client
	Cloud  *ARMFactory
}

// SetupWithManager registers the check for the HostedControlPlane's
// creation and spec changes; it then runs on its own schedule.
func (r *CredentialsReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("azurecredentials").
		For(&hcplinkv1beta1.HostedControlPlane{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

// Reconcile checks the identity and records the result.
func (r *CredentialsReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !PrivateConfigured(hcp) {
		return ctrl.Result{}, nil
	}
	callCtx, cancel := context.WithTimeout(ctx, tokenTimeout)
	err := r.Cloud.checkToken(callCtx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctrl.Result{}, ctx.Err()
	}
	cond := AzureCredentialsCondition(err)
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("Checking the Azure identity failed", "reason", cond.Reason, "error", err.Error())
	}
	w := conditions.Writer{Client: r.Client, FieldOwner: credentials.FieldOwner}
	if _, werr := w.Apply(ctx, hcp, &hcp.Status.Conditions, cond); werr != nil {
		return ctrl.Result{}, werr
	}
	next := credentialsUnknownRecheck
	switch cond.Status {
	case metav1.ConditionTrue:
		next = credentialsValidRecheck
	case metav1.ConditionFalse:
		next = credentialsInvalidRecheck
	}
	return ctrl.Result{RequeueAfter: next + time.Duration(rand.Float64()*0.2*float64(next))}, nil
}

// AzureCredentialsCondition turns the answer of a token request into the
// ValidCloudCredentials condition: True when Entra ID issued a token; False
// when it refused the identity; Unknown when the check could not tell.
// Messages carry the HTTP status at most, never the authority's answer
// (it holds URLs, trace and correlation IDs).
func AzureCredentialsCondition(err error) metav1.Condition {
	cond := metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition}
	var authErr *azidentity.AuthenticationFailedError
	switch {
	case err == nil:
		cond.Status, cond.Reason = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason
		cond.Message = "The control-plane operator's Azure identity obtains Resource Manager tokens"
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

// checkToken asks for a Resource Manager token with the factory's identity.
func (f *ARMFactory) checkToken(ctx context.Context) error {
	f.mu.Lock()
	if f.Credential == nil {
		if err := f.fromConfig(); err != nil {
			f.mu.Unlock()
			return err
		}
	}
	cred, audience := f.Credential, f.audience()
	f.mu.Unlock()
	_, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{audience + "/.default"}})
	return err
}

// audience is Resource Manager's token audience for the factory's cloud.
func (f *ARMFactory) audience() string {
	c := cloud.AzurePublic
	if f.Options != nil && f.Options.Cloud.Services != nil {
		c = f.Options.Cloud
	}
	if rm, ok := c.Services[cloud.ResourceManager]; ok && rm.Audience != "" {
		return rm.Audience
	}
	return cloud.AzurePublic.Services[cloud.ResourceManager].Audience
}
