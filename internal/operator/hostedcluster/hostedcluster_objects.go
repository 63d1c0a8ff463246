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
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Names and labels of the objects the operator creates in a control-plane
// namespace. They are API: the control-plane operator, devenv's kubelet
// stand-in and users' tooling find the objects by them.
const (
	// ControlPlaneOperatorName names the control-plane operator's
	// ServiceAccount, Role, RoleBinding, Deployment and container.
	ControlPlaneOperatorName = "control-plane-operator"

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
// of the cluster, with the platform's own fields.
func desiredHostedControlPlane(hc *hcplinkv1beta1.HostedCluster, nodePools []hcplinkv1beta1.NodePool, platforms *platform.Registry) *hcplinkv1beta1.HostedControlPlane {
	spec := hcplinkv1beta1.HostedControlPlaneSpec{
		InfraID:     hc.Spec.InfraID,
		ClusterID:   hc.Spec.ClusterID,
		PausedUntil: hc.Spec.PausedUntil,
		DNS:         hc.Spec.DNS,
		Networking:  hc.Spec.Networking,
		Services:    hc.Spec.Services,
		Platform:    hc.Spec.Platform,
	}
	if p := platforms.ForType(hc.Spec.Platform.Type); p != nil && p.ControlPlaneSpec != nil {
		p.ControlPlaneSpec(hc, &spec)
	}
	for _, np := range nodePools {
		if np.Namespace != hc.Namespace || np.Spec.ClusterName != hc.Name {
			continue
		}
		spec.NodePools = append(spec.NodePools, hcplinkv1beta1.HostedControlPlaneNodePool{Name: np.Name, SubnetID: np.Spec.Platform.SubnetID()})
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

// workload is the control-plane operator as every platform runs it, with
// what the cluster's platform adds (credentials, variables, volumes).
func workload(hc *hcplinkv1beta1.HostedCluster, cfg Config) *platform.Workload {
	w := &platform.Workload{
		ServiceAccountAnnotations: clusterAnnotations(hc),
		PodLabels:                 cpoLabels(),
		PodAnnotations:            clusterAnnotations(hc),
		Pod: &corev1.PodSpec{
			ServiceAccountName: ControlPlaneOperatorName,
			SecurityContext:    &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		},
		Container: &corev1.Container{
			Name:            ControlPlaneOperatorName,
			Image:           cfg.ControlPlaneOperatorImage,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args:            ControlPlaneOperatorArgs(hc),
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
		},
	}
	if p := cfg.Platforms.ForType(hc.Spec.Platform.Type); p != nil && p.ControlPlaneOperator != nil {
		p.ControlPlaneOperator(hc, w)
	}
	for _, secret := range w.Secrets {
		secret.ObjectMeta = objectMeta(hc, secret.Name, map[string]string{NameLabel: ControlPlaneOperatorName})
	}
	if len(w.Secrets) > 0 {
		w.PodAnnotations[credentialsHashAnnotation] = credentialsHash(w.Secrets)
	}
	return w
}

// ControlPlaneOperatorArgs are the arguments that run the control-plane
// operator for the cluster's namespace and platform only: the platform
// type is immutable, and the operator then starts no other cloud's
// controllers, which its Role would not allow (desiredRole).
func ControlPlaneOperatorArgs(hc *hcplinkv1beta1.HostedCluster) []string {
	return []string{"control-plane-operator",
		"--namespace", hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name),
		"--platform", string(hc.Spec.Platform.Type)}
}

// credentialsHash changes when the data of any of the Secrets does.
func credentialsHash(secrets []*corev1.Secret) string {
	if len(secrets) == 1 {
		return hashOf(secrets[0].Data)
	}
	data := make([]map[string][]byte, 0, len(secrets))
	for _, s := range secrets {
		data = append(data, s.Data)
	}
	return hashOf(data)
}

// desiredServiceAccount is the control-plane operator's identity, with the
// annotations its platform's sign-in reads (Azure workload identity's
// client and tenant).
func desiredServiceAccount(hc *hcplinkv1beta1.HostedCluster, cfg Config) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels())}
	sa.Annotations = workload(hc, cfg).ServiceAccountAnnotations
	return sa
}

// desiredSecrets are the Secrets the control-plane operator mounts (its
// platform's credentials), each with the controller's metadata.
func desiredSecrets(hc *hcplinkv1beta1.HostedCluster, cfg Config) []*corev1.Secret {
	return workload(hc, cfg).Secrets
}

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// desiredRole grants the control-plane operator what it needs, in its own
// namespace only: the router Services and their status, Endpoints to read,
// Secrets to read, ConfigMaps, Events, Leases, its HostedControlPlane
// (read, and status), and its own platform's private-link objects in full
// (no other cloud's: its operator runs only its platform's controllers,
// desiredDeployment's --platform). A cluster of a platform with no
// private-link objects gets the common rules only.
func desiredRole(hc *hcplinkv1beta1.HostedCluster, platforms *platform.Registry) *rbacv1.Role {
	group := hcplinkv1beta1.GroupName
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: writeVerbs},
		{APIGroups: []string{""}, Resources: []string{"services/status"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: readVerbs},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readVerbs},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: writeVerbs},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "update", "patch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: writeVerbs},
		{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes"}, Verbs: readVerbs},
		{APIGroups: []string{group}, Resources: []string{"hostedcontrolplanes/status"}, Verbs: []string{"get", "update", "patch"}},
	}
	if p := platforms.ForType(hc.Spec.Platform.Type); p != nil && p.Resource != "" {
		rules = append(rules,
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{p.Resource}, Verbs: append(append([]string{}, writeVerbs...), "deletecollection")},
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{p.Resource + "/status"}, Verbs: []string{"get", "update", "patch"}},
			rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{p.Resource + "/finalizers"}, Verbs: []string{"update"}},
		)
	}
	return &rbacv1.Role{
		ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels()),
		Rules:      rules,
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

// desiredDeployment runs the control-plane operator of the cluster: one
// replica (it runs without leader election, so Recreate keeps two from
// overlapping), restricted to its namespace, signed in as its platform
// says.
func desiredDeployment(hc *hcplinkv1beta1.HostedCluster, cfg Config) *appsv1.Deployment {
	w := workload(hc, cfg)
	w.Pod.Containers = []corev1.Container{*w.Container}
	d := &appsv1.Deployment{
		ObjectMeta: objectMeta(hc, ControlPlaneOperatorName, cpoLabels()),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{NameLabel: ControlPlaneOperatorName}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: w.PodLabels, Annotations: w.PodAnnotations},
				Spec:       *w.Pod,
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
