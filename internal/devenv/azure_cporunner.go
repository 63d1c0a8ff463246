package devenv

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// azureWorkloadIdentity is what a control-plane operator's pod carries for
// Azure workload identity: the variables azidentity reads, and the
// ServiceAccount and audience of the projected token the kubelet writes to
// the token file. Zero when the Deployment carries none.
type azureWorkloadIdentity struct {
	clientID, tenantID string
	serviceAccount     string
	audience           string
}

// azureWorkloadIdentityOf reads the Deployment exactly as a kubelet would
// run it: the container's AZURE_CLIENT_ID and AZURE_TENANT_ID, and the
// projected ServiceAccount token mounted where AZURE_FEDERATED_TOKEN_FILE
// points (its audience is the volume's). A Deployment without those
// variables runs without an identity, as its pod would; one whose token
// file is on no projected token volume is an error, as the pod would fail.
func azureWorkloadIdentityOf(deploy *appsv1.Deployment) (azureWorkloadIdentity, error) {
	pod := deploy.Spec.Template.Spec
	if len(pod.Containers) == 0 {
		return azureWorkloadIdentity{}, nil
	}
	c := pod.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	id := azureWorkloadIdentity{clientID: env[azurecloud.EnvClientID], tenantID: env[azurecloud.EnvTenantID], serviceAccount: pod.ServiceAccountName}
	tokenFile := env[azurecloud.EnvFederatedTokenFile]
	if id.clientID == "" || id.tenantID == "" || tokenFile == "" {
		return azureWorkloadIdentity{}, nil
	}
	dir, file := path.Split(tokenFile)
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) != path.Clean(dir) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name || v.Projected == nil {
				continue
			}
			for _, src := range v.Projected.Sources {
				if tok := src.ServiceAccountToken; tok != nil && tok.Path == file {
					id.audience = tok.Audience
					return id, nil
				}
			}
		}
	}
	return azureWorkloadIdentity{}, fmt.Errorf("%s=%s is on no projected ServiceAccount token volume of the Deployment", azurecloud.EnvFederatedTokenFile, tokenFile)
}

// azureConfig is what the pod would have: the Deployment's identity with
// the token the kubelet would project for its ServiceAccount and audience
// (signed by devenv's issuer, which cloudsim trusts), and, as the cloud's
// network would give them, only cloudsim's endpoints and CA. Nil on AWS;
// without an identity the operator gets only the endpoints, and its
// credentials check says it has none.
func (r *cpoRunner) azureConfig(ctx context.Context, namespace string, id azureWorkloadIdentity) (*azurecloud.Config, error) {
	if r.azure == nil {
		return nil, nil
	}
	if id.clientID == "" {
		cfg := r.azure.config(azurecloud.Config{})
		return &cfg, nil
	}
	// The kubelet runs no pod whose ServiceAccount does not exist.
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: id.serviceAccount}, &corev1.ServiceAccount{}); err != nil {
		return nil, fmt.Errorf("reading the control-plane operator's ServiceAccount %s: %w", id.serviceAccount, err)
	}
	token, err := r.azure.serviceAccountToken(namespace, id.serviceAccount, id.audience, time.Now())
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
	cfg := r.azure.config(azurecloud.Config{Kind: azurecloud.WorkloadIdentity, TenantID: id.tenantID,
		ClientID: id.clientID, FederatedTokenFile: tokenPath})
	return &cfg, nil
}
