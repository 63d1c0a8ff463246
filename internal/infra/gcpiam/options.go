// Package gcpiam creates and destroys the Google Cloud identities hcplink's
// operators sign in as: for a private hosted cluster, the control-plane
// operator's service account cpo-<infraID> holding exactly the
// control-plane operator's custom role (the table in internal/cloud/gcp,
// permissions.go) in the cluster's project (and the network's, when it is
// another), which exactly that cluster's control-plane-operator
// ServiceAccount may impersonate through a workload identity pool provider
// trusting the management cluster's issuer; and, with the Operator
// functions, the management operator's service account holding exactly
// its custom role in the management project, signed in with a key or
// through GKE's workload identity. It is the GCP counterpart of
// internal/infra/azureiam and awsiam.
//
// The pool and its provider are shared: one pool "hcplink" per customer
// project, one provider in it per management cluster (its ID derived from
// the issuer). Every cluster of that management cluster in the project
// signs in through the same provider, and each cluster's service account
// lets exactly one subject impersonate it, so sharing grants nothing more;
// a pool or provider per cluster would instead spend Google's per-project
// limit of pools, and a deleted pool's ID stays taken for 30 days
// (https://cloud.google.com/iam/docs/manage-workload-identity-pools-providers#delete-pool).
// The control-plane operator's custom role is shared in the same way (its
// permissions are the same for every cluster; a deleted role's ID stays
// taken too). The shared pieces go when the project's last hcplink
// control-plane operator service account goes.
package gcpiam

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

const (
	// DefaultPool is the customer project's workload identity pool.
	DefaultPool = "hcplink"
	// madeBy starts the description of everything hcplink makes here:
	// service accounts, custom roles, pools and providers carry no labels,
	// so the description is the mark destroy looks for.
	madeBy = "Made by hcplink"
	// cpoServiceAccount is the control-plane operator's Kubernetes
	// ServiceAccount in the control-plane namespace.
	cpoServiceAccount = "control-plane-operator"
	// DefaultOperatorAccount is the management operator's service account ID.
	DefaultOperatorAccount = "hcplink-operator"
	// operatorServiceAccount is the Kubernetes ServiceAccount hcplink
	// install renders for the management operator.
	operatorServiceAccount = "hcplink-operator"
)

// Options say which cluster the control-plane operator's identity is for.
type Options struct {
	// InfraID names the service account (cpo-<infraID>) and marks it.
	InfraID string
	// Namespace and Name are the HostedCluster's: its control-plane
	// operator's ServiceAccount is the only subject that may impersonate
	// the service account.
	Namespace, Name string
	// IssuerURL is the management cluster's service-account issuer, which
	// the pool provider trusts.
	IssuerURL string
	// ProjectID is the cluster's project (spec.platform.gcp.project).
	ProjectID string
	// NetworkProjectID is the project of the cluster's VPC network when it
	// is another (Shared VPC); the role is granted there too.
	NetworkProjectID string
	// Pool and Provider are the workload identity pool and provider IDs
	// (DefaultPool, and ProviderID(IssuerURL), when empty).
	Pool, Provider string
}

// Output is what the HostedCluster needs (PoolProvider and ServiceAccount
// go into spec.platform.gcp.workloadIdentity) and what was made.
type Output struct {
	InfraID        string   `json:"infraID"`
	Project        string   `json:"project"`
	ServiceAccount string   `json:"serviceAccount"`
	PoolProvider   string   `json:"poolProvider"`
	Issuer         string   `json:"issuer"`
	Subject        string   `json:"subject"`
	Role           string   `json:"role"`
	BoundProjects  []string `json:"boundProjects"`
}

var (
	projectPattern = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
	poolPattern    = regexp.MustCompile(`^[a-z0-9][-a-z0-9]{2,30}[a-z0-9]$`)
)

