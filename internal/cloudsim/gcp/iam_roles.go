package gcp

import (
	"fmt"
	"slices"
	"strings"
)

// Role is a set of permissions; custom roles are "projects/{p}/roles/{id}"
// (https://cloud.google.com/iam/docs/reference/rest/v1/organizations.roles#Role).
// A deleted custom role grants nothing but keeps its ID until it is
// undeleted (iam_admin_roles.go).
type Role struct {
	Name                string   `json:"name"`
	Title               string   `json:"title,omitempty"`
	Description         string   `json:"description,omitempty"`
	Stage               string   `json:"stage,omitempty"`
	IncludedPermissions []string `json:"includedPermissions"`
	Etag                string   `json:"etag,omitempty"`
	Deleted             bool     `json:"deleted,omitempty"`
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
	"iam.roles.create", "iam.roles.delete", "iam.roles.get", "iam.roles.list", "iam.roles.undelete", "iam.roles.update",
	"iam.serviceAccounts.create", "iam.serviceAccounts.delete", "iam.serviceAccounts.get", "iam.serviceAccounts.getIamPolicy",
	"iam.serviceAccounts.list", "iam.serviceAccounts.setIamPolicy",
	"iam.serviceAccountKeys.create", "iam.serviceAccountKeys.delete", "iam.serviceAccountKeys.get", "iam.serviceAccountKeys.list",
	"iam.workloadIdentityPools.create", "iam.workloadIdentityPools.delete", "iam.workloadIdentityPools.get",
	"iam.workloadIdentityPools.list", "iam.workloadIdentityPools.undelete",
	"iam.workloadIdentityPoolProviders.create", "iam.workloadIdentityPoolProviders.delete", "iam.workloadIdentityPoolProviders.get",
	"iam.workloadIdentityPoolProviders.list", "iam.workloadIdentityPoolProviders.undelete",
	"resourcemanager.projects.get", "resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy",
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
	"roles/resourcemanager.projectIamAdmin": {"resourcemanager.projects.get", "resourcemanager.projects.getIamPolicy", "resourcemanager.projects.setIamPolicy"},
	// The administrators of IAM's own resources, as create iam gcp needs them.
	"roles/iam.roleAdmin":                 append(withPrefix("iam.roles."), "resourcemanager.projects.get"),
	"roles/iam.serviceAccountAdmin":       append(withPrefix("iam.serviceAccounts.", "create", "delete", ".get", "list", "IamPolicy"), "resourcemanager.projects.get"),
	"roles/iam.serviceAccountKeyAdmin":    append(withPrefix("iam.serviceAccountKeys."), "iam.serviceAccounts.get", "iam.serviceAccounts.list"),
	"roles/iam.workloadIdentityPoolAdmin": append(withPrefix("iam.workloadIdentityPool"), "resourcemanager.projects.get"),
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
	role := Role{Name: "projects/" + projectID + "/roles/" + id, IncludedPermissions: slices.Clone(included), Stage: "GA", Etag: c.etag()}
	c.st.customRoles[role.Name] = role
	return role, nil
}

func (c *Cloud) rolePermissions(role string) []string {
	if perms, ok := predefinedRoles[role]; ok {
		return perms
	}
	if r := c.st.customRoles[role]; !r.Deleted {
		return r.IncludedPermissions
	}
	return nil
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
