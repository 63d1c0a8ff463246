// Package install renders and applies what a management cluster needs to
// run the hcplink management operator: the CRDs, its namespace, identity,
// RBAC, Deployment, disruption budget, metrics Service and the private
// platform's credentials. The same objects are rendered as YAML (one file
// each, with a kustomization) and applied with server-side apply, so what
// a user reviews is exactly what gets applied.
package install

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hcplink/hcplink/internal/operator"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/version"
)

const (
	// DefaultNamespace is where the operator runs.
	DefaultNamespace = "hcplink"
	// DefaultReplicas is two so that a node drain or a rollout never
	// leaves the management cluster without an operator for long; leader
	// election keeps one active.
	DefaultReplicas = 2
	// defaultImageRepository is the name the Dockerfile's image is built
	// under (docker build -t hcplink:<version> .).
	defaultImageRepository = "hcplink"
)

// DefaultImage is the operator image when none is given: the one the
// repository's Dockerfile builds for this version.
func DefaultImage() string { return defaultImageRepository + ":" + version.Version }

// Options is everything install renders from.
type Options struct {
	// Namespace of the operator (DefaultNamespace when empty).
	Namespace string
	// Image runs the management operator; ControlPlaneOperatorImage runs
	// each cluster's control-plane operator (Image when empty: one image
	// serves both).
	Image, ControlPlaneOperatorImage string
	// Replicas of the operator Deployment (DefaultReplicas when zero).
	Replicas int32
	// ManagementClusterID is passed through when set (the operator
	// otherwise uses the kube-system namespace's UID).
	ManagementClusterID string
	// PrivatePlatform is AWS, Azure, GCP or None (None when empty).
	PrivatePlatform string
	AWS             AWSCredentials
	Azure           AzureCredentials
	GCP             GCPCredentials
	// Monitoring adds the alerting rules (a PrometheusRule, for the
	// Prometheus Operator) and the Grafana dashboard (a ConfigMap).
	Monitoring bool
}

// AWSCredentials are the management operator's AWS identity: exactly one
// of a shared credentials file's content, an existing Secret holding one,
// or a role assumed with the pod's service-account token.
type AWSCredentials struct {
	Region string
	// CredentialsFile is a shared credentials file's content; install
	// stores it in a Secret of its own.
	CredentialsFile []byte
	// SecretName is an existing Secret in the operator's namespace with
	// the file under the key "credentials".
	SecretName string
	// RoleARN is assumed through STS web identity.
	RoleARN string
}

// AzureCredentials are the management operator's Azure identity: exactly
// one of a service principal's credentials file, an existing Secret with
// the AZURE_* variables, or a workload identity's client ID.
type AzureCredentials struct {
	// CredentialsFile is the content of a JSON or YAML file with
	// subscriptionId, tenantId, clientId and clientSecret.
	CredentialsFile []byte
	// SecretName is an existing Secret in the operator's namespace whose
	// keys are the AZURE_* variables (AZURE_CLIENT_ID, AZURE_TENANT_ID,
	// AZURE_CLIENT_SECRET, AZURE_SUBSCRIPTION_ID).
	SecretName string
	// WorkloadIdentityClientID and TenantID name the identity federated
	// with the operator's ServiceAccount.
	WorkloadIdentityClientID, TenantID string
	// SubscriptionID is the management subscription (required with a
	// workload identity; overrides the file's or Secret's otherwise).
	SubscriptionID string
	// PLSResourceGroup is the management cluster's resource group, where
	// the operator looks for its internal load balancers (the operator's
	// --azure-pls-resource-group); empty: the operator reads it from a
	// Node's spec.providerID.
	PLSResourceGroup string
	// VNetID is the management cluster's VNet (the operator's
	// --azure-vnet-id); empty: any VNet of the resource group.
	VNetID string
	// LoadBalancerConfigurations are the cloud provider's load-balancer
	// configurations the operator places routers on (the operator's
	// --azure-load-balancer-configurations); none: the cloud provider's
	// own placement.
	LoadBalancerConfigurations []string
}

// GCPCredentials are the management operator's GCP place and identity:
// the management project, region and network (with the PSC NAT
// subnetworks it may take), and exactly one of a service account key
// file, an existing Secret holding one, or a Google service account the
// operator's ServiceAccount is bound to by GKE workload identity.
type GCPCredentials struct {
	Project, Region, Network string
	NATSubnets               []string
	// KeyFile is a service account key file's content; install stores it
	// in a Secret of its own.
	KeyFile []byte
	// SecretName is an existing Secret in the operator's namespace with
	// the key file under the key "key.json".
	SecretName string
	// WorkloadIdentityServiceAccount is the Google service account's email
	// the operator's ServiceAccount acts as through GKE workload identity
	// (Application Default Credentials from the metadata server).
	WorkloadIdentityServiceAccount string
}

// withDefaults fills the defaults in.
func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Image == "" {
		o.Image = DefaultImage()
	}
	if o.ControlPlaneOperatorImage == "" {
		o.ControlPlaneOperatorImage = o.Image
	}
	if o.Replicas == 0 {
		o.Replicas = DefaultReplicas
	}
	if o.PrivatePlatform == "" {
		o.PrivatePlatform = operator.PlatformNone
	}
	return o
}