func (o Options) withDefaults() Options {
	if o.Pool == "" {
		o.Pool = DefaultPool
	}
	if o.Provider == "" && o.IssuerURL != "" {
		o.Provider = ProviderID(o.IssuerURL)
	}
	if o.NetworkProjectID == o.ProjectID {
		o.NetworkProjectID = ""
	}
	return o
}

func (o Options) validate(create bool) error {
	switch {
	case o.InfraID == "":
		return fmt.Errorf("--infra-id is required")
	case !projectPattern.MatchString(o.ProjectID):
		return fmt.Errorf("--project-id must be a project ID: 6 to 30 lower-case letters, digits or hyphens, starting with a letter")
	case o.NetworkProjectID != "" && !projectPattern.MatchString(o.NetworkProjectID):
		return fmt.Errorf("--network-project-id must be a project ID")
	case !poolPattern.MatchString(o.Pool) || strings.HasPrefix(o.Pool, "gcp-"):
		return fmt.Errorf("--pool must be 4 to 32 lower-case letters, digits or hyphens, not starting with gcp-")
	case len(ServiceAccountID(o.InfraID)) < 6:
		return fmt.Errorf("--infra-id %q is too short: the service account cpo-<infra-id> needs at least 6 characters", o.InfraID)
	}
	if !create {
		return nil
	}
	switch {
	case o.Name == "" || o.Namespace == "":
		return fmt.Errorf("--name and --namespace of the HostedCluster are required: only its control-plane operator may act as the service account")
	case !poolPattern.MatchString(o.Provider) || strings.HasPrefix(o.Provider, "gcp-"):
		return fmt.Errorf("--pool-provider must be 4 to 32 lower-case letters, digits or hyphens, not starting with gcp-")
	}
	return checkIssuer(o.IssuerURL)
}

func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--oidc-issuer-url must be an https URL, not %q", issuer)
	}
	return nil
}

// ProviderID is the pool provider's ID for a management cluster: "mc-" and
// the start of its issuer's SHA-256, so that each management cluster has
// its own, the same every time.
func ProviderID(issuer string) string {
	sum := sha256.Sum256([]byte(issuer))
	return "mc-" + hex.EncodeToString(sum[:])[:16]
}

// ServiceAccountID is a cluster's control-plane operator service account
// ID: "cpo-" and its infra ID, cut to 30 characters (Google's limit,
// https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts/create)
// without a trailing hyphen.
func ServiceAccountID(infraID string) string {
	id := "cpo-" + strings.ToLower(infraID)
	return strings.TrimRight(id[:min(len(id), 30)], "-")
}

// Subject is the only Kubernetes ServiceAccount that may act as the
// cluster's service account: its control-plane operator.
func Subject(namespace, name string) string {
	return "system:serviceaccount:" + hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name) + ":" + cpoServiceAccount
}

// cpoDescription marks a cluster's service account as hcplink's, for that infra ID.
func cpoDescription(o Options) string {
	return fmt.Sprintf("%s: control-plane operator of %s/%s (infra ID %s)", madeBy, o.Namespace, o.Name, o.InfraID)
}

// ownsCPO tells whether a service account's description is hcplink's for the infra ID.
func ownsCPO(description, infraID string) bool {
	return strings.HasPrefix(description, madeBy+": control-plane operator of ") && strings.HasSuffix(description, "(infra ID "+infraID+")")
}

func email(accountID, project string) string {
	return accountID + "@" + project + ".iam.gserviceaccount.com"
}

// CreatorRoles are the predefined roles, on each project it touches, that
// whoever runs create and destroy iam gcp needs: custom roles, service
// accounts (and their policies), keys, pools and providers, and the
// project's policy. A test runs Create, CreateOperator and both destroys
// as a principal holding exactly these.
var CreatorRoles = []string{
	"roles/iam.roleAdmin",
	"roles/iam.serviceAccountAdmin",
	"roles/iam.serviceAccountKeyAdmin",
	"roles/iam.workloadIdentityPoolAdmin",
	"roles/resourcemanager.projectIamAdmin",
}
