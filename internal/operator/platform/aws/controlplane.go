package aws

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// What the control-plane operator of an AWS cluster signs in with: STS web
// identity, from a shared credentials file (role ARN and token file) in a
// Secret and a projected service-account token. The names are API: users'
// tooling finds the objects by them.
const (
	// CredentialsSecretName is the Secret with the credentials file.
	CredentialsSecretName = "control-plane-operator-aws-credentials"
	// CredentialsKey is the key of the credentials file in that Secret.
	CredentialsKey = "credentials"
	// CredentialsMountPath is where the Secret is mounted.
	CredentialsMountPath = "/etc/hcplink/aws"
	// ServiceAccountTokenMountPath is where the projected service-account
	// token for STS web identity is mounted; the token file is "token".
	ServiceAccountTokenMountPath = "/var/run/secrets/hcplink/serviceaccount"
	// ServiceAccountTokenAudience is the audience STS expects of a web
	// identity token.
	ServiceAccountTokenAudience = "sts.amazonaws.com"

	credentialsVolume = "aws-credentials"
	tokenVolume       = "serviceaccount-token"
)

// controlPlaneOperatorRoleARN is the role the control-plane operator
// assumes on AWS, "" when the cluster names none.
func controlPlaneOperatorRoleARN(hc *hcplinkv1beta1.HostedCluster) string {
	if hc.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform || hc.Spec.Platform.AWS == nil || hc.Spec.Platform.AWS.RolesRef == nil {
		return ""
	}
	return hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN
}

// credentialsFile is the shared credentials file of the control-plane
// operator: STS web identity with the role of the cluster and the projected
// service-account token.
func credentialsFile(roleARN, region string) string {
	return fmt.Sprintf("[default]\nrole_arn = %s\nweb_identity_token_file = %s/token\nregion = %s\n",
		roleARN, ServiceAccountTokenMountPath, region)
}

// credentialsSecret is the control-plane operator's AWS credentials; nil
// when the cluster names no control-plane operator role.
func credentialsSecret(hc *hcplinkv1beta1.HostedCluster) *corev1.Secret {
	arn := controlPlaneOperatorRoleARN(hc)
	if arn == "" {
		return nil
	}
	s := &corev1.Secret{
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{CredentialsKey: []byte(credentialsFile(arn, hc.Spec.Platform.AWS.Region))},
	}
	s.Name = CredentialsSecretName
	return s
}

// controlPlaneOperator gives the control-plane operator its region and,
// when the cluster names a role, the credentials file and the token it
// points at.
func controlPlaneOperator(hc *hcplinkv1beta1.HostedCluster, w *platform.Workload) {
	if hc.Spec.Platform.AWS == nil {
		return
	}
	c := w.Container
	c.Env = append(c.Env, corev1.EnvVar{Name: "AWS_REGION", Value: hc.Spec.Platform.AWS.Region})
	secret := credentialsSecret(hc)
	if secret == nil {
		return
	}
	w.Secrets = append(w.Secrets, secret)
	c.Env = append(c.Env, corev1.EnvVar{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: CredentialsMountPath + "/" + CredentialsKey})
	c.VolumeMounts = append(c.VolumeMounts,
		corev1.VolumeMount{Name: credentialsVolume, MountPath: CredentialsMountPath, ReadOnly: true},
		corev1.VolumeMount{Name: tokenVolume, MountPath: ServiceAccountTokenMountPath, ReadOnly: true},
	)
	w.Pod.Volumes = append(w.Pod.Volumes,
		corev1.Volume{Name: credentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: CredentialsSecretName}}},
		corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
			ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
				Audience:          ServiceAccountTokenAudience,
				ExpirationSeconds: ptr.To[int64](platform.TokenExpirationSeconds),
				Path:              "token",
			},
		}}}}},
	)
}
