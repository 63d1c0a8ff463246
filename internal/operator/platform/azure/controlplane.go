package azure

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Azure workload identity, as its mutating webhook reads and writes it
// (https://azure.github.io/azure-workload-identity/docs/topics/service-account-labels-and-annotations.html,
// .../topics/mutating-admission-webhook.html). The Deployment carries the
// webhook's own volume, mount and variables, so that the pod is the same
// with the webhook (which then finds them present) and without it.
const (
	WorkloadIdentityUseLabel = "azure.workload.identity/use"
	ClientIDAnnotation       = "azure.workload.identity/client-id"
	TenantIDAnnotation       = "azure.workload.identity/tenant-id"
	TokenVolume              = "azure-identity-token"
	TokenMountPath           = "/var/run/secrets/azure/tokens"
	TokenFile                = "azure-identity-token"
	TokenAudience            = "api://AzureADTokenExchange"
	DefaultAuthorityHost     = "https://login.microsoftonline.com/"
)

// identity is the control-plane operator's Azure workload identity; both
// "" unless the cluster names a tenant and client ID.
func identity(hc *hcplinkv1beta1.HostedCluster) (tenantID, clientID string) {
	tenantID, clientID = hc.Spec.Platform.Azure.ControlPlaneOperatorIdentity()
	if tenantID == "" || clientID == "" {
		return "", ""
	}
	return tenantID, clientID
}

// controlPlaneOperator gives the control-plane operator of a cluster that
// names its identity what Azure workload identity needs: the
// ServiceAccount's client and tenant (for the webhook), the webhook's pod
// label, the projected token (audience Entra ID's token exchange) and the
// variables azidentity reads.
func controlPlaneOperator(hc *hcplinkv1beta1.HostedCluster, authorityHost string, w *platform.Workload) {
	tenantID, clientID := identity(hc)
	if clientID == "" {
		return
	}
	if authorityHost == "" {
		authorityHost = DefaultAuthorityHost
	}
	w.ServiceAccountAnnotations[ClientIDAnnotation] = clientID
	w.ServiceAccountAnnotations[TenantIDAnnotation] = tenantID
	w.PodLabels[WorkloadIdentityUseLabel] = "true"
	c := w.Container
	c.Env = append(c.Env,
		corev1.EnvVar{Name: azurecloud.EnvClientID, Value: clientID},
		corev1.EnvVar{Name: azurecloud.EnvTenantID, Value: tenantID},
		corev1.EnvVar{Name: azurecloud.EnvFederatedTokenFile, Value: TokenMountPath + "/" + TokenFile},
		corev1.EnvVar{Name: azurecloud.EnvAuthorityHost, Value: authorityHost},
	)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: TokenVolume, MountPath: TokenMountPath, ReadOnly: true})
	w.Pod.Volumes = append(w.Pod.Volumes, corev1.Volume{Name: TokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience:          TokenAudience,
			ExpirationSeconds: ptr.To[int64](platform.TokenExpirationSeconds),
			Path:              TokenFile,
		}}},
	}}})
}
