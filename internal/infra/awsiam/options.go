// Package awsiam creates and destroys the IAM a private hosted cluster needs
// in the customer's account: the OIDC provider of the management cluster's
// service-account issuer, the control-plane operator's role (trusting
// exactly its ServiceAccount) and the workers' role and instance profile;
// the management operator's own user, and the read-only user diagnose runs
// as. Every permissions policy comes from the table in internal/cloud/aws
// (permissions.go), for the CLI internal/infra/aws (actions.go), for
// diagnose internal/diagnose (permissions.go).
package awsiam

import (
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Options say which cluster the IAM is for.
type Options struct {
	// InfraID names every role and instance profile and tags everything.
	InfraID string
	// IssuerURL is the management cluster's service-account issuer
	// (https://host/path): the CPO presents its tokens to STS.
	IssuerURL string
	// Namespace and Name are the HostedCluster's, whose control-plane
	// operator the role trusts.
	Namespace, Name string
	// Tags are added to every entity.
	Tags map[string]string
}

// Output is what a HostedCluster and its NodePools need.
type Output struct {
	InfraID                     string `json:"infraID"`
	OIDCProviderARN             string `json:"oidcProviderARN"`
	ControlPlaneOperatorRoleARN string `json:"controlPlaneOperatorRoleARN"`
	WorkerRoleARN               string `json:"workerRoleARN"`
	WorkerInstanceProfileName   string `json:"workerInstanceProfileName"`
}

// Names of the entities, derived from the infra ID.
func controlPlaneOperatorRole(infraID string) string { return infraID + "-control-plane-operator" }
func workerRole(infraID string) string               { return infraID + "-worker-role" }
func workerProfile(infraID string) string            { return infraID + "-worker" }

// ownedTagKey marks entities created for one infra ID, as the network's
// resources are marked.
func ownedTagKey(infraID string) string { return "kubernetes.io/cluster/" + infraID }

func (o Options) validate() error {
	switch {
	case o.InfraID == "":
		return fmt.Errorf("--infra-id is required")
	case len(workerRole(o.InfraID)) > 64 || len(controlPlaneOperatorRole(o.InfraID)) > 64:
		return fmt.Errorf("--infra-id %q is too long: role names are at most 64 characters", o.InfraID)
	case o.Name == "" || o.Namespace == "":
		return fmt.Errorf("--name and --namespace of the HostedCluster are required: the role trusts only its control-plane operator")
	}
	u, err := url.Parse(o.IssuerURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--oidc-issuer-url %q must be an https URL (the management cluster's service-account issuer)", o.IssuerURL)
	}
	return nil
}

// issuerHost is the issuer without its scheme, as IAM writes it in
// condition keys and the provider's ARN.
func (o Options) issuerHost() string {
	return strings.TrimSuffix(strings.TrimPrefix(o.IssuerURL, "https://"), "/")
}

func (o Options) tags() map[string]string {
	t := map[string]string{ownedTagKey(o.InfraID): "owned"}
	for k, v := range o.Tags {
		t[k] = v
	}
	return t
}

// say prints one line per entity as it is created, found or deleted.
func say(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
