package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// HostedClusterHop judges the HostedCluster: it exists and is private or
// public-and-private (else there is no private path to walk).
func HostedClusterHop(key string, hc *hcplinkv1beta1.HostedCluster) Hop {
	if hc == nil {
		return fail(HopHostedCluster, SideKubernetes, "no HostedCluster "+key, "Check the namespace and name: diagnose takes <namespace>/<cluster>.")
	}
	seen := fmt.Sprintf("%s %s %s, %s", key, hc.Spec.Platform.Type, access(hc), condition(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition))
	if !hasPrivatePath(hc) {
		return fail(HopHostedCluster, SideKubernetes, seen, "HostedCluster "+key+" is public: it has no private path to diagnose.")
	}
	return pass(HopHostedCluster, SideKubernetes, seen)
}

// hasPrivatePath: the cluster is private on a cloud diagnose walks.
func hasPrivatePath(hc *hcplinkv1beta1.HostedCluster) bool {
	_, walked := cloudPaths[hc.Spec.Platform.Type]
	return walked && hc.Spec.Platform.IsPrivate()
}

func access(hc *hcplinkv1beta1.HostedCluster) string {
	if p, ok := cloudPaths[hc.Spec.Platform.Type]; ok {
		return p.access(hc)
	}
	return ""
}

func condition(conds []metav1.Condition, t string) string {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return t + " not reported"
	}
	if c.Status == metav1.ConditionTrue {
		return t
	}
	return fmt.Sprintf("%s=%s (%s)", t, c.Status, c.Reason)
}

// HostedControlPlaneHop judges the HostedControlPlane: it exists and is not
// being deleted.
func HostedControlPlaneHop(key string, hcp *hcplinkv1beta1.HostedControlPlane) Hop {
	if hcp == nil {
		return fail(HopHostedControlPlane, SideKubernetes, "no HostedControlPlane "+key,
			"Read the HostedCluster's conditions: the management operator says there why it has not created the control plane.")
	}
	seen := key + ", " + condition(hcp.Status.Conditions, hcplinkv1beta1.HostedControlPlaneAvailableCondition)
	if hcp.DeletionTimestamp != nil {
		return fail(HopHostedControlPlane, SideKubernetes, seen+", deleting", "HostedControlPlane "+key+" is being deleted: its private path is going away.")
	}
	return pass(HopHostedControlPlane, SideKubernetes, seen)
}

// RouterServiceHop judges the private router Service: a LoadBalancer with
// an address from the cloud.
func RouterServiceHop(key string, svc *corev1.Service) Hop {
	return loadBalancerServiceHop(HopRouterService, key, svc)
}

// PrivateServiceHop judges the load-balancer Service of another private
// endpoint (kube-apiserver-private) the same way.
func PrivateServiceHop(key string, svc *corev1.Service) Hop {
	return loadBalancerServiceHop(HopAPIServerService, key, svc)
}

func loadBalancerServiceHop(hop, key string, svc *corev1.Service) Hop {
	if svc == nil {
		return fail(hop, SideKubernetes, "no Service "+key,
			"Check that the control-plane operator runs: it creates Service "+key+".")
	}
	var addrs []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		addrs = append(addrs, in.Hostname+in.IP)
	}
	seen := fmt.Sprintf("%s %s, ingress %s", key, svc.Spec.Type, list(addrs))
	switch {
	case svc.Spec.Type != corev1.ServiceTypeLoadBalancer:
		return fail(hop, SideKubernetes, seen, "Delete Service "+key+"; the control-plane operator recreates it as a LoadBalancer.")
	case len(addrs) == 0:
		return fail(hop, SideKubernetes, seen, "Service "+key+" has no load balancer yet: check the cloud provider's load-balancer controller and the Service's events.")
	}
	return pass(hop, SideKubernetes, seen)
}

// ingressHost is the Service's first ingress hostname or IP.
func ingressHost(svc *corev1.Service) string {
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.Hostname != "" {
			return strings.ToLower(in.Hostname)
		}
		if in.IP != "" {
			return in.IP
		}
	}
	return ""
}
