// Package azure registers Azure Private Link with the control-plane
// operator's platform registry: the observer of the private router, the
// Private Endpoint controller, the check of the cluster's Azure settings
// (which holds back the router Services until they are valid) and the
// Entra ID credentials check.
package azure

import (
	"context"
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/controlplane/azureprivatelink"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/intervals"
)

// Name is the Azure platform's name.
const Name = "Azure"

// Platform describes Azure Private Link on the control-plane side.
func Platform() platform.Platform {
	return platform.Platform{
		Name: Name,
		Type: hcplinkv1beta1.AzurePlatform,
		// Five minutes: ARM's request buckets are per principal and refill
		// faster than AWS's account-wide ones (see intervals.AzureDrift).
		DefaultDriftInterval: intervals.AzureDrift,
		IsPrivate:            azureprivatelink.PrivateConfigured,
		MayCreateRouters:     azureprivatelink.MayCreateRouters,
		RouterAnnotations:    azureprivatelink.RouterAnnotations,
		RouterAnnotationKeys: azurecloud.RouterAnnotationKeys,
		Setup:                setup,
	}
}

// setup registers the observer of the private router, the endpoint
// controller, the settings check and returns the identity check. The
// Azure configuration is read now (the one given, else the environment:
// AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE,
// AZURE_AUTHORITY_HOST, AZURE_RESOURCE_MANAGER_ENDPOINT, AZURE_CA_BUNDLE,
// ...); the credential is built only when an Azure cluster needs it.
func setup(_ context.Context, mgr manager.Manager, opts platform.SetupOptions) (platform.Started, error) {
	var cfg azurecloud.Config
	if given, _ := opts.Cloud.(*azurecloud.Config); given != nil {
		cfg = *given
	} else {
		read, err := azurecloud.ConfigFromEnv(os.Getenv)
		if err != nil {
			return platform.Started{}, fmt.Errorf("reading the Azure configuration: %w", err)
		}
		cfg = read
	}
	cfg.Component = opts.MetricsComponent
	if err := (&azureprivatelink.Observer{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the Azure private router observer: %w", err)
	}
	factory := &azureprivatelink.ARMFactory{Config: &cfg}
	if err := (&azureprivatelink.Reconciler{Client: mgr.GetClient(), Cloud: factory, DriftInterval: opts.DriftInterval,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles, Events: opts.Events}).SetupWithManager(mgr); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the Azure endpoint controller: %w", err)
	}
	if err := (&azureprivatelink.Validator{Client: mgr.GetClient(), Cloud: factory}).SetupWithManager(mgr); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the Azure settings check: %w", err)
	}
	return platform.Started{Credentials: &CredentialsChecker{Cloud: factory}}, nil
}
