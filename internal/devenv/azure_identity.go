package devenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	appsv1 "k8s.io/api/apps/v1"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	simazure "github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator"
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
// the issuer that signs the operators' tokens, and the management
// operator's identity.
type azureEnv struct {
	server *cloudsim.Server
	cloud  azcloud.Configuration
	caPEM  []byte
	admin  azcore.TokenCredential
	opts   *arm.ClientOptions
	signer *sim.Signer
	// operatorPrincipalID is the management operator's identity's
	// principal, as cloudsim's Evaluations name it.
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

// managementOperator makes the management operator's identity with the
// code behind `hcplink create iam azure --operator`, as a user would (its
// role at the management cluster's resource group only), and returns what
// the operator's pod would have once `hcplink install` is given that
// command's output: the workload identity install renders into its
// Deployment, with the token the kubelet would project for the
// Deployment's ServiceAccount (signed by devenv's issuer) in workDir.
func (a *azureEnv) managementOperator(ctx context.Context, workDir string, mgmt AzureManagementNetwork) (azurecloud.Config, error) {
	out, err := azureiam.CreateOperator(ctx, azureiam.Clients{Credential: a.admin, Options: a.opts}, nil, azureiam.OperatorOptions{
		Namespace: operatorNamespace, IssuerURL: azureIssuer, SubscriptionID: mgmt.SubscriptionID,
		LoadBalancerResourceGroup: mgmt.ResourceGroup, Location: AzureLocation,
	})
	if err != nil {
		return azurecloud.Config{}, fmt.Errorf("creating the management operator's identity: %w", err)
	}
	a.operatorPrincipalID = out.PrincipalID
	deploy, err := installedDeployment(install.Options{Namespace: operatorNamespace, PrivatePlatform: operator.PlatformAzure,
		Azure: install.AzureCredentials{WorkloadIdentityClientID: out.ClientID, TenantID: out.TenantID,
			SubscriptionID: mgmt.SubscriptionID, PLSResourceGroup: mgmt.ResourceGroup}})
	if err != nil {
		return azurecloud.Config{}, err
	}
	id, err := azureWorkloadIdentityOf(deploy)
	if err != nil {
		return azurecloud.Config{}, err
	}
	if id.clientID == "" {
		return azurecloud.Config{}, fmt.Errorf("install's Deployment carries no Azure workload identity")
	}
	token, err := a.serviceAccountToken(deploy.Namespace, id.serviceAccount, id.audience, time.Now())
	if err != nil {
		return azurecloud.Config{}, err
	}
	tokenPath := filepath.Join(workDir, "management-operator-azure-token")
	if err := os.WriteFile(tokenPath, []byte(token), 0o600); err != nil {
		return azurecloud.Config{}, err
	}
	return a.config(azurecloud.Config{Kind: azurecloud.WorkloadIdentity, TenantID: id.tenantID, ClientID: id.clientID,
		FederatedTokenFile: tokenPath, SubscriptionID: envOf(deploy, azurecloud.EnvSubscriptionID)}), nil
}

// installedDeployment is the operator Deployment hcplink install renders
// for opts.
func installedDeployment(opts install.Options) (*appsv1.Deployment, error) {
	objs, err := install.Objects(opts)
	if err != nil {
		return nil, fmt.Errorf("rendering install's objects: %w", err)
	}
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("install renders no Deployment")
}

// envOf is the value of the Deployment's first container's variable name.
func envOf(deploy *appsv1.Deployment, name string) string {
	for _, e := range deploy.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
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
