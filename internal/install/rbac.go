package install

import (
	rbacv1 "k8s.io/api/rbac/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator"
)

var (
	readVerbs   = []string{"get", "list", "watch"}
	writeVerbs  = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	statusVerbs = []string{"get", "update", "patch"}
	emitVerbs   = []string{"create", "update", "patch"}
)

// privateLinkResources are every registered platform's private-link
// resource (awsendpointservices, azureprivatelinkservices,
// gcpprivateserviceconnects): the HostedCluster controller watches each
// of them whatever the private platform, and grants them to every
// control-plane operator.
func privateLinkResources() []string {
	return operator.Platforms().Resources()
}

// subresourcesOf are each of subresources of every resource, subresource
// by subresource.
func subresourcesOf(resources []string, subresources ...string) []string {
	var out []string
	for _, sub := range subresources {
		for _, r := range resources {
			out = append(out, r+"/"+sub)
		}
	}
	return out
}

// operatorRules is what the management operator itself calls: its
// controllers (HostedCluster, NodePool, and each platform's private-link
// controller), the objects it creates in each control-plane namespace,
// its Events, the kube-system namespace it reads its default management
// cluster ID from, and Nodes (their Azure resource group).
func operatorRules() []rbacv1.PolicyRule {
	g := hcplinkv1beta1.GroupName
	owned := append([]string{"hostedcontrolplanes"}, privateLinkResources()...)
	return []rbacv1.PolicyRule{
		{APIGroups: []string{g}, Resources: []string{"hostedclusters"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{g}, Resources: []string{"hostedclusters/status", "hostedclusters/finalizers"}, Verbs: statusVerbs},
		{APIGroups: []string{g}, Resources: []string{"nodepools"}, Verbs: readVerbs},
		{APIGroups: []string{g}, Resources: []string{"nodepools/status"}, Verbs: statusVerbs},
		{APIGroups: []string{g}, Resources: owned, Verbs: writeVerbs},
		{APIGroups: []string{g}, Resources: subresourcesOf(owned, "status", "finalizers"), Verbs: statusVerbs},
		{APIGroups: []string{""}, Resources: []string{"namespaces", "serviceaccounts", "secrets"}, Verbs: writeVerbs},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: writeVerbs},
		{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles", "rolebindings"}, Verbs: writeVerbs},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: emitVerbs},
		// On Azure without --azure-pls-resource-group: the management
		// cluster's resource group, read from Nodes at start-up.
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}},
	}
}

// controlPlaneOperatorGrants is what the operator grants each
// control-plane operator in its Role (internal/operator/hostedcluster)
// beyond operatorRules: Kubernetes lets a subject write a Role only with
// every permission in it. The Leases cover the operator's own leader
// election too.
func controlPlaneOperatorGrants() []rbacv1.PolicyRule {
	g := hcplinkv1beta1.GroupName
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "configmaps"}, Verbs: writeVerbs},
		{APIGroups: []string{""}, Resources: []string{"services/status"}, Verbs: statusVerbs},
		{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: readVerbs},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: emitVerbs},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: writeVerbs},
		{APIGroups: []string{g}, Resources: privateLinkResources(), Verbs: []string{"deletecollection"}},
	}
}

func clusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion.String(), "ClusterRole"),
		ObjectMeta: clusterMeta(operatorName),
		Rules:      append(operatorRules(), controlPlaneOperatorGrants()...),
	}
}

func clusterRoleBinding(namespace string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion.String(), "ClusterRoleBinding"),
		ObjectMeta: clusterMeta(operatorName),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: operatorName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: operatorName, Namespace: namespace}},
	}
}
