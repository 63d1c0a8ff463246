package hostedcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Names and labels of the objects the operator creates in a control-plane
// namespace. They are API: the control-plane operator, devenv's kubelet
// stand-in and users' tooling find the objects by them.
const (
	// ControlPlaneOperatorName names the control-plane operator's
	// ServiceAccount, Role, RoleBinding, Deployment and container.
	ControlPlaneOperatorName = "control-plane-operator"

	// AWSCredentialsSecretName is the Secret with the control-plane
	// operator's AWS credentials file (web identity: role ARN and token file).
	AWSCredentialsSecretName = "control-plane-operator-aws-credentials"
	// AWSCredentialsKey is the key of the credentials file in that Secret.
	AWSCredentialsKey = "credentials"
	// AWSCredentialsMountPath is where the Secret is mounted.
	AWSCredentialsMountPath = "/etc/hcplink/aws"
	// ServiceAccountTokenMountPath is where the projected service-account
	// token for STS web identity is mounted; the token file is "token".
	ServiceAccountTokenMountPath = "/var/run/secrets/hcplink/serviceaccount"
	// ServiceAccountTokenAudience is the audience STS expects of a web
	// identity token.
	ServiceAccountTokenAudience = "sts.amazonaws.com"

	// Azure workload identity, as its mutating webhook reads and writes it
	// (https://azure.github.io/azure-workload-identity/docs/topics/service-account-labels-and-annotations.html,
	// .../topics/mutating-admission-webhook.html). The Deployment carries
	// the webhook's own volume, mount and variables, so that the pod is the
	// same with the webhook (which then finds them present) and without it.
	AzureWorkloadIdentityUseLabel = "azure.workload.identity/use"
	AzureClientIDAnnotation       = "azure.workload.identity/client-id"
	AzureTenantIDAnnotation       = "azure.workload.identity/tenant-id"
	AzureTokenVolume              = "azure-identity-token"
	AzureTokenMountPath           = "/var/run/secrets/azure/tokens"
	AzureTokenFile                = "azure-identity-token"
	AzureTokenAudience            = "api://AzureADTokenExchange"
	DefaultAzureAuthorityHost     = "https://login.microsoftonline.com/"

	// ControlPlaneNamespaceLabel marks a namespace as a control-plane
	// namespace (value "true").
	ControlPlaneNamespaceLabel = "hcplink.io/control-plane"
	// NameLabel and ManagedByLabel are the standard labels of the objects
	// the operator creates.
	NameLabel      = "app.kubernetes.io/name"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedByValue is the value of ManagedByLabel on objects the
	// operator created. The operator's cache holds only Deployments,
	// Secrets, ServiceAccounts, Roles and RoleBindings with this label.
	ManagedByValue = "hcplink"

	// specHashAnnotation on the Deployment records the hash of the spec the
	// operator wrote, so that it can tell a change from API-server
	// defaulting without comparing every defaulted field.
	specHashAnnotation = "hcplink.io/spec-hash"
	// credentialsHashAnnotation on the pod template rolls the control-plane
	// operator when its credentials file changes.
	credentialsHashAnnotation = "hcplink.io/credentials-hash"

	credentialsVolume = "aws-credentials"
	tokenVolume       = "serviceaccount-token"
	// tokenExpirationSeconds is the lifetime of the projected token; the
	// kubelet refreshes it at 80%.
	tokenExpirationSeconds = 3600
)

// clusterAnnotations are the annotations of every object the operator puts
// in the control-plane namespace.
func clusterAnnotations(hc *hcplinkv1beta1.HostedCluster) map[string]string {
	return map[string]string{hcplinkv1beta1.ClusterAnnotation: hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name)}
}

func objectMeta(hc *hcplinkv1beta1.HostedCluster, name string, labels map[string]string) metav1.ObjectMeta {
	l := map[string]string{ManagedByLabel: ManagedByValue}
	for k, v := range labels {
		l[k] = v
	}
	return metav1.ObjectMeta{
		Name:        name,
		Namespace:   hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name),
		Labels:      l,
		Annotations: clusterAnnotations(hc),
	}
}

func cpoLabels() map[string]string {
	return map[string]string{NameLabel: ControlPlaneOperatorName, ManagedByLabel: ManagedByValue}
}

// desiredNamespace is the cluster's control-plane namespace.
func desiredNamespace(hc *hcplinkv1beta1.HostedCluster) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:        hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name),
		Labels:      map[string]string{ControlPlaneNamespaceLabel: "true", ManagedByLabel: ManagedByValue},
		Annotations: clusterAnnotations(hc),
	}}
}

