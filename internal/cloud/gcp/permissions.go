package gcp

import (
	"encoding/json"
	"slices"
)

// The IAM permissions each operator, and diagnose, needs on Google Cloud,
// in one table, granted as one custom role per component. A test
// (permissions_cloudsim_test.go) runs every provider call against cloudsim
// as a principal that holds exactly the component's role and compares the
// permissions IAM evaluated with the role: a permission denied, or granted
// and never evaluated, fails it.

// Component is an hcplink process that calls Google Cloud with its own
// identity.
type Component string

const (
	// ManagementOperator runs once per management cluster with the
	// management project's identity (service attachments, NAT subnetworks).
	ManagementOperator Component = "management-operator"
	// ControlPlaneOperator runs per hosted cluster, signed in by workload
	// identity federation as a Google service account of the customer's
	// project (PSC endpoint, its address, the private zone and records).
	ControlPlaneOperator Component = "control-plane-operator"
	// Diagnose is hcplink diagnose, run by a person or a support tool
	// with read-only access to both projects: it only ever reads.
	Diagnose Component = "diagnose"
)

// Permission is one IAM permission a component needs, and why.
type Permission struct {
	Component  Component
	Permission string
	Why        string
}

// Permissions is the table. Keep it sorted by component, then permission.
//
// compute.addresses.create for an INTERNAL address is unverified: IAM also
// lists compute.addresses.createInternal, and no page of Google's at hand
// says which of the two addresses.insert checks for an internal address
// (public least-privilege roles found by trial carry both). cloudsim
// evaluates create; should Google answer "Required
// 'compute.addresses.createInternal' permission", the AccessDenied
// condition names it (MissingPermission), and it belongs in this table.
var Permissions = []Permission{
	{ControlPlaneOperator, "compute.addresses.create", "reserve the endpoint's internal address in the customer's subnetwork"},
	{ControlPlaneOperator, "compute.addresses.delete", "release the endpoint's address at deletion"},
	{ControlPlaneOperator, "compute.addresses.get", "read the endpoint's address (its IP for the records)"},
	{ControlPlaneOperator, "compute.addresses.use", "give the address to the endpoint's forwarding rule"},
	{ControlPlaneOperator, "compute.forwardingRules.create", "create the PSC endpoint targeting the service attachment"},
	{ControlPlaneOperator, "compute.forwardingRules.delete", "delete the PSC endpoint at deletion and when the attachment is replaced"},
	{ControlPlaneOperator, "compute.forwardingRules.get", "read the endpoint and its pscConnectionStatus"},
	{ControlPlaneOperator, "compute.forwardingRules.pscCreate", "create a forwarding rule that is a PSC endpoint (beside create)"},
	{ControlPlaneOperator, "compute.forwardingRules.pscDelete", "delete a forwarding rule that is a PSC endpoint (beside delete)"},
	{ControlPlaneOperator, "compute.networks.use", "place the endpoint in the customer's VPC network"},
	{ControlPlaneOperator, "compute.regionOperations.get", "wait on the address and endpoint operations"},
	{ControlPlaneOperator, "compute.subnetworks.get", "check, before anything is made, that the cluster's subnet exists in its region and network"},
	{ControlPlaneOperator, "compute.subnetworks.use", "reserve the address in the customer's subnetwork"},
	{ControlPlaneOperator, "dns.changes.create", "write and delete the api and *.apps records in one change"},
	{ControlPlaneOperator, "dns.managedZones.create", "create the <name>.hypershift.local. private zone"},
	{ControlPlaneOperator, "dns.managedZones.delete", "delete the zone hcplink created (never another)"},
	{ControlPlaneOperator, "dns.managedZones.get", "read the zone, its labels and its network"},
	{ControlPlaneOperator, "dns.managedZones.update", "bind the zone hcplink created to the customer's network again when its visibility was changed behind hcplink's back"},
	{ControlPlaneOperator, "dns.networks.bindPrivateDNSZone", "make the private zone visible to the customer's VPC network"},
	{ControlPlaneOperator, "dns.resourceRecordSets.create", "add the api and *.apps A records (a change's additions)"},
	{ControlPlaneOperator, "dns.resourceRecordSets.delete", "replace or remove the A records (a change's deletions)"},
	{ControlPlaneOperator, "dns.resourceRecordSets.list", "compare the records before writing (no blind writes)"},

	{Diagnose, "compute.addresses.get", "show the endpoint's reserved address and whether it is in use"},
	{Diagnose, "compute.forwardingRules.get", "read the router's forwarding rule (management) and the PSC endpoint with its connection status (customer)"},
	{Diagnose, "compute.serviceAttachments.get", "read the attachment's target, accept list and connected endpoints"},
	{Diagnose, "dns.managedZones.get", "read the private zone and the networks it is visible to"},
	{Diagnose, "dns.resourceRecordSets.list", "compare the api and *.apps records with the endpoint's address"},

	{ManagementOperator, "compute.forwardingRules.list", "find the router's internal forwarding rule by its IP"},
	{ManagementOperator, "compute.forwardingRules.use", "publish the router's forwarding rule through the service attachment"},
	{ManagementOperator, "compute.regionOperations.get", "wait on the attachment and NAT subnetwork operations"},
	{ManagementOperator, "compute.serviceAttachments.create", "create the service attachment in front of the router's forwarding rule"},
	{ManagementOperator, "compute.serviceAttachments.delete", "delete the service attachment at deletion"},
	{ManagementOperator, "compute.serviceAttachments.get", "read the attachment's accept list, fingerprint and connections"},
	{ManagementOperator, "compute.serviceAttachments.list", "find this management cluster's attachments, and which NAT subnetworks are taken"},
	{ManagementOperator, "compute.serviceAttachments.update", "follow the accept list (additional projects) and reject foreign consumers"},
	{ManagementOperator, "compute.subnetworks.list", "find the management network's Private Service Connect NAT subnetworks"},
	{ManagementOperator, "compute.subnetworks.use", "give a NAT subnetwork to the service attachment"},
}

