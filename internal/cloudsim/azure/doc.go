// Package azure emulates the parts of Azure hcplink uses — Resource Manager
// (ARM) with its resource providers, and Entra ID — closely enough that the
// real azure-sdk-for-go clients (armresources, armnetwork, armprivatedns,
// armauthorization, azidentity) and the stock az CLI work against it
// unmodified. It is served by cloudsim on the same listener as the AWS half:
// paths under /subscriptions, /providers and /tenants are ARM; paths
// /{tenant}/oauth2/..., /{tenant}/v2.0/... and /{tenant}/discovery/... are
// Entra ID. Azure clients send bearer tokens only over HTTPS, so cloudsim
// must run with TLS (cloudsim.Options.TLS, `hcplink cloudsim --tls`).
//
// # What the framework does for every ARM request
//
// In order: route the path to a registered type (ids.go, route.go); require
// api-version and check it against the type's list (MissingApiVersionParameter,
// InvalidApiVersionParameter for Microsoft.Resources, NoRegisteredProviderFound
// for providers); authenticate the bearer token (identity_authn.go); apply
// the fault rules and latency of sim.Faults and ARM's token buckets
// (throttle.go: 429 with Retry-After); take the one mutex that guards all
// Azure state; complete every long-running operation whose time has come on
// the sim clock (lro.go); authorize the action string derived from type and
// method against role assignments (authz*.go: AuthorizationFailed); check
// that the resource group and parent resource exist (ResourceGroupNotFound,
// ParentResourceNotFound); run the type's handler or the default; write the
// answer with x-ms-request-id and x-ms-ratelimit-remaining-subscription-*
// headers, the ARM error envelope on failure (errors.go), nextLink paging
// for lists (paging.go), and the operation headers for long-running ones;
// and count the call per subscription and operation in sim.Counters
// (service "Microsoft.Network", operation "virtualNetworks/write").
//
// # How to add a resource type
//
// 1. Choose the type's full name with the provider's spelling and the
// api-versions the SDK sends (grep `api-version` in the SDK's *_client.go):
//
//	const typePrivateLinkService = "Microsoft.Network/privateLinkServices"
//
// 2. Define its properties as a Go struct whose JSON is the wire's
// "properties" object, minus provisioningState (the framework adds it).
// Child resources (subnets, privateEndpointConnections, record sets) are
// types of their own, "Microsoft.Network/virtualNetworks/subnets"; their IDs
// extend the parent's and the framework refuses them when the parent is
// missing.
//
// 3. Register it from an init function, with named delays for its
// long-running operations (fast for tests, realistic for demos):
//
//	func init() {
//		RegisterDelay("privateLinkServiceCreating", 300*time.Millisecond, 30*time.Second)
//		Register(TypeSpec{
//			Type:             typePrivateLinkService,
//			APIVersions:      []string{"2024-05-01"},
//			RequiresLocation: true,
//			Put:              putPrivateLinkService,
//			Delete:           deletePrivateLinkService,
//			Actions:          map[string]ResourceFunc{"someAction": doSomething},
//		})
//	}
//
// Handlers run under the cloud's lock with req.Store free to read and
// change; nothing else runs meanwhile, so rules across resources,
// subscriptions and types (a private endpoint against a service in another
// subscription, a subnet in use) are plain reads of the store.
//
// 4. Write the PUT handler. It decodes the envelope and properties, applies
// the type's rules, returns the resource to store, and for a long-running
// create a Transition:
//
//	func putPrivateLinkService(req *Request, existing *Resource) (*Reply, *Error) {
//		var props privateLinkServiceProperties
//		env, err := req.Envelope(&props)
//		if err != nil {
//			return nil, err
//		}
//		if err := req.AuthorizeLinked("Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action", frontendID); err != nil {
//			return nil, err // LinkedAuthorizationFailed
//		}
//		res := req.NewResource(env, &props)
//		return &Reply{Resource: res, Transition: &Transition{State: "Updating", Duration: req.Delay("privateLinkServiceCreating")}}, nil
//	}
//
// The framework stores the resource with a fresh ETag (If-Match and
// If-None-Match are checked before the handler runs), answers 201 for a
// create and 200 for a replace, and with a Transition sets
// provisioningState to State, answers with an Azure-AsyncOperation header,
// and when the delay has passed on the sim clock runs Transition.Done and
// sets Succeeded (or Failed, with Transition.Fail as the operation's error).
// Tests step a sim.ManualClock and call the SDK poller's Poll; they never sleep.
//
// 5. DELETE: with no Delete handler the resource and everything beneath it
// go at once (200; 204 when already absent). A Delete handler may refuse
// (e.g. Conflict("InUseSubnetCannotBeDeleted", ...)) or return a Transition:
// the framework answers 202 with Location and Azure-AsyncOperation, shows
// the State (Deleting), and removes the resource and its children when the
// delay has passed. Every type's Removed hook is told about each resource
// the store drops, directly or with its group, to forget references.
//
// 6. GET, LIST and PATCH have defaults (read the store; list the type
// beneath the parent with nextLink paging; replace tags). Override Get to
// compute fields, List to list across scopes, Patch for more than tags, and
// Render to adjust the wire form (extra top-level fields such as a record
// set's etag placement). POST actions are Actions, authorized as
// "{type}/{name}/action"; a Virtual type has no stored instances and serves
// actions on IDs alone (Microsoft.Network/locations/{loc}/...).
//
// 7. Errors: return *Error from the constructors in errors.go
// (ErrResourceNotFound, ErrInvalidResourceReference, BadRequest, Conflict,
// NewError) with the code the real service returns — look it up, never guess.
//
// 8. Test through the real SDK: cloudsimtest.StartAzure gives a TLS
// cloudsim, f.AzureClientOptions() the client options and
// f.AzureAdminCredential(t) (or f.AzureCredential(t, sp)) a real azidentity
// credential:
//
//	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clock})
//	client, _ := armnetwork.NewPrivateLinkServicesClient(cloudsimtest.ProviderSubscription, f.AzureAdminCredential(t), f.AzureClientOptions())
package azure