// desiredHostedControlPlane mirrors the HostedCluster and the subnets of
// its NodePools (those whose spec.clusterName is the cluster, sorted by
// name) into the HostedControlPlane, the control-plane operator's only view
// of the cluster.
func desiredHostedControlPlane(hc *hcplinkv1beta1.HostedCluster, nodePools []hcplinkv1beta1.NodePool) *hcplinkv1beta1.HostedControlPlane {
	spec := hcplinkv1beta1.HostedControlPlaneSpec{
		InfraID:     hc.Spec.InfraID,
		ClusterID:   hc.Spec.ClusterID,
		PausedUntil: hc.Spec.PausedUntil,
		DNS:         hc.Spec.DNS,
		Networking:  hc.Spec.Networking,
		Services:    hc.Spec.Services,
		Platform:    hc.Spec.Platform,
		// The placement recorded in status (written before the control plane
		// exists, so that the routers are made where it says).
		AzureLoadBalancerConfiguration: hc.Status.AzureLoadBalancerConfiguration,
	}
	for _, np := range nodePools {
		if np.Namespace != hc.Namespace || np.Spec.ClusterName != hc.Name {
			continue
		}
		spec.NodePools = append(spec.NodePools, hcplinkv1beta1.HostedControlPlaneNodePool{Name: np.Name, SubnetID: nodePoolSubnet(&np)})
	}
	sort.Slice(spec.NodePools, func(i, j int) bool { return spec.NodePools[i].Name < spec.NodePools[j].Name })
	hcp := &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: objectMeta(hc, hc.Name, nil),
		Spec:       *spec.DeepCopy(),
	}
	// The operator's finalizer keeps a deleted HostedControlPlane readable
	// (Terminating) until the private-link cleanup is over: its deletion is
	// how the control-plane operator learns that the cluster is going, and
	// its credentials condition is what the escape hatch reads.
	hcp.Finalizers = []string{hcplinkv1beta1.OperatorFinalizer}
	return hcp
}

// nodePoolSubnet is the NodePool's subnet: the AWS subnet ID or the Azure
// subnet resource ID; "" when it names none.
func nodePoolSubnet(np *hcplinkv1beta1.NodePool) string {
	switch {
	case np.Spec.Platform.AWS != nil && np.Spec.Platform.AWS.Subnet != nil:
		return np.Spec.Platform.AWS.Subnet.ID
	case np.Spec.Platform.Azure != nil:
		return np.Spec.Platform.Azure.SubnetID
	}
	return ""
}

// desiredServiceAccount is the control-plane operator's identity; on AWS
// its projected token is the web identity the operator's role trusts, on
// Azure the federated credential of its workload identity, whose client
// and tenant the annotations name for the workload-identity webhook.
func desiredServiceAccount(hc *hcplinkv1beta1.HostedCluster) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels())}
	if tenantID, clientID := azureIdentity(hc); clientID != "" {
		sa.Annotations[AzureClientIDAnnotation] = clientID
		sa.Annotations[AzureTenantIDAnnotation] = tenantID
	}
	return sa
}

// azureIdentity is the control-plane operator's Azure workload identity;
// both "" unless the cluster is on Azure and names a tenant and client ID.
func azureIdentity(hc *hcplinkv1beta1.HostedCluster) (tenantID, clientID string) {
	if hc.Spec.Platform.Type != hcplinkv1beta1.AzurePlatform {
		return "", ""
	}
	tenantID, clientID = hc.Spec.Platform.Azure.ControlPlaneOperatorIdentity()
	if tenantID == "" || clientID == "" {
		return "", ""
	}
	return tenantID, clientID
}

// withAzureWorkloadIdentity adds what Azure workload identity needs to the
// pod: the webhook's label, the projected token (audience Entra ID's token
// exchange) and the variables azidentity reads.
func withAzureWorkloadIdentity(tenantID, clientID, authorityHost string, labels map[string]string, pod *corev1.PodSpec, c *corev1.Container) {
	if authorityHost == "" {
		authorityHost = DefaultAzureAuthorityHost
	}
	labels[AzureWorkloadIdentityUseLabel] = "true"
	c.Env = append(c.Env,
		corev1.EnvVar{Name: azurecloud.EnvClientID, Value: clientID},
		corev1.EnvVar{Name: azurecloud.EnvTenantID, Value: tenantID},
		corev1.EnvVar{Name: azurecloud.EnvFederatedTokenFile, Value: AzureTokenMountPath + "/" + AzureTokenFile},
		corev1.EnvVar{Name: azurecloud.EnvAuthorityHost, Value: authorityHost},
	)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: AzureTokenVolume, MountPath: AzureTokenMountPath, ReadOnly: true})
	pod.Volumes = append(pod.Volumes, corev1.Volume{Name: AzureTokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience:          AzureTokenAudience,
			ExpirationSeconds: ptr.To[int64](tokenExpirationSeconds),
			Path:              AzureTokenFile,
		}}},
	}}})
}

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// desiredRole grants the control-plane operator what it needs, in its own
// namespace only: the router Services and their status, Endpoints to read,
// Secrets to read, ConfigMaps, Events, Leases, its HostedControlPlane
// (read, and status), and the private-link objects in full.
func desiredRole(hc *hcplinkv1beta1.HostedCluster) *rbacv1.Role {
	group := hcplinkv1beta1.GroupName
	return &rbacv1.Role{
		ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels()),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: writeVerbs},
			{APIGroups: []string{""}, Resources: []string{"services/status"}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: readVerbs},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readVerbs},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: writeVerbs},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "update", "patch"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: writeVerbs},
			{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes"}, Verbs: readVerbs},
			{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes/status"}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{group}, Resources: []string{"awsendpointservices", "azureprivatelinkservices"}, Verbs: append(append([]string{}, writeVerbs...), "deletecollection")},
			{APIGroups: []string{group}, Resources: []string{"awsendpointservices/status", "azureprivatelinkservices/status"}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{group}, Resources: []string{"awsendpointservices/finalizers", "azureprivatelinkservices/finalizers"}, Verbs: []string{"update"}},
		},
	}
}

