package diagnose

import (
	"context"

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
