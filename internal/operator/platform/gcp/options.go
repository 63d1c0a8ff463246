package gcp

import (
	"context"
	"fmt"
	"os"
	"strings"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// metricsComponent is the component label of the operator's GCP calls.
const metricsComponent = "operator"

// Options are the operator's own GCP options, given at install (the
// operator's --gcp-* flags).
type Options struct {
	// Project is the management project: where the router's forwarding
	// rules, the PSC NAT subnetworks and the service attachments are.
	Project string
	// Region is the management cluster's region: private GCP clusters
	// must be in it.
	Region string
	// Network is the management cluster's VPC network, by name or as
	// projects/<project>/global/networks/<name> (a Shared VPC's host
	// project). Only its rules and subnetworks are ever used.
	Network string
	// NATSubnets, when set, are the only PSC NAT subnetworks of Network the
	// fleet may take (names); empty: every subnetwork of purpose
	// PRIVATE_SERVICE_CONNECT in Network and Region.
	NATSubnets []string
	// Cloud is the sign-in (a service account key file, an
	// external_account configuration, or Application Default Credentials
	// when empty) and the endpoints; its zero value reads them from the
	// environment (gcpcloud.ConfigFromEnv).
	Cloud gcpcloud.Config
	// Timeouts bound each Google Cloud call; zero: the defaults.
	Timeouts gcpcloud.Timeouts
}

// check refuses a GCP operator without its management project, region
// or network.
func check(o Options) error {
	var missing []string
	for _, f := range []struct{ flag, value string }{{"--gcp-project", o.Project}, {"--gcp-region", o.Region}, {"--gcp-network", o.Network}} {
		if f.value == "" {
			missing = append(missing, f.flag)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the GCP private platform needs the management project, region and network: %s not set", strings.Join(missing, ", "))
	}
	return nil
}

// loadOptions checks the operator's GCP options and completes them: the
// network's full name, the environment's sign-in.
func loadOptions(o Options) (Options, error) {
	if err := check(o); err != nil {
		return Options{}, err
	}
	if !strings.Contains(o.Network, "/") {
		o.Network = "projects/" + o.Project + "/global/networks/" + o.Network
	}
	if o.Cloud.CredentialsJSON == nil && o.Cloud.Tokens == nil && o.Cloud.ComputeEndpoint == "" {
		env, err := gcpcloud.ConfigFromEnv(os.Getenv)
		if err != nil {
			return Options{}, err
		}
		env.Transport = o.Cloud.Transport
		o.Cloud = env
	}
	o.Cloud.Component = metricsComponent
	return o, nil
}

// TokenCaller checks the management credentials by asking for a token:
// no Compute Engine call, and a refusal (a revoked key, a federation that
// does not match) is access denied.
func TokenCaller(clients *gcpcloud.Clients, project string) platform.IdentityCaller {
	return func(ctx context.Context) (string, error) {
		if _, err := clients.Tokens.Token(); err != nil {
			return "", gcpcloud.Wrap("getting a Google Cloud token", err)
		}
		return "the operator's Google Cloud identity in project " + project, nil
	}
}
