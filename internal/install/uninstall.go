package install

import (
	"context"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/config/crd"
	"github.com/hcplink/hcplink/internal/monitoring"
)

// maxNamed bounds how many remaining objects a message names.
const maxNamed = 5

// UninstallOptions tune Uninstall.
type UninstallOptions struct {
	// Namespace install used (DefaultNamespace when empty).
	Namespace string
	// Progress receives one line per object removed or kept.
	Progress io.Writer
}

// Uninstall removes what install made, refusing while any HostedCluster
// exists (the operator must clean up their cloud resources first). A CRD
// is kept while any object of its kind remains; the namespace is kept
// while it holds Secrets install did not make.
func Uninstall(ctx context.Context, c client.Client, uo UninstallOptions) error {
	namespace := uo.Namespace
	if namespace == "" {
		namespace = DefaultNamespace
	}
	progress := uo.Progress
	if progress == nil {
		progress = io.Discard
	}
	if err := refuseWhileClustersExist(ctx, c); err != nil {
		return err
	}
	owned := []client.Object{
		monitoringRule(namespace),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: monitoring.DashboardConfigMapName}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorName + "-metrics"}},
		&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorName}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorName}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: credentialsSecretName()}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: operatorName}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: operatorName}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorName}},
	}
	for _, obj := range owned {
		if err := deleteIfOurs(ctx, c, obj, progress); err != nil {
			return err
		}
	}
	if err := deleteNamespace(ctx, c, namespace, progress); err != nil {
		return err
	}
	return deleteCRDs(ctx, c, progress)
}

func refuseWhileClustersExist(ctx context.Context, c client.Client) error {
	list := &hcplinkv1beta1.HostedClusterList{}
	err := c.List(ctx, list)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return nil // no CRD: nothing can exist
	}
	if err != nil {
		return fmt.Errorf("listing HostedClusters: %w", err)
	}
	if len(list.Items) == 0 {
		return nil
	}
	names := make([]string, 0, len(list.Items))
	for _, hc := range list.Items {
		names = append(names, hc.Namespace+"/"+hc.Name)
	}
	return fmt.Errorf("not uninstalling: %d HostedCluster(s) still exist (%s); delete them and wait until they are gone, so that the operator removes their cloud resources, then run uninstall again",
		len(names), bounded(names))
}

// deleteIfOurs deletes obj when it exists and carries install's label.
func deleteIfOurs(ctx context.Context, c client.Client, obj client.Object, progress io.Writer) error {
	kind := kindOf(c, obj)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil // gone, or its kind is not served (no Prometheus Operator)
	} else if err != nil {
		return fmt.Errorf("reading %s %s: %w", kind, obj.GetName(), err)
	}
	if obj.GetLabels()[ManagedByLabel] != ManagedByValue {
		fmt.Fprintf(progress, "%s %s kept (install did not make it)\n", strings.ToLower(kind), nameOf(obj))
		return nil
	}
	if err := c.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s %s: %w (re-running uninstall is safe)", kind, nameOf(obj), err)
	}
	fmt.Fprintf(progress, "%s %s deleted\n", strings.ToLower(kind), nameOf(obj))
	return nil
}

// monitoringRule is the PrometheusRule `install --monitoring` makes.
func monitoringRule(namespace string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(monitoring.PrometheusRuleKind)
	u.SetNamespace(namespace)
	u.SetName(monitoring.PrometheusRuleName)
	return u
}

// deleteNamespace deletes install's namespace unless it holds Secrets
// someone else made there (--aws-private-secret, --azure-secret), which
// deleting the namespace would destroy.
func deleteNamespace(ctx context.Context, c client.Client, namespace string, progress io.Writer) error {
	secrets := &corev1.SecretList{}
	if err := c.List(ctx, secrets, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing the Secrets of namespace %s: %w", namespace, err)
	}
	var foreign []string
	for _, s := range secrets.Items {
		if s.Labels[ManagedByLabel] != ManagedByValue && s.Type != corev1.SecretTypeServiceAccountToken {
			foreign = append(foreign, s.Name)
		}
	}
	if len(foreign) > 0 {
		fmt.Fprintf(progress, "namespace %s kept (it holds Secrets install did not make: %s; delete it yourself when they are no longer needed)\n", namespace, bounded(foreign))
		return nil
	}
	return deleteIfOurs(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, progress)
}

// deleteCRDs deletes each hcplink CRD that install made and no object of
// whose kind remains (deleting a CRD deletes its objects, finalizers or not).
func deleteCRDs(ctx context.Context, c client.Client, progress io.Writer) error {
	crds, err := crd.CustomResourceDefinitions()
	if err != nil {
		return err
	}
	for _, want := range crds {
		remaining, err := remainingObjects(ctx, c, want)
		if err != nil {
			return err
		}
		if len(remaining) > 0 {
			fmt.Fprintf(progress, "customresourcedefinition %s kept (%s objects remain: %s)\n", want.Name, want.Spec.Names.Kind, bounded(remaining))
			continue
		}
		if err := deleteIfOurs(ctx, c, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: want.Name}}, progress); err != nil {
			return err
		}
	}
	return nil
}

func remainingObjects(ctx context.Context, c client.Client, def *apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(def.Spec.Group + "/" + servedVersion(def))
	list.SetKind(def.Spec.Names.ListKind)
	err := c.List(ctx, list)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", def.Spec.Names.Plural, err)
	}
	names := make([]string, 0, len(list.Items))
	for _, o := range list.Items {
		names = append(names, o.GetNamespace()+"/"+o.GetName())
	}
	return names, nil
}

func servedVersion(def *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range def.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return def.Spec.Versions[0].Name
}

func bounded(names []string) string {
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
}

// kindOf is obj's kind as the client's scheme knows it.
func kindOf(c client.Client, obj client.Object) string {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}

func nameOf(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
