package v1beta1

// This file holds the spec types that HostedCluster and HostedControlPlane
// share: DNS, networking, service publishing and the platform union.

// DNSSpec is the cluster's DNS configuration.
type DNSSpec struct {
	// baseDomain is the domain under which the cluster's names live, for
	// example api-<name>.<baseDomain>. It is a lowercase DNS name of at most
	// 253 characters and cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="baseDomain must be a lowercase DNS name such as example.com"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="baseDomain is immutable"
	BaseDomain string `json:"baseDomain"`
}

// ClusterNetworking is the part of the cluster's network configuration that
// private connectivity needs.
type ClusterNetworking struct {
	// machineNetwork lists the CIDRs the worker machines live in. The
	// security group of an AWS VPC endpoint admits traffic from exactly these
	// ranges, so list every range (secondary VPC CIDRs included) that nodes
	// use. At least 1 and at most 16 entries, each CIDR once.
	//
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(m, self.exists_one(o, o.cidr == m.cidr))",message="machineNetwork lists a CIDR twice; list each range once"
	MachineNetwork []MachineNetworkEntry `json:"machineNetwork"`
}

// MachineNetworkEntry is one range of worker machine addresses.
type MachineNetworkEntry struct {
	// cidr is a network in CIDR notation with no host bits set, for example
	// 10.0.0.0/16.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && cidr(self) == cidr(self).masked()",message="cidr must be a network in CIDR notation with no host bits set, such as 10.0.0.0/16"
	CIDR string `json:"cidr"`
}

// ServiceType names a control-plane service that workers must reach.
//
// +kubebuilder:validation:Enum=APIServer;OAuthServer;Konnectivity;Ignition
type ServiceType string

const (
	// APIServer is the Kubernetes API server.
	APIServer ServiceType = "APIServer"
	// OAuthServer is the cluster's OAuth server.
	OAuthServer ServiceType = "OAuthServer"
	// Konnectivity is the konnectivity server that tunnels control plane to
	// node traffic.
	Konnectivity ServiceType = "Konnectivity"
	// Ignition is the server that hands machines their first configuration.
	Ignition ServiceType = "Ignition"
)

// PublishingStrategyType is how a service is exposed.
//
// +kubebuilder:validation:Enum=LoadBalancer;Route;NodePort
type PublishingStrategyType string

const (
	// LoadBalancerPublishing exposes the service through a load balancer of
	// its own.
	LoadBalancerPublishing PublishingStrategyType = "LoadBalancer"
	// RoutePublishing exposes the service through the shared router.
	RoutePublishing PublishingStrategyType = "Route"
	// NodePortPublishing exposes the service on a node port. hcplink builds no
	// private path for it.
	NodePortPublishing PublishingStrategyType = "NodePort"
)

// ServicePublishingStrategyMapping says how one service is published.
//
// +kubebuilder:validation:XValidation:rule="self.service == 'APIServer' || self.servicePublishingStrategy.type == 'Route'",message="servicePublishingStrategy.type must be Route for Konnectivity, OAuthServer and Ignition: hcplink serves them through the router",fieldPath=".servicePublishingStrategy.type"
// +kubebuilder:validation:XValidation:rule="self.service != 'APIServer' || self.servicePublishingStrategy.type != 'Route' || (has(self.servicePublishingStrategy.route) && has(self.servicePublishingStrategy.route.hostname))",message="servicePublishingStrategy.route.hostname is required when the APIServer is published by Route",fieldPath=".servicePublishingStrategy.route"
type ServicePublishingStrategyMapping struct {
	// service is the service being published.
	//
	// +required
	Service ServiceType `json:"service"`

	// servicePublishingStrategy is how the service is published.
	//
	// +required
	ServicePublishingStrategy ServicePublishingStrategy `json:"servicePublishingStrategy"`
}

