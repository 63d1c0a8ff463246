package v1beta1

// Names of the Services hcplink keeps in a control-plane namespace. They
// are API: the observers find the router Services by name, the
// AWSEndpointServices, AzurePrivateLinkServices and
// GCPPrivateServiceConnects are named after them,
// and diagnose, the demo and the e2e tests look them up.
const (
	// PrivateRouterServiceName is the internal load balancer in front of the
	// private router; it exists when the cluster is private.
	PrivateRouterServiceName = "private-router"
	// RouterServiceName is the internet-facing load balancer in front of the
	// same router; it exists when the cluster is public.
	RouterServiceName = "router"
	// KubeAPIServerPrivateServiceName is the internal load balancer of an
	// AWS API server published by LoadBalancer on a private cluster.
	KubeAPIServerPrivateServiceName = "kube-apiserver-private"
)

// GCPPrivateServiceConnectName is the name of a GCP cluster's one
// GCPPrivateServiceConnect in its control-plane namespace: that of the
// router Service it publishes, as AWSEndpointServices and
// AzurePrivateLinkServices are named.
const GCPPrivateServiceConnectName = PrivateRouterServiceName

// RouterServiceNames lists every router Service, in the order the routers
// controller reconciles them.
var RouterServiceNames = []string{PrivateRouterServiceName, RouterServiceName, KubeAPIServerPrivateServiceName}

// WantedRouterServices returns the names of the router Services hcp calls
// for, in RouterServiceNames order:
//
// AWS (endpointAccess):
//   - private-router when PublicAndPrivate or Private;
//   - router when Public or PublicAndPrivate;
//   - kube-apiserver-private when the API server is published by
//     LoadBalancer and the cluster is private.
//
// Azure, only with the private configuration (IsPrivate checks it, not the
// topology alone), and GCP, only when PublicAndPrivate or Private (every
// service is published by Route on both, so one router carries them all):
//   - private-router for every service;
//   - router when PublicAndPrivate.
func WantedRouterServices(hcp *HostedControlPlane) []string {
	var out []string
	platform := &hcp.Spec.Platform
	switch platform.Type {
	case AWSPlatform:
		if platform.IsPrivate() {
			out = append(out, PrivateRouterServiceName)
		}
		if platform.IsPublic() {
			out = append(out, RouterServiceName)
		}
		apiServer, _ := PublishingStrategyFor(hcp.Spec.Services, APIServer)
		if platform.IsPrivate() && apiServer.Type == LoadBalancerPublishing {
			out = append(out, KubeAPIServerPrivateServiceName)
		}
	case AzurePlatform, GCPPlatform:
		if !platform.IsPrivate() {
			return nil
		}
		out = append(out, PrivateRouterServiceName)
		if platform.IsPublic() {
			out = append(out, RouterServiceName)
		}
	}
	return out
}

// ExternalName Services that point the Route hostnames of a private
// cluster at its private endpoint, for external-dns.
const (
	KubeAPIServerPrivateExternalService = "kube-apiserver-private-external"
	OAuthPrivateExternalService         = "oauth-private-external"
	// ExternalDNSHostnameAnnotation tells external-dns which name to serve.
	ExternalDNSHostnameAnnotation = "external-dns.alpha.kubernetes.io/hostname"
)

// PrivateExternalServiceNames lists every ExternalName Service the
// control-plane operator may own, in the order it reconciles them.
var PrivateExternalServiceNames = []string{KubeAPIServerPrivateExternalService, OAuthPrivateExternalService}

// AWSExternalNames returns the ExternalName Services an AWS cluster wants,
// by name, with the hostname each serves: only when the cluster is not
// public, for the API server and OAuth when they are Routes with
// hostnames.
func AWSExternalNames(hcp *HostedControlPlane) map[string]string {
	if hcp.Spec.Platform.IsPublic() {
		return map[string]string{}
	}
	return routeHostnames(hcp)
}

// AzureExternalNames returns the ExternalName Services an Azure cluster
// wants, by name, with the Route hostname each serves: only when the
// topology is Private (PublicAndPrivate serves the hostnames publicly),
// for the API server and OAuth when they are Routes with hostnames. Each
// points at the zone's api record: one router serves them all behind the
// one endpoint.
func AzureExternalNames(hcp *HostedControlPlane) map[string]string {
	if hcp == nil || hcp.Spec.Platform.Azure == nil || hcp.Spec.Platform.Azure.Topology != AzureTopologyPrivate {
		return map[string]string{}
	}
	return routeHostnames(hcp)
}

// GCPExternalNames returns the ExternalName Services a GCP cluster wants,
// by name, with the Route hostname each serves: only when endpointAccess
// is Private (PublicAndPrivate serves the hostnames publicly), for the API
// server and OAuth when they are Routes with hostnames. Each points at the
// api record of the cluster's private zone <name>.hypershift.local. (its
// api and *.apps records lead to the Private Service Connect endpoint): one
// router serves them all behind the one endpoint.
func GCPExternalNames(hcp *HostedControlPlane) map[string]string {
	if hcp == nil || hcp.Spec.Platform.GCP == nil || hcp.Spec.Platform.GCP.EndpointAccess != GCPEndpointAccessPrivate {
		return map[string]string{}
	}
	return routeHostnames(hcp)
}

// routeHostnames maps the ExternalName Service of the API server and of
// OAuth to their Route hostname, for those published by a Route with one.
func routeHostnames(hcp *HostedControlPlane) map[string]string {
	out := map[string]string{}
	for svc, name := range map[ServiceType]string{
		APIServer:   KubeAPIServerPrivateExternalService,
		OAuthServer: OAuthPrivateExternalService,
	} {
		s, _ := PublishingStrategyFor(hcp.Spec.Services, svc)
		if s.Type == RoutePublishing && s.Route != nil && s.Route.Hostname != "" {
			out[name] = s.Route.Hostname
		}
	}
	return out
}
