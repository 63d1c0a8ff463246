package install

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	metricsPort = 8080
	probePort   = 8081
	// runAsUser is the distroless "nonroot" user the image runs as.
	runAsUser = 65532
	// credentialsHashAnnotation rolls the operator when install's
	// credentials Secret changes (a Secret in env is read at start only).
	credentialsHashAnnotation = "hcplink.io/credentials-hash"
)

func selector() map[string]string { return map[string]string{nameLabel: operatorName} }

// operatorArgs are the operator's flags (cmd/hcplink/operator.go).
func operatorArgs(o Options) []string {
	args := []string{
		"operator",
		"--private-platform=" + o.PrivatePlatform,
		"--control-plane-operator-image=" + o.ControlPlaneOperatorImage,
		"--leader-elect",
		"--leader-election-namespace=" + o.Namespace,
		"--metrics-bind-address=:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address=:" + strconv.Itoa(probePort),
	}
	if o.PrivatePlatform == "AWS" {
		args = append(args, "--aws-private-region="+o.AWS.Region)
	}
	if o.PrivatePlatform == "Azure" && o.Azure.PLSResourceGroup != "" {
		args = append(args, "--azure-pls-resource-group="+o.Azure.PLSResourceGroup)
	}
	if o.PrivatePlatform == "Azure" && o.Azure.VNetID != "" {
		args = append(args, "--azure-vnet-id="+o.Azure.VNetID)
	}
	if o.PrivatePlatform == "Azure" && len(o.Azure.LoadBalancerConfigurations) > 0 {
		args = append(args, "--azure-load-balancer-configurations="+strings.Join(o.Azure.LoadBalancerConfigurations, ","))
	}
	if o.PrivatePlatform == "GCP" {
		args = append(args, "--gcp-project="+o.GCP.Project, "--gcp-region="+o.GCP.Region, "--gcp-network="+o.GCP.Network)
		if len(o.GCP.NATSubnets) > 0 {
			args = append(args, "--gcp-nat-subnets="+strings.Join(o.GCP.NATSubnets, ","))
		}
		if file := gcpKeyFile(o.GCP); file != "" {
			args = append(args, "--gcp-credentials-file="+file)
		}
	}
	if o.ManagementClusterID != "" {
		args = append(args, "--management-cluster-id="+o.ManagementClusterID)
	}
	return args
}

func deployment(o Options, access cloudAccess) *appsv1.Deployment {
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("probes")}},
			PeriodSeconds: 10, FailureThreshold: 3}
	}
	container := corev1.Container{
		Name:            "operator",
		Image:           o.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            operatorArgs(o),
		Env:             access.env,
		EnvFrom:         access.envFrom,
		VolumeMounts:    access.mounts,
		Ports: []corev1.ContainerPort{
			{Name: "metrics", ContainerPort: metricsPort, Protocol: corev1.ProtocolTCP},
			{Name: "probes", ContainerPort: probePort, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe:  probe("/healthz"),
		ReadinessProbe: probe("/readyz"),
		// Measured: about 92 MiB at 200 clusters (README, bench); the limit
		// leaves room for several times that.
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
	podLabels := labels()
	var podAnnotations map[string]string
	if access.secret != nil {
		podAnnotations = map[string]string{credentialsHashAnnotation: hashOf(access.secret.Data)}
	}
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: namespacedMeta(o.Namespace, operatorName),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(o.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: selector()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					ServiceAccountName: operatorName,
					Containers:         []corev1.Container{container},
					Volumes:            access.volumes,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](runAsUser),
						RunAsGroup:     ptr.To[int64](runAsUser),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Affinity: spreadAcrossNodes(),
				},
			},
		},
	}
}

// spreadAcrossNodes prefers replicas on different nodes so that losing a
// node leaves one running; preferred, not required, so that a one-node
// cluster still runs both.
func spreadAcrossNodes() *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: selector()},
				TopologyKey:   corev1.LabelHostname,
			},
		}},
	}}
}

// podDisruptionBudget lets a drain evict one replica at a time; with one
// replica it still allows the drain.
func podDisruptionBudget(namespace string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
		ObjectMeta: namespacedMeta(namespace, operatorName),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: selector()},
		},
	}
}

func metricsService(namespace string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: namespacedMeta(namespace, operatorName+"-metrics"),
		Spec: corev1.ServiceSpec{
			Selector: selector(),
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: metricsPort, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// hashOf is a short, stable hash of a Secret's data.
func hashOf(data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(data[k])
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
