package install

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/config/crd"
	"github.com/hcplink/hcplink/internal/monitoring"
)

const (
	// operatorName names the ServiceAccount, ClusterRole, bindings,
	// Deployment, disruption budget and metrics Service.
	operatorName = hcplinkv1beta1.ManagementOperatorName
	// ManagedByLabel with ManagedByValue marks what install made, so that
	// uninstall removes exactly that.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "hcplink-install"
	nameLabel      = "app.kubernetes.io/name"
	partOfLabel    = "app.kubernetes.io/part-of"
	// FieldManager owns the fields install applies.
	FieldManager = "hcplink-install"
)

func labels() map[string]string {
	return map[string]string{nameLabel: operatorName, partOfLabel: "hcplink", ManagedByLabel: ManagedByValue}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func clusterMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: labels()}
}

func namespacedMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels()}
}

// Objects is everything a management cluster needs, in the order they are
// applied: CRDs first (their kinds must exist before anything uses them),
// then the namespace, identity and RBAC, the credentials, and last the
// workload that uses them.
func Objects(opts Options) ([]client.Object, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	crds, err := crd.CustomResourceDefinitions()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded CRDs: %w", err)
	}
	access, err := cloudAccessFor(o)
	if err != nil {
		return nil, err
	}
	var objs []client.Object
	for _, c := range crds {
		c.TypeMeta = typeMeta("apiextensions.k8s.io/v1", "CustomResourceDefinition")
		c.Labels = labels()
		objs = append(objs, c)
	}
	objs = append(objs,
		&corev1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: clusterMeta(o.Namespace)},
		serviceAccount(o.Namespace, access),
		clusterRole(),
		clusterRoleBinding(o.Namespace),
	)
	if access.secret != nil {
		s := access.secret
		s.TypeMeta, s.ObjectMeta = typeMeta("v1", "Secret"), namespacedMeta(o.Namespace, credentialsSecretName())
		objs = append(objs, s)
	}
	objs = append(objs, deployment(o, access), podDisruptionBudget(o.Namespace), metricsService(o.Namespace))
	if o.Monitoring {
		watching, err := monitoring.Objects(o.Namespace, monitoring.RuleOptions{})
		if err != nil {
			return nil, err
		}
		for _, obj := range watching {
			obj.SetLabels(mergeLabels(obj.GetLabels(), labels()))
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

func mergeLabels(base, extra map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(extra))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func serviceAccount(namespace string, access cloudAccess) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: namespacedMeta(namespace, operatorName)}
	sa.Annotations = access.saAnnotations
	return sa
}
