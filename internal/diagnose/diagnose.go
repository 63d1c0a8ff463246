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
		r.Hops = append(r.Hops, walkAWS(ctx, k, opts.AWSManagement, opts.AWSCustomer)...)
	case hcplinkv1beta1.AzurePlatform:
		r.Management, r.Customer = opts.Azure.managementLabel(k), opts.Azure.guestLabel(k)
		r.Hops = append(r.Hops, walkAzure(ctx, k, opts.Azure)...)
	}
	return r, nil
}

func accountLabel(a AWSAccount) string {
	if a.Label != "" {
		return a.Label
	}
	return "account"
}
