package gcp

import (
	"strings"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// object is o as the HostedCluster controller sees it: what each
// finalizer would leave behind if given up (the operator's: the service
// attachment; the control-plane operator's: the endpoint and the private
// zone). The reports reach conditions and Events, so they name resources
// by name and project, never by URI.
func object(o *hcplinkv1beta1.GCPPrivateServiceConnect) platform.Object {
	obj := platform.Object{Object: o, Conditions: o.Status.Conditions, Fallback: describe(o), Leaks: map[string]string{}}
	where := "GCPPrivateServiceConnect " + o.Name + ": "
	if mgmt := managementSide(o); len(mgmt) > 0 {
		obj.Leaks[hcplinkv1beta1.OperatorFinalizer] = where + strings.Join(mgmt, ", ")
	}
	if customer := customerSide(o); len(customer) > 0 {
		obj.Leaks[hcplinkv1beta1.ControlPlaneFinalizer] = where + strings.Join(customer, ", ")
	}
	return obj
}

// managementSide names what the operator made in the management project.
// NAT subnetworks are the management network's own pool, never made by
// hcplink on GCP, so they are not listed.
func managementSide(o *hcplinkv1beta1.GCPPrivateServiceConnect) []string {
	if n := o.Status.ServiceAttachmentName; n != "" {
		return []string{"service attachment " + n + " in the management project, region " + o.Spec.Region}
	}
	return nil
}

// customerSide names what the control-plane operator made in the
// cluster's project.
func customerSide(o *hcplinkv1beta1.GCPPrivateServiceConnect) []string {
	st := o.Status
	var out []string
	if st.EndpointName != "" {
		out = append(out, "Private Service Connect endpoint "+st.EndpointName+" and its address in project "+o.Spec.Project)
	}
	if st.DNSZoneName != "" {
		out = append(out, "private DNS zone "+st.DNSZoneName+" in project "+o.Spec.Project)
	}
	return out
}

// describe names the cloud resources the object recorded in its status.
func describe(o *hcplinkv1beta1.GCPPrivateServiceConnect) string {
	parts := append(managementSide(o), customerSide(o)...)
	if len(parts) == 0 {
		return "GCPPrivateServiceConnect " + o.Name + " (project " + o.Spec.Project + "): no cloud resource names were recorded; look for resources labelled or marked for the cluster"
	}
	return "GCPPrivateServiceConnect " + o.Name + ": " + strings.Join(parts, ", ")
}