// ServicePublishingStrategy is how a service is exposed, with the settings
// of that one strategy.
//
// +kubebuilder:validation:XValidation:rule="!has(self.route) || self.type == 'Route'",message="route may only be set when type is Route",fieldPath=".route"
// +kubebuilder:validation:XValidation:rule="!has(self.loadBalancer) || self.type == 'LoadBalancer'",message="loadBalancer may only be set when type is LoadBalancer",fieldPath=".loadBalancer"
type ServicePublishingStrategy struct {
	// type is LoadBalancer, Route or NodePort.
	//
	// +required
	Type PublishingStrategyType `json:"type"`

	// route holds the settings of the Route strategy.
	//
	// +optional
	Route *RoutePublishingStrategy `json:"route,omitempty"`

	// loadBalancer holds the settings of the LoadBalancer strategy.
	//
	// +optional
	LoadBalancer *LoadBalancerPublishingStrategy `json:"loadBalancer,omitempty"`
}

// RoutePublishingStrategy holds the settings of a service published by Route.
type RoutePublishingStrategy struct {
	// hostname is the name clients use to reach the service. On a cluster
	// that is not public, hcplink points it at the private endpoint.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="hostname must be a lowercase DNS name such as api.example.com"
	Hostname string `json:"hostname,omitempty"`
}

// LoadBalancerPublishingStrategy holds the settings of a service published by
// its own load balancer.
type LoadBalancerPublishingStrategy struct {
	// hostname is the name clients use to reach the load balancer.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="hostname must be a lowercase DNS name such as api.example.com"
	Hostname string `json:"hostname,omitempty"`
}

// PlatformType is the cloud a cluster runs on.
//
// +kubebuilder:validation:Enum=AWS;Azure;GCP
type PlatformType string

const (
	// AWSPlatform is Amazon Web Services; private connectivity uses AWS
	// PrivateLink.
	AWSPlatform PlatformType = "AWS"
	// AzurePlatform is Microsoft Azure; private connectivity uses Azure
	// Private Link.
	AzurePlatform PlatformType = "Azure"
	// GCPPlatform is Google Cloud; private connectivity uses Private
	// Service Connect.
	GCPPlatform PlatformType = "GCP"
)

// PlatformSpec is the cloud-specific configuration of a cluster. Exactly the
// member that matches type is set.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'AWS' || has(self.aws)",message="platform.aws is required when platform.type is AWS",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.type != 'AWS' || !has(self.azure)",message="platform.azure must not be set when platform.type is AWS",fieldPath=".azure"
// +kubebuilder:validation:XValidation:rule="self.type != 'Azure' || has(self.azure)",message="platform.azure is required when platform.type is Azure",fieldPath=".azure"
// +kubebuilder:validation:XValidation:rule="self.type != 'Azure' || !has(self.aws)",message="platform.aws must not be set when platform.type is Azure",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.type != 'GCP' || has(self.gcp)",message="platform.gcp is required when platform.type is GCP",fieldPath=".gcp"
// +kubebuilder:validation:XValidation:rule="self.type == 'GCP' || !has(self.gcp)",message="platform.gcp must not be set unless platform.type is GCP",fieldPath=".gcp"
// +kubebuilder:validation:XValidation:rule="self.type != 'GCP' || !has(self.aws)",message="platform.aws must not be set when platform.type is GCP",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.type != 'GCP' || !has(self.azure)",message="platform.azure must not be set when platform.type is GCP",fieldPath=".azure"
type PlatformSpec struct {
	// type is the cloud: AWS, Azure or GCP. It cannot change after
	// creation.
	//
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="platform.type is immutable"
	Type PlatformType `json:"type"`

	// aws is the AWS configuration; set exactly when type is AWS.
	//
	// +optional
	AWS *AWSPlatformSpec `json:"aws,omitempty"`

	// azure is the Azure configuration; set exactly when type is Azure.
	//
	// +optional
	Azure *AzurePlatformSpec `json:"azure,omitempty"`

	// gcp is the GCP configuration; set exactly when type is GCP.
	//
	// +optional
	GCP *GCPPlatformSpec `json:"gcp,omitempty"`
}