// CustomRoleCaveat is a permission of a custom role whose custom-role
// support level (IAM's Permission.customRolesSupportLevel: SUPPORTED,
// TESTING or NOT_SUPPORTED; https://cloud.google.com/iam/docs/custom-roles-permissions-support)
// hcplink could not read from Google's list: what shows it is accepted in
// custom roles, and the predefined role to bind instead, at the narrowest
// scope, should IAM refuse it in a custom role ("Permission … is not
// valid" when the role is created).
type CustomRoleCaveat struct {
	Component  Component
	Permission string
	// Seen is where the permission is used in custom roles in production.
	Seen string
	// Instead is the predefined role and where to bind it.
	Instead string
}

// CustomRoleCaveats are the permissions of the roles above whose custom-role
// support is taken from their use elsewhere, not from Google's list. The
// roles named instead hold them (https://cloud.google.com/iam/docs/roles-permissions/compute,
// https://cloud.google.com/iam/docs/roles-permissions/dns); each is wider
// than the one permission, so it is the fallback, not the default.
var CustomRoleCaveats = []CustomRoleCaveat{
	{ControlPlaneOperator, "compute.forwardingRules.pscCreate",
		"custom roles of PSC consumers in public deployments; Google's own PSC pages list it as a permission to grant, not only through roles/compute.networkAdmin",
		"roles/compute.networkAdmin on the customer's project, granted to the control-plane operator's service account"},
	{ControlPlaneOperator, "compute.forwardingRules.pscDelete",
		"the pair of pscCreate, in the same custom roles",
		"roles/compute.networkAdmin on the customer's project, granted to the control-plane operator's service account"},
	{ControlPlaneOperator, "dns.networks.bindPrivateDNSZone",
		"OpenShift's documented custom roles for installer-provisioned GCP clusters, and Red Hat OpenShift Dedicated's workload identity templates",
		"roles/dns.admin on the customer's project, granted to the control-plane operator's service account"},
	{ManagementOperator, "compute.forwardingRules.use",
		"Red Hat OpenShift Dedicated's workload identity templates (its deployer's custom role, beside compute.serviceAttachments.create)",
		"roles/compute.networkAdmin on the management project, granted to the management operator's service account"},
}

// CaveatOf is the caveat of a component's permission, if it has one.
func CaveatOf(c Component, permission string) (CustomRoleCaveat, bool) {
	for _, cv := range CustomRoleCaveats {
		if cv.Component == c && cv.Permission == permission {
			return cv, true
		}
	}
	return CustomRoleCaveat{}, false
}

// SignInRole is the predefined role a Kubernetes ServiceAccount's federated
// principal needs on the control-plane operator's Google service account to
// impersonate it (iam.serviceAccounts.getAccessToken), granted on the
// service account rather than in the custom role.
const SignInRole = "roles/iam.workloadIdentityUser"

// PermissionsOf lists, sorted, the permissions of one component.
func PermissionsOf(c Component) []string {
	var out []string
	for _, p := range Permissions {
		if p.Component == c {
			out = append(out, p.Permission)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CustomRole is a custom role as gcloud iam roles create --file takes it
// (JSON is YAML).
type CustomRole struct {
	Title               string   `json:"title"`
	Description         string   `json:"description"`
	Stage               string   `json:"stage"`
	IncludedPermissions []string `json:"includedPermissions"`
}

// RoleID is the custom role's ID of a component (letters only, as IAM
// allows letters, digits, "_" and ".").
func RoleID(c Component) string {
	switch c {
	case ManagementOperator:
		return "hcplinkManagementOperator"
	case Diagnose:
		return "hcplinkDiagnose"
	}
	return "hcplinkControlPlaneOperator"
}

// Role is the custom role of a component.
func Role(c Component) CustomRole {
	return CustomRole{
		Title:               "hcplink " + string(c),
		Description:         "What hcplink's " + string(c) + " calls, and nothing else.",
		Stage:               "GA",
		IncludedPermissions: PermissionsOf(c),
	}
}

// JSON renders the role as indented JSON.
func (r CustomRole) JSON() string {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // a fixed structure of strings always marshals
	}
	return string(b)
}
