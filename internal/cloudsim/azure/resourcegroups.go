package azure

import (
	"net/http"
	"regexp"
	"time"
)

// Resource groups: the framework's worked example (see doc.go). Creating
// one is synchronous; deleting one is a long-running operation that ends
// by deleting every resource in the group, as ARM does.

const resourceGroupType = "Microsoft.Resources/resourceGroups"

// DelayResourceGroupDeleting is how long a resource group stays Deleting.
const DelayResourceGroupDeleting = "resourceGroupDeleting"

// resourceGroupAPIVersions are every stable version of
// specification/resources/resource-manager/Microsoft.Resources/resources in
// github.com/Azure/azure-rest-api-specs from 2019-05-01 on (checked 2026-11).
var resourceGroupAPIVersions = []string{"2019-05-01", "2019-10-01", "2020-06-01", "2020-10-01", "2021-01-01", "2021-04-01", "2022-09-01", "2023-07-01", "2024-03-01", "2024-07-01", "2024-11-01", "2025-03-01", "2025-04-01"}

func init() {
	RegisterDelay(DelayResourceGroupDeleting, 200*time.Millisecond, 60*time.Second)
	Register(TypeSpec{
		Type:                   resourceGroupType,
		APIVersions:            resourceGroupAPIVersions,
		AuthorizationType:      "Microsoft.Resources/subscriptions/resourceGroups",
		RequiresLocation:       true,
		DeleteWithLocationOnly: true,
		Put:                    putResourceGroup,
		Delete:                 deleteResourceGroup,
		Render:                 renderResourceGroup,
	})
}

// resourceGroupName is ARM's rule: 1-90 characters of letters, digits,
// underscores, parentheses, hyphens and periods, not ending in a period.
var resourceGroupName = regexp.MustCompile(`^[-\w._()]{0,89}[-\w_()]$`)

// resourceGroupProperties are the group's properties beyond provisioningState.
type resourceGroupProperties struct{}

func putResourceGroup(req *Request, existing *Resource) (*Reply, *Error) {
	if !resourceGroupName.MatchString(req.ID.ResourceGroup) {
		return nil, BadRequest("InvalidResourceGroup", "The provided resource group name '%s' has these invalid characters: '%s'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.", req.ID.ResourceGroup, req.ID.ResourceGroup)
	}
	if existing != nil && existing.ProvisioningState == "Deleting" {
		return nil, Conflict("ResourceGroupBeingDeleted", "The resource group '%s' is in deprovisioning state and cannot perform this operation.", req.ID.ResourceGroup)
	}
	env, err := req.Envelope(nil)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		if NormalizeLocation(env.Location) != existing.Location {
			return nil, Conflict("InvalidResourceGroupLocation", "Invalid resource group location '%s'. The Resource group already exists in location '%s'.", NormalizeLocation(env.Location), existing.Location)
		}
		existing.Tags = env.Tags
		return &Reply{Resource: existing}, nil
	}
	return &Reply{Resource: req.NewResource(env, &resourceGroupProperties{})}, nil
}

// deleteResourceGroup marks the group Deleting; when the delay is over the
// framework removes it and, beneath it, every resource it holds.
func deleteResourceGroup(req *Request, r *Resource) (*Reply, *Error) {
	if r.ProvisioningState == "Deleting" && r.Operation != nil {
		// A second DELETE while deleting is accepted and tracks the same operation.
		return &Reply{Status: http.StatusAccepted, Transition: &Transition{State: "Deleting", Duration: r.Operation.End.Sub(req.Now)}}, nil
	}
	return &Reply{Transition: &Transition{State: "Deleting", Duration: req.Delay(DelayResourceGroupDeleting)}}, nil
}

// renderResourceGroup drops the etag ARM does not report on groups.
func renderResourceGroup(_ *Resource, wire map[string]any) {
	delete(wire, "etag")
}
