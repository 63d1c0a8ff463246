package install

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

const (
	// awsCredentialsKey is the key of the shared credentials file in the
	// Secret, whether install made it or the user did.
	awsCredentialsKey = "credentials"
	awsCredentialsDir = "/etc/hcplink/aws"
	// awsTokenAudience is what STS expects of a web identity token.
	awsTokenAudience = "sts.amazonaws.com"
	awsTokenDir      = "/var/run/secrets/hcplink/aws"
	// azureTokenAudience is what Entra ID expects of a federated token.
	azureTokenAudience = "api://AzureADTokenExchange"
	azureTokenDir      = "/var/run/secrets/hcplink/azure"
	// azureClientIDAnnotation tells AKS's workload-identity tooling which
	// identity the ServiceAccount is federated with.
	azureClientIDAnnotation = "azure.workload.identity/client-id"

	// gcpKeyFileKey is the key of the service account key file in the
	// Secret, whether install made it or the user did.
	gcpKeyFileKey = "key.json"
	gcpKeyDir     = "/etc/hcplink/gcp"
	// gcpServiceAccountAnnotation tells GKE workload identity which Google
	// service account the ServiceAccount acts as
	// (https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity).
	gcpServiceAccountAnnotation = "iam.gke.io/gcp-service-account"

	credentialsVolume = "cloud-credentials"
	tokenVolume       = "cloud-token"
	tokenFile         = "token"
	// tokenExpirationSeconds is the projected token's lifetime; the kubelet
	// refreshes it at 80%.
	tokenExpirationSeconds = 3600
)

// credentialsSecretName is the Secret install makes from a credentials
// file.
func credentialsSecretName() string { return operatorName + "-cloud-credentials" }

// cloudAccess is what the Deployment and ServiceAccount need for the
// private platform's identity.
type cloudAccess struct {
	env           []corev1.EnvVar
	envFrom       []corev1.EnvFromSource
	volumes       []corev1.Volume
	mounts        []corev1.VolumeMount
	saAnnotations map[string]string
	secret        *corev1.Secret // made by install; nil when none
}

// cloudAccessFor is the identity wiring of o's private platform.
func cloudAccessFor(o Options) (cloudAccess, error) {
	switch o.PrivatePlatform {
	case "AWS":
		return awsAccess(o.AWS), nil
	case "Azure":
		return azureAccess(o.Azure)
	case "GCP":
		return gcpAccess(o.GCP), nil
	}
	return cloudAccess{}, nil
}

// gcpAccess mounts the key file for the operator's --gcp-credentials-file
// (operatorArgs), or binds the ServiceAccount to a Google service account
// by GKE workload identity, where Application Default Credentials find it
// on the metadata server.
func gcpAccess(c GCPCredentials) cloudAccess {
	var a cloudAccess
	secretName := c.SecretName
	if len(c.KeyFile) > 0 {
		secretName = credentialsSecretName()
		a.secret = &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{gcpKeyFileKey: c.KeyFile}}
	}
	if secretName == "" {
		a.saAnnotations = map[string]string{gcpServiceAccountAnnotation: c.WorkloadIdentityServiceAccount}
		return a
	}
	a.volumes = []corev1.Volume{{Name: credentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secretName}}}}
	a.mounts = []corev1.VolumeMount{{Name: credentialsVolume, MountPath: gcpKeyDir, ReadOnly: true}}
	return a
}

// gcpKeyFile is where the operator reads its key file, when it has one.
func gcpKeyFile(c GCPCredentials) string {
	if len(c.KeyFile) == 0 && c.SecretName == "" {
		return ""
	}
	return gcpKeyDir + "/" + gcpKeyFileKey
}

