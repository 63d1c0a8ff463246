package gcpiam

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	iam "google.golang.org/api/iam/v1"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// ensureRole makes the component's custom role in project, exactly its
// permissions table: made, undeleted, or patched back to the table when it
// is hcplink's and differs. A role of that ID hcplink did not make is
// refused, never changed.
func ensureRole(ctx context.Context, c Clients, log io.Writer, project string, component gcpcloud.Component) (string, error) {
	name := "projects/" + project + "/roles/" + gcpcloud.RoleID(component)
	want := gcpcloud.Role(component)
	want.Description = madeBy + ": " + want.Description
	got, err := c.IAM.Projects.Roles.Get(name).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		_, err = c.IAM.Projects.Roles.Create("projects/"+project, &iam.CreateRoleRequest{RoleId: gcpcloud.RoleID(component), Role: &iam.Role{
			Title: want.Title, Description: want.Description, Stage: want.Stage, IncludedPermissions: want.IncludedPermissions}}).Context(ctx).Do()
		if err != nil {
			return "", withFallbacks(component, gcpcloud.Wrap("creating the custom role "+name, err))
		}
		logf(log, "custom role %s: created", name)
		return name, nil
	case err != nil:
		return "", gcpcloud.Wrap("reading the custom role "+name, err)
	case !strings.HasPrefix(got.Description, madeBy):
		return "", fmt.Errorf("the custom role %s exists and hcplink did not make it (its description does not start %q): delete it or grant its permissions yourself", name, madeBy)
	}
	if got.Deleted {
		if got, err = c.IAM.Projects.Roles.Undelete(name, &iam.UndeleteRoleRequest{Etag: got.Etag}).Context(ctx).Do(); err != nil {
			return "", gcpcloud.Wrap("undeleting the custom role "+name, err)
		}
		logf(log, "custom role %s: undeleted", name)
	}
	have := slices.Sorted(slices.Values(got.IncludedPermissions))
	if slices.Equal(have, want.IncludedPermissions) && got.Stage == want.Stage {
		logf(log, "custom role %s: exists", name)
		return name, nil
	}
	_, err = c.IAM.Projects.Roles.Patch(name, &iam.Role{Etag: got.Etag, IncludedPermissions: want.IncludedPermissions, Stage: want.Stage}).
		UpdateMask("includedPermissions,stage").Context(ctx).Do()
	if err != nil {
		return "", withFallbacks(component, gcpcloud.Wrap("updating the custom role "+name, err))
	}
	logf(log, "custom role %s: permissions set to the table", name)
	return name, nil
}

// withFallbacks adds to IAM's refusal of the component's custom role, when
// it refused the role's content (invalid input), the predefined role to
// bind instead for each permission whose custom-role support hcplink could
// not read from Google's list (gcpcloud.CustomRoleCaveats): IAM refuses a
// permission whose support level is NOT_SUPPORTED in any custom role.
func withFallbacks(component gcpcloud.Component, err error) error {
	if cloud.ClassOf(err) != cloud.ClassInvalidInput {
		return err
	}
	var instead []string
	for _, cv := range gcpcloud.CustomRoleCaveats {
		if cv.Component == component {
			instead = append(instead, cv.Permission+": "+cv.Instead)
		}
	}
	if len(instead) == 0 {
		return err
	}
	return fmt.Errorf("%w\nIf IAM refused one of these permissions in a custom role (its custom-role support level is NOT_SUPPORTED), "+
		"make the role without it with your own tooling (hcplink permissions gcp prints it) and bind instead:\n  %s",
		err, strings.Join(instead, "\n  "))
}

// deleteRole deletes the component's custom role when hcplink made it.
func deleteRole(ctx context.Context, c Clients, log io.Writer, project string, component gcpcloud.Component) error {
	name := "projects/" + project + "/roles/" + gcpcloud.RoleID(component)
	got, err := c.IAM.Projects.Roles.Get(name).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		return nil
	case err != nil:
		return gcpcloud.Wrap("reading the custom role "+name, err)
	case got.Deleted:
		return nil
	case !strings.HasPrefix(got.Description, madeBy):
		logf(log, "custom role %s: left, hcplink did not make it", name)
		return nil
	}
	if _, err := c.IAM.Projects.Roles.Delete(name).Etag(got.Etag).Context(ctx).Do(); err != nil && !gcpcloud.IsNotFound(err) {
		return gcpcloud.Wrap("deleting the custom role "+name, err)
	}
	logf(log, "custom role %s: deleted", name)
	return nil
}
