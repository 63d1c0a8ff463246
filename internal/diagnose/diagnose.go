package diagnose

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
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
}

// Diagnose walks the cluster's private path. Only a failure to read
// Kubernetes is an error; a cloud that cannot be read makes its hops "?".
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
	switch k.hc.Spec.Platform.Type {
	case hcplinkv1beta1.AWSPlatform:
		r.Management, r.Customer = accountLabel(opts.AWSManagement), accountLabel(opts.AWSCustomer)
		names, err := k.awsEndpoints(ctx)
		if err != nil {
			return r, err
		}
		for _, name := range names {
			svc, err := k.serviceHop(ctx, name)
			if err != nil {
				return r, err
			}
			r.Hops = append(r.Hops, onEndpoint(name, append([]Hop{svc}, walkAWS(ctx, k, name, opts.AWSManagement, opts.AWSCustomer)...))...)
		}
	case hcplinkv1beta1.AzurePlatform:
		// An Azure cluster has one private endpoint: the API server goes
		// through the router (no kube-apiserver-private Service on Azure).
		r.Management, r.Customer = opts.Azure.managementLabel(k), opts.Azure.guestLabel(k)
		svc, err := k.serviceHop(ctx, hcplinkv1beta1.PrivateRouterServiceName)
		if err != nil {
			return r, err
		}
		r.Hops = append(r.Hops, onEndpoint(hcplinkv1beta1.PrivateRouterServiceName, append([]Hop{svc}, walkAzure(ctx, k, opts.Azure)...))...)
	}
	return r, nil
}

// onEndpoint marks hops as on the named endpoint's path.
func onEndpoint(name string, hops []Hop) []Hop {
	for i := range hops {
		hops[i].Endpoint = name
	}
	return hops
}

func accountLabel(a AWSAccount) string {
	if a.Label != "" {
		return a.Label
	}
	return "account"
}
