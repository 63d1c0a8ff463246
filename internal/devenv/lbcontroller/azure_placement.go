package lbcontroller

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// How cloud-provider-azure places LoadBalancer Services on load
// balancers, as its "Multiple Standard LoadBalancers" topic documents
// (https://cloud-provider-azure.sigs.k8s.io/topics/multislb/):
//
//   - by default a cluster has one public load balancer named after the
//     cluster and one internal one, <name>-internal, shared by every
//     Service of that kind, each Service a frontend IP configuration on it;
//   - with multipleStandardLoadBalancerConfigurations, each configuration
//     <name> is a public load balancer <name> and an internal one
//     <name>-internal; the one named after the cluster must exist;
//   - a Service annotated service.beta.kubernetes.io/azure-load-balancer-configurations:
//     "<name>[,<name>]" may go only on those; one without the annotation
//     on any configuration that allows service placement (the default);
//   - among the eligible ones, the one with the fewest rules is chosen, and
//     a Service already on an eligible load balancer stays there.
//
// The stand-in counts one rule per frontend (each router Service has one
// port) and does not model the configurations' namespace and label
// selectors: hcplink never sets them.

// AzureConfigurationsAnnotation pins a Service to load-balancer
// configurations of cloud-provider-azure, by name, comma-separated.
const AzureConfigurationsAnnotation = "service.beta.kubernetes.io/azure-load-balancer-configurations"

// DefaultAzureClusterName is cloud-provider-azure's cluster name when none
// is configured: its load balancers are "kubernetes" and
// "kubernetes-internal".
const DefaultAzureClusterName = "kubernetes"

// AzureLoadBalancerConfiguration is one entry of the cloud config's
// multipleStandardLoadBalancerConfigurations.
type AzureLoadBalancerConfiguration struct {
	// Name is the public load balancer's name; the internal one is
	// Name-internal.
	Name string
	// NoServicePlacement is allowServicePlacement: false: only Services
	// that name the configuration in their annotation go on it.
	NoServicePlacement bool
}

// azureLoadBalancerName is the load balancer of a configuration for
// public or internal Services.
func azureLoadBalancerName(configuration string, internal bool) string {
	if internal {
		return configuration + "-internal"
	}
	return configuration
}

// azureFrontendName names a Service's frontend on a shared load balancer
// as cloud-provider-azure does: "a" and the Service's UID without dashes.
func azureFrontendName(uid types.UID) string {
	return "a" + strings.ReplaceAll(string(uid), "-", "")
}

// eligibleConfigurations are the configurations a Service may be placed
// on, in configuration order: those its annotation names (whether or not
// they allow placement), else those that allow placement.
func eligibleConfigurations(configs []AzureLoadBalancerConfiguration, svc *corev1.Service) []string {
	var named []string
	if v, ok := svc.Annotations[AzureConfigurationsAnnotation]; ok {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				named = append(named, strings.ToLower(n))
			}
		}
	}
	var out []string
	for _, c := range configs {
		switch {
		case len(named) > 0 && slices.Contains(named, strings.ToLower(c.Name)):
			out = append(out, c.Name)
		case len(named) == 0 && !c.NoServicePlacement:
			out = append(out, c.Name)
		}
	}
	return out
}

// chooseConfiguration is the eligible configuration whose load balancer of
// the Service's kind has the fewest frontends (rules), the first on a tie;
// "" when none is eligible.
func chooseConfiguration(eligible []string, internal bool, frontends func(lb string) int) string {
	best, fewest := "", 0
	for _, c := range eligible {
		if n := frontends(azureLoadBalancerName(c, internal)); best == "" || n < fewest {
			best, fewest = c, n
		}
	}
	return best
}
