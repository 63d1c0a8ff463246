package diagnose

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// kubeSeen is what the Kubernetes hops read; the cloud walks build on it.
type kubeSeen struct {
	reader client.Reader
	hc     *hcplinkv1beta1.HostedCluster
	hcp    *hcplinkv1beta1.HostedControlPlane
	router *corev1.Service
	hcpNS  string
}

func (k kubeSeen) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: k.hcpNS, Name: name}
}

// get reads obj; (false, nil) when it does not exist.
func get(ctx context.Context, r client.Reader, key types.NamespacedName, obj client.Object) (bool, error) {
	err := r.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %T %s: %w", obj, key, err)
	}
	return true, nil
}

// walkKubernetes reads the HostedCluster and its HostedControlPlane. ok is
// false when the walk cannot go on (no cluster, or no private path).
func walkKubernetes(ctx context.Context, r client.Reader, namespace, name string) (k kubeSeen, hops []Hop, ok bool, err error) {
	k = kubeSeen{reader: r, hcpNS: hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name)}
	hc := &hcplinkv1beta1.HostedCluster{}
	found, err := get(ctx, r, types.NamespacedName{Namespace: namespace, Name: name}, hc)
	if err != nil {
		return k, nil, false, err
	}
	if found {
		k.hc = hc
	}
	hops = append(hops, HostedClusterHop(namespace+"/"+name, k.hc))
	if k.hc == nil || !hasPrivatePath(k.hc) {
		return k, hops, false, nil
	}
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if found, err = get(ctx, r, k.key(name), hcp); err != nil {
		return k, nil, false, err
	}
	if found {
		k.hcp = hcp
	}
	hops = append(hops, HostedControlPlaneHop(k.hcpNS+"/"+name, k.hcp))
	return k, hops, true, nil
}

// serviceHop reads the load-balancer Service of one private endpoint and
// judges it; the private router's is kept for the walks that look up its
// address in the cloud.
func (k *kubeSeen) serviceHop(ctx context.Context, name string) (Hop, error) {
	svc := &corev1.Service{}
	found, err := get(ctx, k.reader, k.key(name), svc)
	if err != nil {
		return Hop{}, err
	}
	if !found {
		svc = nil
	}
	if name == hcplinkv1beta1.PrivateRouterServiceName {
		k.router = svc
		return RouterServiceHop(k.hcpNS+"/"+name, svc), nil
	}
	return PrivateServiceHop(k.hcpNS+"/"+name, svc), nil
}

// externalNamesHop reads the wanted ExternalName Services and judges them.
func (k kubeSeen) externalNamesHop(ctx context.Context, want map[string]string, target string) Hop {
	seen := ExternalNamesSeen{Namespace: k.hcpNS, Target: target, Have: map[string]string{}}
	for name := range want {
		seen.Want = append(seen.Want, name)
		svc := &corev1.Service{}
		found, err := get(ctx, k.reader, k.key(name), svc)
		if err != nil {
			return unknown(HopExternalNames, SideKubernetes, err.Error())
		}
		if found && svc.Spec.Type == corev1.ServiceTypeExternalName {
			seen.Have[name] = svc.Spec.ExternalName
		}
	}
	sort.Strings(seen.Want)
	return ExternalNamesHop(seen)
}