// Validate says, in one sentence per problem, what is wrong with the
// options and which flag fixes it.
func (o Options) Validate() error {
	o = o.withDefaults()
	var errs []error
	if o.Replicas < 1 {
		errs = append(errs, fmt.Errorf("--replicas must be at least 1, not %d", o.Replicas))
	}
	switch o.PrivatePlatform {
	case operator.PlatformAWS:
		errs = append(errs, o.AWS.validate())
	case operator.PlatformAzure:
		errs = append(errs, o.Azure.validate())
	case operator.PlatformGCP:
		errs = append(errs, o.GCP.validate())
	case operator.PlatformNone:
		if o.AWS.given() || o.Azure.given() || o.GCP.given() {
			errs = append(errs, errors.New("cloud credentials were given without --private-platform AWS, Azure or GCP"))
		}
	default:
		errs = append(errs, fmt.Errorf("--private-platform must be AWS, Azure, GCP or None, not %q", o.PrivatePlatform))
	}
	if o.PrivatePlatform != operator.PlatformNone {
		for _, other := range []struct {
			platform, flags string
			given           bool
		}{{operator.PlatformAWS, "--aws-private-*", o.AWS.given()}, {operator.PlatformAzure, "--azure-*", o.Azure.given()}, {operator.PlatformGCP, "--gcp-*", o.GCP.given()}} {
			if other.given && other.platform != o.PrivatePlatform {
				errs = append(errs, fmt.Errorf("the %s flags need --private-platform %s", other.flags, other.platform))
			}
		}
	}
	return errors.Join(errs...)
}

func (c GCPCredentials) given() bool {
	return c.Project != "" || c.Region != "" || c.Network != "" || len(c.NATSubnets) > 0 || len(c.KeyFile) > 0 || c.SecretName != "" || c.WorkloadIdentityServiceAccount != ""
}

// validate checks the place as the operator will (its --gcp-* flags), and
// that exactly one identity is given.
func (c GCPCredentials) validate() error {
	var errs []error
	if err := gcpplatform.Platform(c.operatorOptions()).Check(); err != nil {
		errs = append(errs, err)
	}
	if n := countSet(len(c.KeyFile) > 0, c.SecretName != "", c.WorkloadIdentityServiceAccount != ""); n != 1 {
		errs = append(errs, errors.New("give exactly one of --gcp-creds, --gcp-secret or --gcp-workload-identity-service-account"))
	}
	if c.WorkloadIdentityServiceAccount != "" && !gcpServiceAccountEmail.MatchString(c.WorkloadIdentityServiceAccount) {
		errs = append(errs, fmt.Errorf("--gcp-workload-identity-service-account %q is not a service account email (<name>@<project>.iam.gserviceaccount.com)", c.WorkloadIdentityServiceAccount))
	}
	return errors.Join(errs...)
}

// operatorOptions are the operator's own GCP options of c, with the key
// file when one is given (so that its type is checked too).
func (c GCPCredentials) operatorOptions() gcpplatform.Options {
	o := gcpplatform.Options{Project: c.Project, Region: c.Region, Network: c.Network, NATSubnets: c.NATSubnets}
	o.Cloud.CredentialsJSON = c.KeyFile
	return o
}

// gcpServiceAccountEmail is a user-managed service account's email: an
// account ID of 6 to 30 characters in a project
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts/create).
var gcpServiceAccountEmail = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]@[a-z][-a-z0-9]{4,28}[a-z0-9]\.iam\.gserviceaccount\.com$`)

func (c AWSCredentials) given() bool {
	return c.Region != "" || c.SecretName != "" || c.RoleARN != "" || len(c.CredentialsFile) > 0
}

func (c AzureCredentials) given() bool {
	return c.SecretName != "" || c.WorkloadIdentityClientID != "" || c.TenantID != "" || c.SubscriptionID != "" || c.PLSResourceGroup != "" || c.VNetID != "" || len(c.LoadBalancerConfigurations) > 0 || len(c.CredentialsFile) > 0
}

func (c AWSCredentials) validate() error {
	var errs []error
	if c.Region == "" {
		errs = append(errs, errors.New("--aws-private-region is required with --private-platform AWS"))
	}
	if n := countSet(len(c.CredentialsFile) > 0, c.SecretName != "", c.RoleARN != ""); n != 1 {
		errs = append(errs, errors.New("give exactly one of --aws-private-creds, --aws-private-secret or --aws-private-role-arn"))
	}
	if c.RoleARN != "" && !strings.HasPrefix(c.RoleARN, "arn:") {
		errs = append(errs, fmt.Errorf("--aws-private-role-arn %q is not an ARN (arn:aws:iam::<account>:role/<name>)", c.RoleARN))
	}
	return errors.Join(errs...)
}

func (c AzureCredentials) validate() error {
	var errs []error
	if n := countSet(len(c.CredentialsFile) > 0, c.SecretName != "", c.WorkloadIdentityClientID != ""); n != 1 {
		errs = append(errs, errors.New("give exactly one of --azure-creds, --azure-secret or --azure-workload-identity-client-id"))
	}
	if c.WorkloadIdentityClientID != "" && (c.TenantID == "" || c.SubscriptionID == "") {
		errs = append(errs, errors.New("a workload identity needs --azure-tenant-id and --azure-subscription-id"))
	}
	if len(c.CredentialsFile) > 0 {
		if _, err := parseAzureCredentials(c.CredentialsFile); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func countSet(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}
