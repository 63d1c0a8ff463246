package devenv

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestGCPWorkloadIdentityOf: the kubelet stand-in takes the token's
// audience from the Deployment alone: the projected token volume mounted
// where the control-plane operator reads its token.
func TestGCPWorkloadIdentityOf(t *testing.T) {
	const audience = "https://iam.googleapis.com/projects/2/locations/global/workloadIdentityPools/p/providers/q"
	deployment := func(tokenFileEnv, mountPath, tokenPath string) *appsv1.Deployment {
		c := corev1.Container{Name: cpoName, VolumeMounts: []corev1.VolumeMount{{Name: "token", MountPath: mountPath}}}
		if tokenFileEnv != "" {
			c.Env = []corev1.EnvVar{{Name: "HCPLINK_GCP_TOKEN_FILE", Value: tokenFileEnv}}
		}
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec = corev1.PodSpec{ServiceAccountName: cpoName, Containers: []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, Path: tokenPath}}},
			}}}}}
		return d
	}
	want := gcpWorkloadIdentity{serviceAccount: cpoName, audience: audience}
	tests := []struct {
		name    string
		d       *appsv1.Deployment
		want    gcpWorkloadIdentity
		wantErr bool
	}{
		{"at the default path", deployment("", "/var/run/secrets/hcplink/gcp", "token"), want, false},
		{"at the path the variable names", deployment("/tokens/gcp/t", "/tokens/gcp/", "t"), want, false},
		{"nothing at the default path: no token", deployment("", "/elsewhere", "token"), gcpWorkloadIdentity{}, false},
		{"the named file on no volume", deployment("/tokens/gcp/t", "/elsewhere", "t"), gcpWorkloadIdentity{}, true},
		{"the named file not projected", deployment("/tokens/gcp/t", "/tokens/gcp", "other"), gcpWorkloadIdentity{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcpWorkloadIdentityOf(tt.d)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
