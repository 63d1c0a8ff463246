package gcp

import (
	"fmt"
	"slices"
	"strings"
)

// Role is a set of permissions; custom roles are "projects/{p}/roles/{id}".
type Role struct {
	Name                string   `json:"name"`
	IncludedPermissions []string `json:"includedPermissions"`
}

// permissions lists every permission cloudsim checks. Predefined roles
// below hold the subset of their real permissions
// (https://cloud.google.com/iam/docs/understanding-roles) that these are;
// a custom role may name only these.
var permissions = []string{
	"compute.networks.create", "compute.networks.delete", "compute.networks.get", "compute.networks.list", "compute.networks.use",
	"compute.subnetworks.create", "compute.subnetworks.delete", "compute.subnetworks.get", "compute.subnetworks.list",
	"compute.subnetworks.update", "compute.subnetworks.use",
	"compute.addresses.create", "compute.addresses.delete", "compute.addresses.get", "compute.addresses.list", "compute.addresses.setLabels", "compute.addresses.use",
	"compute.forwardingRules.create", "compute.forwardingRules.delete", "compute.forwardingRules.get", "compute.forwardingRules.list",
	"compute.forwardingRules.setLabels", "compute.forwardingRules.use", "compute.forwardingRules.pscCreate", "compute.forwardingRules.pscDelete",
	"compute.serviceAttachments.create", "compute.serviceAttachments.delete", "compute.serviceAttachments.get",
	"compute.serviceAttachments.list", "compute.serviceAttachments.update",
	"compute.regionOperations.get", "compute.regionOperations.list", "compute.globalOperations.get", "compute.globalOperations.list",
	"dns.managedZones.create", "dns.managedZones.delete", "dns.managedZones.get", "dns.managedZones.list", "dns.managedZones.update",
	"dns.changes.create", "dns.changes.get", "dns.changes.list",
	"dns.resourceRecordSets.create", "dns.resourceRecordSets.delete", "dns.resourceRecordSets.get",
	"dns.resourceRecordSets.list", "dns.resourceRecordSets.update", "dns.networks.bindPrivateDNSZone",
	"iam.serviceAccounts.getAccessToken",
	"resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy",
}

func withPrefix(prefix string, suffixes ...string) []string {
	var out []string
	for _, p := range permissions {
		if strings.HasPrefix(p, prefix) && (len(suffixes) == 0 || slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(p, s) })) {
			out = append(out, p)
		}
	}
	return out
}

var predefinedRoles = map[string][]string{
	"roles/owner":                           permissions,
	"roles/viewer":                          append(withPrefix("", ".get", ".list"), "resourcemanager.projects.getIamPolicy"),
	"roles/compute.networkAdmin":            withPrefix("compute."),
	"roles/compute.networkViewer":           withPrefix("compute.", ".get", ".list"),
	"roles/compute.networkUser":             {"compute.networks.get", "compute.networks.list", "compute.networks.use", "compute.subnetworks.get", "compute.subnetworks.list", "compute.subnetworks.use"},
	"roles/dns.admin":                       withPrefix("dns."),
	"roles/dns.reader":                      withPrefix("dns.", ".get", ".list"),
	"roles/iam.workloadIdentityUser":        {"iam.serviceAccounts.getAccessToken"},
	"roles/iam.serviceAccountTokenCreator":  {"iam.serviceAccounts.getAccessToken"},
	"roles/resourcemanager.projectIamAdmin": {"resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy"},
}

// AddCustomRole creates projects/{project}/roles/{id}; every permission
// must be one cloudsim knows, as IAM refuses unknown ones.
func (c *Cloud) AddCustomRole(projectID, id string, included []string) (Role, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.projects[projectID] == nil {
		return Role{}, fmt.Errorf("no project %s", projectID)
	}
	for _, p := range included {
		if !slices.Contains(permissions, p) {
			return Role{}, fmt.Errorf("permission %s is not valid (or not modelled by cloudsim)", p)
		}
	}
	role := Role{Name: "projects/" + projectID + "/roles/" + id, IncludedPermissions: slices.Clone(included)}
	c.st.customRoles[role.Name] = role
	return role, nil
}

func (c *Cloud) rolePermissions(role string) []string {
	if perms, ok := predefinedRoles[role]; ok {
		return perms
	}
	return c.st.customRoles[role].IncludedPermissions
}

func (c *Cloud) checkRole(role string) error {
	if _, ok := predefinedRoles[role]; ok {
		return nil
	}
	if _, ok := c.st.customRoles[role]; ok {
		return nil
	}
	return fmt.Errorf("role %s does not exist (or is not modelled by cloudsim)", role)
}
