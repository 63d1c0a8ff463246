package diagnose

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// awsPath walks every private endpoint of an AWS cluster: its Service, then
// its NLB, endpoint service, VPC endpoint, security group, zone and records.
var awsPath = cloudPath{
	access: func(hc *hcplinkv1beta1.HostedCluster) string {
		if hc.Spec.Platform.AWS == nil {
			return ""
		}
		return string(hc.Spec.Platform.AWS.EndpointAccess)
	},
	load: func(ctx context.Context, hc *hcplinkv1beta1.HostedCluster, c Credentials, opts *Options) {
		creds := c.AWS
		if creds.Region == "" && hc.Spec.Platform.AWS != nil {
			creds.Region = hc.Spec.Platform.AWS.Region
		}
		opts.AWSManagement, opts.AWSCustomer = LoadAWSAccounts(ctx, creds)
	},
	sides: func(_ context.Context, _ kubeSeen, opts Options) (string, string) {
		return accountLabel(opts.AWSManagement), accountLabel(opts.AWSCustomer)
	},
	walk: walkAWSEndpoints,
}

func walkAWSEndpoints(ctx context.Context, k *kubeSeen, opts Options) ([]Hop, error) {
	names, err := k.awsEndpoints(ctx)
	if err != nil {
		return nil, err
	}
	var hops []Hop
	for _, name := range names {
		svc, err := k.serviceHop(ctx, name)
		if err != nil {
			return nil, err
		}
		hops = append(hops, onEndpoint(name, append([]Hop{svc}, walkAWS(ctx, *k, name, opts.AWSManagement, opts.AWSCustomer)...))...)
	}
	return hops, nil
}

func accountLabel(a AWSAccount) string {
	if a.Label != "" {
		return a.Label
	}
	return "account"
}

// awsEndpoints names the private endpoints to walk (see endpointNames).
func (k kubeSeen) awsEndpoints(ctx context.Context) ([]string, error) {
	var crs hcplinkv1beta1.AWSEndpointServiceList
	if err := k.reader.List(ctx, &crs, client.InNamespace(k.hcpNS)); err != nil {
		return nil, fmt.Errorf("listing AWSEndpointServices in %s: %w", k.hcpNS, err)
	}
	have := make([]string, 0, len(crs.Items))
	for _, cr := range crs.Items {
		have = append(have, cr.Name)
	}
	return endpointNames(k.hcp, have), nil
}

// endpointNames are the private endpoints of an AWS cluster, router first:
// those whose Services the control plane should have, then any other
// AWSEndpointService there is (a path left over is a path to look at).
// Without a HostedControlPlane only the router's is known to be wanted.
func endpointNames(hcp *hcplinkv1beta1.HostedControlPlane, existing []string) []string {
	names := []string{hcplinkv1beta1.PrivateRouterServiceName}
	if hcp != nil && slices.Contains(hcplinkv1beta1.WantedRouterServices(hcp), hcplinkv1beta1.KubeAPIServerPrivateServiceName) {
		names = append(names, hcplinkv1beta1.KubeAPIServerPrivateServiceName)
	}
	var extra []string
	for _, name := range existing {
		if !slices.Contains(names, name) && !slices.Contains(extra, name) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}
