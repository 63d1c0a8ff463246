// Package v1beta1 is the hcplink.io/v1beta1 API: the kinds through which a
// hosted control plane gets private connectivity to its workers over AWS
// PrivateLink and Azure Private Link.
//
// Users write HostedCluster and NodePool. The operator writes
// HostedControlPlane into the control-plane namespace of each cluster; the
// control-plane operator and the operator together write AWSEndpointService
// and AzurePrivateLinkService, each side its own fields.
//
// Validation lives in the CRD schema (OpenAPI and CEL) wherever it can, so
// the API server refuses bad input with a message naming the field before
// any controller sees it.
//
// +kubebuilder:object:generate=true
// +groupName=hcplink.io
package v1beta1
