package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of every hcplink kind.
const GroupName = "hcplink.io"

// GroupVersion is the group and version of this package's kinds.
var GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

var (
	// SchemeBuilder registers this package's kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&HostedCluster{}, &HostedClusterList{},
		&NodePool{}, &NodePoolList{},
		&HostedControlPlane{}, &HostedControlPlaneList{},
		&AWSEndpointService{}, &AWSEndpointServiceList{},
		&AzurePrivateLinkService{}, &AzurePrivateLinkServiceList{},
		&GCPPrivateServiceConnect{}, &GCPPrivateServiceConnectList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
