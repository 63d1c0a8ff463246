package gcp

import (
	"context"
	"fmt"
	"os"
	"regexp"
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

// Formats of the operator's GCP options: a project ID is 6 to 30
// lowercase letters, digits and hyphens, starting with a letter and not
// ending with a hyphen
// (https://cloud.google.com/resource-manager/docs/creating-managing-projects);
// a region is <area>-<direction><number> such as us-central1
// (https://cloud.google.com/compute/docs/regions-zones); networks and
// subnetworks are RFC 1035 names (gcpcloud.ValidName).
var (
	projectPattern = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
	regionPattern  = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+$`)
	// networkPathPattern is a network of another (Shared VPC host)
	// project: projects/<project>/global/networks/<name>.
	networkPathPattern = regexp.MustCompile(`^projects/([^/]+)/global/networks/([^/]+)$`)
)

// check refuses a GCP operator without its management project, region
// or network, or with one Google would refuse, before anything starts.
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
	if !projectPattern.MatchString(o.Project) {
		return fmt.Errorf("--gcp-project %q is not a GCP project ID: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen", o.Project)
	}
	if !regionPattern.MatchString(o.Region) {
		return fmt.Errorf("--gcp-region %q is not a GCP region such as us-central1", o.Region)
	}
	if err := checkNetwork(o.Network); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, n := range o.NATSubnets {
		if err := gcpcloud.ValidName(n); err != nil {
			return fmt.Errorf("--gcp-nat-subnets: %w", err)
		}
		if seen[n] {
			return fmt.Errorf("--gcp-nat-subnets: %q is named twice", n)
		}
		seen[n] = true
	}
	if len(o.Cloud.CredentialsJSON) > 0 {
		if err := gcpcloud.CheckCredentials(o.Cloud.CredentialsJSON); err != nil {
			return err
		}
	}
	return nil
}

// checkNetwork accepts a network name, or a Shared VPC host project's
// network by its path.
func checkNetwork(network string) error {
	name := network
	if m := networkPathPattern.FindStringSubmatch(network); m != nil {
		if !projectPattern.MatchString(m[1]) {
			return fmt.Errorf("--gcp-network %q: %q is not a GCP project ID", network, m[1])
		}
		name = m[2]
	} else if strings.Contains(network, "/") {
		return fmt.Errorf("--gcp-network %q is neither a network name nor projects/<project>/global/networks/<name>", network)
	}
	if err := gcpcloud.ValidName(name); err != nil {
		return fmt.Errorf("--gcp-network: %w", err)
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
