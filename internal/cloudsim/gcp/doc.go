// Package gcp emulates the parts of Google Cloud hcplink uses — Compute
// Engine's VPC networks, subnetworks, internal addresses, forwarding rules
// and Private Service Connect service attachments; Cloud DNS managed zones,
// record sets and changes; Security Token Service's token exchange and IAM
// Credentials' generateAccessToken (workload identity federation); project
// IAM policies — closely enough that the real Google API clients for Go
// (google.golang.org/api/compute/v1, dns/v1, golang.org/x/oauth2/google's
// external account credentials) and the stock gcloud CLI work against it
// unmodified. It is served by cloudsim on the same listener as the AWS and
// Azure halves, each API under the path its real host serves it at:
// /compute/v1/, /dns/v1/, and /sts/v1/, /iamcredentials/v1/,
// /cloudresourcemanager/v1/, /oauth2/ for the APIs served at the root of
// their own hosts (the last is the token endpoint of service account keys,
// identity_oauth2.go). Google's clients accept plain HTTP endpoints.
//
// The wire shapes are the discovery-generated structs of
// google.golang.org/api (compute.ServiceAttachment, dns.Change, ...): the
// JSON names and encodings (ids as strings) are then Google's by
// construction.
//
// # What the framework does for every request (protocol.go)
//
// In order: read the body; authenticate the bearer token (opaque tokens
// cloudsim issued: the administrator's AdminToken, STS's and IAM
// Credentials'; 401 otherwise); apply sim.Faults' latency and error rules
// (the rule's code is the error's reason); take the rate quota (quota.go:
// Compute Engine per project, 403 rateLimitExceeded; Cloud DNS per user,
// 429); take the one mutex that guards all GCP state; complete every
// operation whose time has come on the sim clock (operations.go); resolve
// the path's project (404); check the method's permission on the resource
// the path names, recording the decision per principal (iam_eval.go: 403
// "Required '<permission>' permission for '<resource>'"); run the handler;
// count the call per project and per principal; write JSON or Google's
// error envelope (errors.go). Lists page with maxResults and pageToken and
// filter with Compute Engine's filter expressions (paging.go, filter.go).
//
// # Operations
//
// Compute Engine mutations answer an Operation that is PENDING, RUNNING,
// then DONE after Delays.Operation on the sim clock; get and wait are
// served. An insert stores its resource at once but hidden until DONE
// (its name and IP address are taken meanwhile); a delete or patch changes
// the store when DONE. Tests step a sim.ManualClock instead of sleeping.
// Cloud DNS has no operations: zones are made at once, changes apply
// atomically and read "pending" until Delays.DNSChange has passed.
//
// # How to add a method
//
// 1. Look up its path, method ID and permission (the generated client's
// ResolveRelative call and Google's REST reference).
//
// 2. Register it with the permission the framework checks on the path's
// resource:
//
//	c.handle(mux, "GET /compute/v1/projects/{project}/regions/{region}/serviceAttachments/{name}",
//		computeAPI("serviceAttachments.get", "compute.serviceAttachments.get"), getServiceAttachment)
//
// 3. Write the handler; it runs under the lock with x.c.st free to read and
// change. Permissions on referenced resources are checked with
// x.require("compute.subnetworks.use", key); mutations return
// x.startOperation(region, mutation{...}). Return errors from errors.go with
// the reason Google documents — look it up, never guess.
//
// 4. Test through the real client: cloudsimtest.StartGCP, f.Compute(t,
// tokens), f.DNS(t, tokens), f.ExternalAccountTokens(t, w, token).
package gcp
