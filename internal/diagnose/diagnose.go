package diagnose

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options say which cluster to walk and with which read-only clients.
type Options struct {
	Kube            client.Reader
	Namespace, Name string
	// The AWS accounts: the management account holds the NLB and the
	// endpoint service, the customer's the endpoint, group, zone and records.
	AWSManagement, AWSCustomer AWSAccount
	// Azure are the clients for an Azure cluster.
	Azure AzureClients
	// GCP are the clients for a GCP cluster.
	GCP GCPClients
}

// Diagnose walks the cluster's private path: the Kubernetes hops, then its
// cloud's (cloudPaths). Only a failure to read Kubernetes is an error; a
// cloud that cannot be read makes its hops "?".
func Diagnose(ctx context.Context, opts Options) (Report, error) {
	r := Report{Cluster: opts.Namespace + "/" + opts.Name}
	k, hops, ok, err := walkKubernetes(ctx, opts.Kube, opts.Namespace, opts.Name)
	if err != nil {
		return r, err
	}
	r.Hops = hops
	if k.hc != nil {
		r.Platform = string(k.hc.Spec.Platform.Type)
	}
	if !ok {
		return r, nil
	}
	path := cloudPaths[k.hc.Spec.Platform.Type]
	r.Management, r.Customer = path.sides(ctx, k, opts)
	cloudHops, err := path.walk(ctx, &k, opts)
	if err != nil {
		return r, err
	}
	r.Hops = append(r.Hops, cloudHops...)
	return r, nil
}

// onEndpoint marks hops as on the named endpoint's path.
func onEndpoint(name string, hops []Hop) []Hop {
	for i := range hops {
		hops[i].Endpoint = name
	}
	return hops
}