// desiredRoleBinding binds the Role to the ServiceAccount.
func desiredRoleBinding(hc *hcplinkv1beta1.HostedCluster) *rbacv1.RoleBinding {
	meta := objectMeta(hc, ControlPlaneOperatorName, cpoLabels())
	return &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ControlPlaneOperatorName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ControlPlaneOperatorName, Namespace: meta.Namespace}},
	}
}

// controlPlaneOperatorRoleARN is the role the control-plane operator
// assumes on AWS, "" when the cluster names none.
func controlPlaneOperatorRoleARN(hc *hcplinkv1beta1.HostedCluster) string {
	if hc.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform || hc.Spec.Platform.AWS == nil || hc.Spec.Platform.AWS.RolesRef == nil {
		return ""
	}
	return hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN
}

// awsCredentialsFile is the shared credentials file of the control-plane
// operator: STS web identity with the role of the cluster and the projected
// service-account token.
func awsCredentialsFile(roleARN, region string) string {
	return fmt.Sprintf("[default]\nrole_arn = %s\nweb_identity_token_file = %s/token\nregion = %s\n",
		roleARN, ServiceAccountTokenMountPath, region)
}

// desiredAWSCredentialsSecret is the control-plane operator's AWS
// credentials; nil when the cluster is not on AWS or names no control-plane
// operator role.
func desiredAWSCredentialsSecret(hc *hcplinkv1beta1.HostedCluster) *corev1.Secret {
	arn := controlPlaneOperatorRoleARN(hc)
	if arn == "" {
		return nil
	}
	return &corev1.Secret{
		ObjectMeta: objectMeta(hc, AWSCredentialsSecretName, map[string]string{NameLabel: ControlPlaneOperatorName}),
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{AWSCredentialsKey: []byte(awsCredentialsFile(arn, hc.Spec.Platform.AWS.Region))},
	}
}

// desiredDeployment runs the control-plane operator of the cluster: one
// replica (it runs without leader election, so Recreate keeps two from
// overlapping), restricted to its namespace, with AWS credentials mounted
// when the cluster has them, or its Azure workload identity.
func desiredDeployment(hc *hcplinkv1beta1.HostedCluster, cfg Config) *appsv1.Deployment {
	image := cfg.ControlPlaneOperatorImage
	ns := hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
	container := corev1.Container{
		Name:            ControlPlaneOperatorName,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{"control-plane-operator", "--namespace", ns},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("64Mi"),
		}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
	podSpec := corev1.PodSpec{
		ServiceAccountName: ControlPlaneOperatorName,
		SecurityContext:    &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
	}
	podAnnotations := clusterAnnotations(hc)

	if hc.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform && hc.Spec.Platform.AWS != nil {
		container.Env = append(container.Env, corev1.EnvVar{Name: "AWS_REGION", Value: hc.Spec.Platform.AWS.Region})
	}
	if secret := desiredAWSCredentialsSecret(hc); secret != nil {
		container.Env = append(container.Env, corev1.EnvVar{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: AWSCredentialsMountPath + "/" + AWSCredentialsKey})
		container.VolumeMounts = []corev1.VolumeMount{
			{Name: credentialsVolume, MountPath: AWSCredentialsMountPath, ReadOnly: true},
			{Name: tokenVolume, MountPath: ServiceAccountTokenMountPath, ReadOnly: true},
		}
		podSpec.Volumes = []corev1.Volume{
			{Name: credentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: AWSCredentialsSecretName}}},
			{Name: tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
				ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
					Audience:          ServiceAccountTokenAudience,
					ExpirationSeconds: ptr.To[int64](tokenExpirationSeconds),
					Path:              "token",
				},
			}}}}},
		}
		podAnnotations[credentialsHashAnnotation] = hashOf(secret.Data)
	}
	podLabels := cpoLabels()
	if tenantID, clientID := azureIdentity(hc); clientID != "" {
		withAzureWorkloadIdentity(tenantID, clientID, cfg.AzureAuthorityHost, podLabels, &podSpec, &container)
	}
	podSpec.Containers = []corev1.Container{container}

	d := &appsv1.Deployment{
		ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels()),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{NameLabel: ControlPlaneOperatorName}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: podAnnotations},
				Spec:       podSpec,
			},
		},
	}
	d.Annotations[specHashAnnotation] = hashOf(d.Spec)
	return d
}

// hashOf is a short, stable hash of v's JSON form.
func hashOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hashing %T: %v", v, err)) // only our own types, which always marshal
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
