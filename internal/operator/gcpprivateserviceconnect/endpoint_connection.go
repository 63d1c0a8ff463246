package gcpprivateserviceconnect

import (
	"strconv"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// endpointConnection is the connection of the cluster's endpoint as the
// attachment sa reports it among its connected endpoints
// (https://cloud.google.com/compute/docs/reference/rest/v1/serviceAttachments:
// connectedEndpoints[].endpoint, pscConnectionId, status), for
// status.endpointConnection: the control-plane operator reads its endpoint
// only when this does not show it ACCEPTED. Only the forwarding rule
// status.endpointName names in the cluster's project and region is the
// cluster's (another project's endpoint on the same attachment is not).
// nil when sa is nil, the control-plane operator has named no endpoint
// yet, or sa shows no connection from it — or more than one (a deleted
// endpoint's still listed beside its successor's): which is the live one
// is for the control-plane operator to read.
func endpointConnection(sa *compute.ServiceAttachment, cr *hcplinkv1beta1.GCPPrivateServiceConnect) *hcplinkv1beta1.GCPEndpointConnection {
	if sa == nil || cr.Status.EndpointName == "" {
		return nil
	}
	ours := gcpcloud.EndpointRelativeName(cr.Spec.Project, cr.Spec.Region, cr.Status.EndpointName)
	var found *compute.ServiceAttachmentConnectedEndpoint
	for _, ce := range sa.ConnectedEndpoints {
		if ce == nil || gcpcloud.RelativeName(ce.Endpoint) != ours {
			continue
		}
		if found != nil {
			return nil
		}
		found = ce
	}
	if found == nil || found.Status == "" {
		return nil
	}
	c := &hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: ours, Status: found.Status}
	if found.PscConnectionId != 0 {
		c.PSCConnectionID = strconv.FormatUint(found.PscConnectionId, 10)
	}
	return c
}

// connectionFields is c as a merge patch of status.endpointConnection:
// every field named, so that one a former report set and this one lacks
// is removed; nil removes the report.
func connectionFields(c *hcplinkv1beta1.GCPEndpointConnection) any {
	if c == nil {
		return nil
	}
	var id any
	if c.PSCConnectionID != "" {
		id = c.PSCConnectionID
	}
	return map[string]any{"forwardingRule": c.ForwardingRule, "pscConnectionID": id, "status": c.Status}
}
