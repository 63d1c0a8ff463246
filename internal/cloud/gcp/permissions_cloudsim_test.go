package gcp_test

import (
	"slices"
	"testing"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// TestCustomRolesAreExactlyWhatTheProvidersUse runs every provider call
// of a cluster's life against cloudsim, each operator signed in as a
// principal holding exactly its custom role, and compares the permissions
// cloudsim's IAM evaluated for each principal with the role: none denied,
// none granted and never evaluated.
func TestCustomRolesAreExactlyWhatTheProvidersUse(t *testing.T) {
	w := newWorld(t)
	runLifecycle(w)
	for _, tc := range []struct {
		component gcpcloud.Component
		member    string
	}{
		{gcpcloud.ManagementOperator, w.mgmtSA},
		{gcpcloud.ControlPlaneOperator, w.cpoSA},
	} {
		evaluated := w.f.Server.GCP.Evaluations(tc.member)
		granted := gcpcloud.PermissionsOf(tc.component)
		for permission, d := range evaluated {
			if d.Denied > 0 {
				t.Errorf("%s was denied %s %d times: the custom role lacks it", tc.component, permission, d.Denied)
			}
			if !slices.Contains(granted, permission) && d.Allowed > 0 {
				t.Errorf("%s was allowed %s by a grant outside its custom role", tc.component, permission)
			}
		}
		for _, permission := range granted {
			if evaluated[permission].Allowed == 0 {
				t.Errorf("the custom role grants %s %s, which no provider call used", tc.component, permission)
			}
		}
	}
}

func TestPermissionsTableHasEachPermissionOnceWithAReason(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range gcpcloud.Permissions {
		key := string(p.Component) + " " + p.Permission
		if seen[key] {
			t.Errorf("%s is listed twice", key)
		}
		seen[key] = true
		if p.Why == "" {
			t.Errorf("%s says not why it is needed", key)
		}
	}
	for _, c := range []gcpcloud.Component{gcpcloud.ManagementOperator, gcpcloud.ControlPlaneOperator} {
		role := gcpcloud.Role(c)
		if !slices.IsSorted(role.IncludedPermissions) || !slices.Equal(role.IncludedPermissions, gcpcloud.PermissionsOf(c)) || role.Stage != "GA" {
			t.Errorf("role of %s: %+v", c, role)
		}
	}
}
