package azure

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator/azureprivatelink"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// metricsComponent is the component label of the operator's Azure calls.
const metricsComponent = "operator"

// setup registers the AzurePrivateLinkService controller on the
// management subscription's clients, and, with load-balancer
// configurations to place routers on, the Placer (sharing the
// controller's listing of Private Link Services). The identity is the operator's own,
// read once: Options.Config when given, else the environment
// (AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE or
// AZURE_CLIENT_SECRET, AZURE_SUBSCRIPTION_ID, and the endpoints).
func setup(ctx context.Context, mgr manager.Manager, opts Options, so platform.SetupOptions) (platform.Started, error) {
	cfg, err := loadConfig(opts)
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	cred, err := cfg.Credential()
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	clientOpts, err := cfg.ClientOptions()
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	providers, err := azurecloud.NewProviders(cfg.SubscriptionID, cred, clientOpts)
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	scope := azurecloud.LoadBalancerScope{ResourceGroup: cfg.ResourceGroup, VNetID: cfg.VNetID}
	if scope.ResourceGroup == "" {
		if scope.ResourceGroup, err = resourceGroupFromNodes(ctx, mgr.GetAPIReader(), cfg.SubscriptionID); err != nil {
			return platform.Started{}, &platform.ConfigError{Err: err}
		}
	}
	r := &azureprivatelink.Reconciler{
		Client:              mgr.GetClient(),
		Cloud:               &azureprivatelink.Cloud{Provider: providers.PrivateLinkServices, Subscription: cfg.SubscriptionID, LoadBalancers: scope},
		ManagementClusterID: so.ManagementClusterID,
		DriftInterval:       so.DriftInterval,
		Events:              so.Events,
	}
	// Run may be called more than once in a process (the local environment,
	// tests): controller names need not be unique then.
	copts := controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: so.MaxConcurrentReconciles}
	if err := r.SetupWithManager(mgr, copts); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the AzurePrivateLinkService controller: %w", err)
	}
	started := platform.Started{Identity: TokenCaller(cred, cfg.Cloud, cfg.ClientID)}
	if len(opts.LoadBalancerConfigurations) > 0 {
		started.Placer = &Placer{Configurations: opts.LoadBalancerConfigurations, Reader: mgr.GetClient(), Services: r.Services, ResourceGroup: scope.ResourceGroup}
	}
	return started, nil
}

// loadConfig is the operator's Azure configuration: the given one, or the
// environment's. The management subscription is required.
func loadConfig(opts Options) (azurecloud.Config, error) {
	var cfg azurecloud.Config
	if opts.Config != nil {
		cfg = *opts.Config
	} else {
		loaded, err := azurecloud.ConfigFromEnv(os.Getenv)
		if err != nil {
			return azurecloud.Config{}, err
		}
		cfg = loaded
	}
	if cfg.SubscriptionID == "" {
		return azurecloud.Config{}, fmt.Errorf("the management subscription is not set (%s)", azurecloud.EnvSubscriptionID)
	}
	cfg.Component = metricsComponent
	return cfg, nil
}

// authorityHost is the Entra ID authority of the operator's own Azure
// configuration, or of its environment: the control-plane operators it
// renders sign in at the same cloud (public, sovereign, or cloudsim). ""
// leaves the rendering's default, Azure's public cloud.
func authorityHost(cfg *azurecloud.Config, getenv func(string) string) string {
	if cfg != nil && cfg.Cloud.ActiveDirectoryAuthorityHost != "" {
		return cfg.Cloud.ActiveDirectoryAuthorityHost
	}
	return getenv(azurecloud.EnvAuthorityHost)
}

// TokenCaller checks the management credentials by asking Entra ID for a
// Resource Manager token: no ARM call, and a refusal (a wrong secret, a
// federated credential that does not match) is access denied.
func TokenCaller(cred azcore.TokenCredential, c azcloud.Configuration, clientID string) platform.IdentityCaller {
	audience := c.Services[azcloud.ResourceManager].Audience
	return func(ctx context.Context) (string, error) {
		_, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{audience + "/.default"}})
		var refused *azidentity.AuthenticationFailedError
		if errors.As(err, &refused) && refused.RawResponse != nil && refused.RawResponse.StatusCode/100 == 4 {
			return "", &cloud.Error{Doing: "getting a Resource Manager token", Class: cloud.ClassAccessDenied, Code: "AuthenticationFailed",
				Message: "Entra ID refused the operator's credentials.", Err: err}
		}
		if err != nil {
			return "", err
		}
		return "client " + clientID, nil
	}
}

// resourceGroupFromNodes is the management cluster's resource group as its
// Nodes name it (spec.providerID of an Azure VM in the management
// subscription): where the Azure cloud provider puts the cluster's load
// balancers. The first page of Nodes is enough: every Node of the cluster
// has its VMs in that group.
func resourceGroupFromNodes(ctx context.Context, c client.Reader, subscription string) (string, error) {
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.Limit(20)); err != nil {
		return "", fmt.Errorf("reading the Nodes for the management cluster's resource group (or set --azure-pls-resource-group): %w", err)
	}
	for _, n := range nodes.Items {
		if rg := azurecloud.ResourceGroupOfNode(n.Spec.ProviderID, subscription); rg != "" {
			return rg, nil
		}
	}
	return "", errors.New("no Node names an Azure VM of the management subscription in spec.providerID; set --azure-pls-resource-group to the resource group of the management cluster's load balancers")
}
