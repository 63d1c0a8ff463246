package azure

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// TypeSpec registers one resource type with the framework. Only Type and
// APIVersions are required; a nil handler means the framework's default
// (GET reads the store, LIST lists the store, PATCH replaces tags, DELETE
// removes the resource and everything beneath it at once) or, for PUT, that
// the type cannot be created (405).
type TypeSpec struct {
	// Type is the full type with the provider's spelling:
	// "Microsoft.Network/virtualNetworks/subnets".
	Type string
	// APIVersions the type accepts; an empty list accepts any version.
	APIVersions []string
	// Scope says where instances live. The default, ResourceGroupScoped,
	// is every ordinary resource; SubscriptionScoped is for pseudo-types
	// such as Microsoft.Network/locations; ExtensionScoped for resources
	// that hang off any scope (Microsoft.Authorization/roleAssignments).
	Scope Scope
	// Location: whether PUT must name a location ("global" included).
	// Child resources have none.
	RequiresLocation bool
	// AuthorizationType overrides the type used in action strings, e.g.
	// resource groups authorize as Microsoft.Resources/subscriptions/resourceGroups.
	AuthorizationType string
	// NoProvisioningState leaves properties.provisioningState off the wire
	// (record sets have none).
	NoProvisioningState bool
	// PlainETag renders ETags as a bare GUID (Private DNS) instead of W/"guid" (Network).
	PlainETag bool
	// DeleteWithLocationOnly answers DELETE with Location alone (Microsoft.Resources);
	// otherwise both Location and Azure-AsyncOperation, as the network provider does.
	DeleteWithLocationOnly bool
	// OperationKinds, when set, serve the type's long-running operations
	// in the resource's group under the provider's own names
	// (Microsoft.Network/privateDnsOperationStatuses/{id} for
	// Azure-AsyncOperation, .../privateDnsOperationResults/{id} for
	// Location, both on every accepted request) instead of ARM's
	// locations/{loc}/operations/{id}.
	OperationKinds *OperationKinds

	Put    PutFunc      // create or replace
	Get    ResourceFunc // override the default read (e.g. to compute fields); r is nil only for Virtual types
	Patch  ResourceFunc // override the default tags update
	Delete ResourceFunc // override the default immediate removal
	// List overrides the default listing of the store beneath the parent.
	List func(req *Request, parent ID) ([]*Resource, *Error)
	// Actions are POST {id}/{name}; the action string is {type}/{name}/action.
	Actions map[string]ResourceFunc
	// Render adjusts a resource's wire form after the framework has built
	// the envelope (id, name, type, location, tags, etag, properties).
	Render func(r *Resource, wire map[string]any)
	// Removed is called for every resource of this type the store drops,
	// directly or because a parent or resource group was deleted, so that
	// other resources can forget references to it.
	Removed func(c *Cloud, r *Resource)
	// Virtual types need no stored instance: their actions (and Get, when
	// set) run against the ID alone, with a nil resource when none is
	// stored (Microsoft.Network/locations/{loc}/checkPrivateLinkServiceVisibility,
	// built-in role definitions).
	Virtual bool
}

// OperationKinds name a provider's operation status and result
// collections, as its Azure-AsyncOperation and Location URLs spell them.
type OperationKinds struct {
	Status, Result string
}

// Scope says where a type's instances live.
type Scope int

const (
	ResourceGroupScoped Scope = iota
	SubscriptionScoped
	ExtensionScoped
)

// PutFunc creates or replaces a resource. existing is nil on create. It
// returns the resource to store (usually a new *Resource built from the
// request, or existing updated in place) and, for a long-running
// operation, a Transition.
type PutFunc func(req *Request, existing *Resource) (*Reply, *Error)

// ResourceFunc handles a request about one stored resource (nil for a
// Virtual type).
type ResourceFunc func(req *Request, r *Resource) (*Reply, *Error)

// Reply is what a handler hands back to the framework.
type Reply struct {
	// Status overrides the framework's choice (PUT: 201 created / 200
	// replaced; DELETE: 200, or 202 with a Transition; POST: 200, or 202
	// with a Transition).
	Status int
	// Resource is stored (PUT) and rendered as the body.
	Resource *Resource
	// Body is rendered instead of Resource when set (POST actions).
	Body any
	// Transition makes the request a long-running operation.
	Transition *Transition
}

// Transition is a long-running operation on a resource: the resource shows
// State (Updating, Deleting) for Duration on the sim clock, then the
// framework runs Done under the lock and sets provisioningState to
// Succeeded, or to Failed with Fail as the operation's error. A delete
// transition (Remove) drops the resource when it completes.
type Transition struct {
	State    string
	Duration time.Duration
	Fail     *Error
	Remove   bool
	Done     func(c *Cloud, now time.Time)
	// Result is what the operation's Location URL answers once a POST
	// action succeeds (nil: 204 No Content).
	Result any
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*TypeSpec{} // lower-cased type → spec
)

// Register adds a resource type. It panics on a duplicate, which is a
// programming error found by any test.
func Register(spec TypeSpec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	key := strings.ToLower(spec.Type)
	if _, dup := registry[key]; dup {
		panic(fmt.Sprintf("azure: type %s registered twice", spec.Type))
	}
	s := spec
	registry[key] = &s
}

func lookupType(typ string) *TypeSpec {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[strings.ToLower(typ)]
}

// actionType is the type as action strings name it.
func (s *TypeSpec) actionType() string {
	if s.AuthorizationType != "" {
		return s.AuthorizationType
	}
	return s.Type
}

func (s *TypeSpec) namespace() string { return s.Type[:strings.Index(s.Type, "/")] }

func (s *TypeSpec) acceptsVersion(v string) bool {
	if len(s.APIVersions) == 0 {
		return true
	}
	for _, a := range s.APIVersions {
		if a == v {
			return true
		}
	}
	return false
}
