package devenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/oauth2"
	ctrl "sigs.k8s.io/controller-runtime"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/devenv/lbcontroller"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

// startGCP sets up the GCP side of a started cloudsim: the projects, the
// management and customer networks, the management operator's service
// account and key, and the customer's workload identity pool provider
// trusting the management cluster's issuer (each cluster's own identity is
// made when the cluster is prepared). It fills the Env's GCP fields
// and returns nothing to start: the operators start later.
func (e *Env) startGCP(ctx context.Context, natSubnets int) error {
	g, err := newGCPEnv(ctx, e.Cloud)
	if err != nil {
		return err
	}
	e.gcp = g
	if natSubnets <= 0 {
		natSubnets = gcpDefaultNATSubnets
	}
	if e.GCPManagement, e.GCPCustomer, err = seedGCPNetworks(ctx, g.admin, natSubnets); err != nil {
		return fmt.Errorf("seeding the GCP networks: %w", err)
	}
	g.customers[GCPCustomerProject] = e.GCPCustomer
	if err := g.managementOperator(ctx, e.workDir); err != nil {
		return err
	}
	if err := g.customerTrust(ctx, GCPCustomerProject); err != nil {
		return err
	}
	e.GCPOperatorServiceAccount, e.GCPIssuerURL = g.operatorEmail, gcpIssuer
	e.GCPComputeEndpoint, e.GCPDNSEndpoint = g.computeEndpoint(), g.dnsEndpoint()
	if e.gcpOperatorFlags, err = renderGCPOperatorFlags(e.gcpInstallOptions(), filepath.Join(e.workDir, "management-operator-volumes")); err != nil {
		return fmt.Errorf("the management operator's GCP flags: %w", err)
	}
	return nil
}

// GCPAdminTokens sign as cloudsim's administrator (owner of every
// project), for tests and the demo to read and change cloudsim's GCP
// state through the real clients (GCPComputeEndpoint, GCPDNSEndpoint).
func (e *Env) GCPAdminTokens() oauth2.TokenSource { return gcpAdminTokens() }

// GCPCloudResourceManagerEndpoint is cloudsim's Cloud Resource Manager
// (project IAM policies), for cloudresourcemanager.NewService's
// option.WithEndpoint, as GCPComputeEndpoint is Compute Engine's.
func (e *Env) GCPCloudResourceManagerEndpoint() string {
	return e.gcp.cloudURL + "/cloudresourcemanager/"
}

// gcpOperatorOptions are the management operator's GCP options as the
// flags of install's Deployment give them (gcp_operator.go), against
// cloudsim's endpoints.
func (e *Env) gcpOperatorOptions() (gcpplatform.Options, error) {
	o, err := gcpOptionsFromFlags(e.gcpOperatorFlags)
	if err != nil {
		return o, err
	}
	o.Cloud = e.gcp.config(o.Cloud)
	return o, nil
}

// gcpOperatorProcess is the operator process's GCP flags, those of
// install's Deployment, and its environment: cloudsim's endpoints, which
// stand in for Google's.
func (e *Env) gcpOperatorProcess() (args, env []string) {
	env = []string{gcpcloud.EnvComputeEndpoint + "=" + e.GCPComputeEndpoint, gcpcloud.EnvDNSEndpoint + "=" + e.GCPDNSEndpoint}
	return append([]string{}, e.gcpOperatorFlags...), env
}

// setupGCPLoadBalancers registers the stand-in for GKE's load-balancer
// controller: each internal LoadBalancer Service an INTERNAL forwarding
// rule in the management network's nodes subnetwork. It acts as the
// administrator, as GKE's controller acts with the project's own
// identity; its calls are counted in LoadBalancerCalls.
func (e *Env) setupGCPLoadBalancers(mgr ctrl.Manager) error {
	e.LoadBalancerCalls = newCallCounter("compute")
	return (&lbcontroller.GCPReconciler{Client: mgr.GetClient(), Options: lbcontroller.GCPOptions{
		ComputeEndpoint: e.GCPComputeEndpoint, Tokens: gcpAdminTokens(),
		Transport: gcpCallCounting{counter: e.LoadBalancerCalls, next: http.DefaultTransport},
		Project:   e.GCPManagement.Project, Region: GCPRegion, Subnetwork: e.GCPManagement.NodesSubnet,
	}}).SetupWithManager(mgr)
}

// gcpCallCounting counts each request as "forwardingRules.get": the
// collection and the verb.
type gcpCallCounting struct {
	counter *CallCounter
	next    http.RoundTripper
}

func (c gcpCallCounting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.counter.record(gcpOperation(req.Method, req.URL.Path))
	return c.next.RoundTrip(req)
}

// gcpOperation names a Compute Engine request by its collection and its
// method: a GET of .../forwardingRules/NAME is forwardingRules.get, of
// .../forwardingRules forwardingRules.list. After compute/v1/, a path
// alternates collections and names.
func gcpOperation(method, path string) string {
	segs := strings.Split(strings.Trim(strings.TrimPrefix(path, "/compute/v1/"), "/"), "/")
	// Operations are named as cloudsim and Google's API name them: a
	// region's are regionOperations, the rest globalOperations; POST
	// .../operations/NAME/wait is their wait.
	if i := slices.Index(segs, "operations"); i >= 2 {
		kind := "globalOperations"
		if segs[i-2] == "regions" {
			kind = "regionOperations"
		}
		switch {
		case segs[len(segs)-1] == "wait":
			return kind + ".wait"
		case len(segs) > i+1:
			return kind + ".get"
		}
		return kind + ".list"
	}
	named := len(segs)%2 == 0
	collection := segs[len(segs)-1]
	if named {
		collection = segs[len(segs)-2]
	}
	verb := map[string]string{http.MethodPost: "insert", http.MethodDelete: "delete", http.MethodPatch: "patch"}[method]
	switch {
	case verb != "":
	case named:
		verb = "get"
	default:
		verb = "list"
	}
	return collection + "." + verb
}
