package devenv

import (
	"os"
	"path/filepath"
	"time"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// azureIdentity is the client ID a control-plane namespace's operator
// signs in with ("" on AWS, or when PrepareAzureCluster was not called).
func (r *cpoRunner) azureIdentity(namespace string) string {
	if r.azure == nil {
		return ""
	}
	return r.azure.controlPlaneOperatorIdentity(namespace)
}

// azureConfig is what Azure's workload identity webhook gives the pod of a
// ServiceAccount with a client ID: the client and tenant, a projected
// token file (minted here, signed by the devenv issuer) and, as devenv's
// own addition, cloudsim's endpoints and CA. Nil on AWS; without an
// identity the operator gets only the endpoints, and its credentials
// check says it has none.
func (r *cpoRunner) azureConfig(namespace string) (*azurecloud.Config, error) {
	if r.azure == nil {
		return nil, nil
	}
	clientID := r.azureIdentity(namespace)
	if clientID == "" {
		cfg := r.azure.config(azurecloud.Config{})
		return &cfg, nil
	}
	token, err := r.azure.serviceAccountToken(namespace, cpoName, time.Now())
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.workDir, "pods", namespace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tokenPath := filepath.Join(dir, "azure-identity-token")
	if err := os.WriteFile(tokenPath, []byte(token), 0o600); err != nil {
		return nil, err
	}
	cfg := r.azure.config(azurecloud.Config{Kind: azurecloud.WorkloadIdentity, TenantID: r.azure.tenantID(),
		ClientID: clientID, FederatedTokenFile: tokenPath})
	return &cfg, nil
}