func awsAccess(c AWSCredentials) cloudAccess {
	a := cloudAccess{env: []corev1.EnvVar{{Name: "AWS_REGION", Value: c.Region}}}
	secretName := c.SecretName
	if len(c.CredentialsFile) > 0 {
		secretName = credentialsSecretName()
		a.secret = &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{awsCredentialsKey: c.CredentialsFile}}
	}
	if secretName != "" {
		a.env = append(a.env, corev1.EnvVar{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: awsCredentialsDir + "/" + awsCredentialsKey})
		a.volumes = []corev1.Volume{{Name: credentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secretName}}}}
		a.mounts = []corev1.VolumeMount{{Name: credentialsVolume, MountPath: awsCredentialsDir, ReadOnly: true}}
		return a
	}
	// Web identity: the SDK's standard variables with a projected token.
	a.env = append(a.env,
		corev1.EnvVar{Name: "AWS_ROLE_ARN", Value: c.RoleARN},
		corev1.EnvVar{Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: awsTokenDir + "/" + tokenFile})
	a.volumes = []corev1.Volume{projectedToken(awsTokenAudience)}
	a.mounts = []corev1.VolumeMount{{Name: tokenVolume, MountPath: awsTokenDir, ReadOnly: true}}
	return a
}

func azureAccess(c AzureCredentials) (cloudAccess, error) {
	var a cloudAccess
	switch {
	case len(c.CredentialsFile) > 0:
		sp, err := parseAzureCredentials(c.CredentialsFile)
		if err != nil {
			return cloudAccess{}, err
		}
		a.secret = &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: sp.secretData()}
		a.envFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: credentialsSecretName()}}}}
	case c.SecretName != "":
		a.envFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: c.SecretName}}}}
	default:
		a.env = []corev1.EnvVar{
			{Name: azurecloud.EnvClientID, Value: c.WorkloadIdentityClientID},
			{Name: azurecloud.EnvTenantID, Value: c.TenantID},
			{Name: azurecloud.EnvFederatedTokenFile, Value: azureTokenDir + "/" + tokenFile},
		}
		a.volumes = []corev1.Volume{projectedToken(azureTokenAudience)}
		a.mounts = []corev1.VolumeMount{{Name: tokenVolume, MountPath: azureTokenDir, ReadOnly: true}}
		a.saAnnotations = map[string]string{azureClientIDAnnotation: c.WorkloadIdentityClientID}
	}
	if c.SubscriptionID != "" {
		// Explicit variables win over envFrom's.
		a.env = append(a.env, corev1.EnvVar{Name: azurecloud.EnvSubscriptionID, Value: c.SubscriptionID})
	}
	return a, nil
}

// projectedToken is a service-account token for audience, refreshed by
// the kubelet.
func projectedToken(audience string) corev1.Volume {
	return corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience: audience, ExpirationSeconds: ptr.To[int64](tokenExpirationSeconds), Path: tokenFile,
		}}},
	}}}
}

// azureServicePrincipal is the credentials file of --azure-creds.
type azureServicePrincipal struct {
	SubscriptionID string `json:"subscriptionId"`
	TenantID       string `json:"tenantId"`
	ClientID       string `json:"clientId"`
	ClientSecret   string `json:"clientSecret"`
}

// parseAzureCredentials reads a JSON or YAML credentials file; every
// field is required. Errors never repeat the file's content.
func parseAzureCredentials(data []byte) (azureServicePrincipal, error) {
	var sp azureServicePrincipal
	if err := yaml.UnmarshalStrict(data, &sp); err != nil {
		return sp, errors.New("the --azure-creds file is not JSON or YAML with subscriptionId, tenantId, clientId and clientSecret (only)")
	}
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"subscriptionId", sp.SubscriptionID}, {"tenantId", sp.TenantID}, {"clientId", sp.ClientID}, {"clientSecret", sp.ClientSecret},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return sp, fmt.Errorf("the --azure-creds file lacks %s", strings.Join(missing, ", "))
	}
	return sp, nil
}

// secretData is the service principal as the operator's environment.
func (sp azureServicePrincipal) secretData() map[string][]byte {
	return map[string][]byte{
		azurecloud.EnvSubscriptionID: []byte(sp.SubscriptionID),
		azurecloud.EnvTenantID:       []byte(sp.TenantID),
		azurecloud.EnvClientID:       []byte(sp.ClientID),
		azurecloud.EnvClientSecret:   []byte(sp.ClientSecret),
	}
}
