// Package intervals holds the production period of every periodic job the
// two operators run — drift checks, sweeps, credentials checks — each
// written once with its reason, for the operators that run the jobs and
// the bench that counts what they cost.
package intervals

import "time"

// Sweeps: each lists the resources hcplink tags and removes orphans.
const (
	// AWSEndpointServiceSweep is the management operator's sweep of
	// endpoint services: orphans are rare (a lost object, a forced
	// finalizer); looking twice an hour is plenty.
	AWSEndpointServiceSweep = 30 * time.Minute
	// AWSEndpointSweep is the control-plane operator's sweep of VPC
	// endpoints and security groups: orphans are rare (a lost CR, a crash
	// in deletion), and the cluster's deletion sweeps its account in any
	// case; a sweep every two hours costs two Describe calls, one per
	// cluster-hour.
	AWSEndpointSweep = 2 * time.Hour
)

// Credentials checks: each asks the cloud whether the credentials still
// work, so that a revoked role or key is reported.
const (
	// ControlPlaneCredentialsRecheck is how often the control-plane
	// operator checks valid credentials again: they rarely go bad; a role
	// whose trust policy changes is noticed within this time.
	ControlPlaneCredentialsRecheck = 5 * time.Minute
	// CredentialsProofWindow: a successful call this recent vouches for the
	// control-plane operator's credentials, so its check makes none of its
	// own. Longer than AWSDrift (and its jitter), so that at steady state
	// the drift checks keep the credentials proven; a role that goes bad is
	// reported within this window plus one recheck.
	CredentialsProofWindow = 15 * time.Minute
	// OperatorCredentialsRecheck is how often the management operator
	// checks its valid credentials again, so that its gauge notices revoked
	// or expired ones.
	OperatorCredentialsRecheck = 30 * time.Minute
)

// EndpointReportTrust is how long after its own last read of its endpoint
// a control-plane operator takes the management operator's report of the
// endpoint's connection (listed with the fleet's services every drift
// check) instead of reading the endpoint, on Azure and GCP: were the
// operator stopped, its last report would stand for ever, so the endpoint
// is read at least this often — one read an hour, 1/12 of a call per
// 5-minute drift check.
const EndpointReportTrust = time.Hour
