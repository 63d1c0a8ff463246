package gcp

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// TokenVolume is the control-plane operator's projected ServiceAccount
// token for workload identity federation, mounted where its sign-in
// reads it (gcpcloud.EnvTokenFile).
const TokenVolume = "gcp-identity-token"

// controlPlaneOperator gives the control-plane operator of a cluster that
// names its workload identity the token it signs in with: its
// ServiceAccount's token, projected for the pool provider's audience
// (which a provider accepts when it names no allowed audiences:
// https://cloud.google.com/iam/docs/workload-identity-federation-with-kubernetes),
// and the variable naming its file. Nothing else: the pool provider and
// the service account are read from the HostedControlPlane, and no key is
// ever given to the control-plane operator.
func controlPlaneOperator(hc *hcplinkv1beta1.HostedCluster, w *platform.Workload) {
	g := hc.Spec.Platform.GCP
	if g == nil || g.WorkloadIdentity == nil || g.WorkloadIdentity.PoolProvider == "" {
		return
	}
	audience := TokenAudience(g.WorkloadIdentity.PoolProvider)
	dir, file := path.Split(gcpcloud.DefaultTokenFile)
	c := w.Container
	c.Env = append(c.Env, corev1.EnvVar{Name: gcpcloud.EnvTokenFile, Value: gcpcloud.DefaultTokenFile})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: TokenVolume, MountPath: path.Clean(dir), ReadOnly: true})
	w.Pod.Volumes = append(w.Pod.Volumes, corev1.Volume{Name: TokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience:          audience,
			ExpirationSeconds: ptr.To[int64](platform.TokenExpirationSeconds),
			Path:              file,
		}}},
	}}})
}

// TokenAudience is the audience of the control-plane operator's token for
// poolProvider (projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>).
func TokenAudience(poolProvider string) string {
	return gcpcloud.WorkloadIdentity{Audience: "//iam.googleapis.com/" + poolProvider}.TokenAudience()
}
