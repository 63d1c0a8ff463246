package devenv

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestAzureWorkloadIdentityOf: the kubelet stand-in takes the identity
// from the Deployment alone: its variables, and the audience of the
// projected token volume the token file is on.
func TestAzureWorkloadIdentityOf(t *testing.T) {
	deployment := func(env map[string]string, mountPath, tokenPath, audience string) *appsv1.Deployment {
		c := corev1.Container{Name: cpoName, VolumeMounts: []corev1.VolumeMount{{Name: "token", MountPath: mountPath}}}
		for _, k := range []string{"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_FEDERATED_TOKEN_FILE"} {
			if v, ok := env[k]; ok {
				c.Env = append(c.Env, corev1.EnvVar{Name: k, Value: v})
			}
		}
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec = corev1.PodSpec{ServiceAccountName: cpoName, Containers: []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, Path: tokenPath}}},
			}}}}}
		return d
	}
	full := map[string]string{"AZURE_CLIENT_ID": "client", "AZURE_TENANT_ID": "tenant", "AZURE_FEDERATED_TOKEN_FILE": "/var/run/secrets/azure/tokens/azure-identity-token"}
	without := func(k string) map[string]string {
		m := map[string]string{}
		for key, v := range full {
			if key != k {
				m[key] = v
			}
		}
		return m
	}
	tests := []struct {
		name    string
		d       *appsv1.Deployment
		want    azureWorkloadIdentity
		wantErr bool
	}{
		{"complete", deployment(full, "/var/run/secrets/azure/tokens", "azure-identity-token", "api://AzureADTokenExchange"),
			azureWorkloadIdentity{clientID: "client", tenantID: "tenant", serviceAccount: cpoName, audience: "api://AzureADTokenExchange"}, false},
		{"the audience is the volume's", deployment(full, "/var/run/secrets/azure/tokens/", "azure-identity-token", "sts.amazonaws.com"),
			azureWorkloadIdentity{clientID: "client", tenantID: "tenant", serviceAccount: cpoName, audience: "sts.amazonaws.com"}, false},
		{"no client ID: no identity", deployment(without("AZURE_CLIENT_ID"), "/var/run/secrets/azure/tokens", "azure-identity-token", "api://AzureADTokenExchange"), azureWorkloadIdentity{}, false},
		{"no token file: no identity", deployment(without("AZURE_FEDERATED_TOKEN_FILE"), "/var/run/secrets/azure/tokens", "azure-identity-token", "api://AzureADTokenExchange"), azureWorkloadIdentity{}, false},
		{"token file on no volume", deployment(full, "/elsewhere", "azure-identity-token", "api://AzureADTokenExchange"), azureWorkloadIdentity{}, true},
		{"token file not projected", deployment(full, "/var/run/secrets/azure/tokens", "token", "api://AzureADTokenExchange"), azureWorkloadIdentity{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := azureWorkloadIdentityOf(tt.d)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
