package diagnose

import (
	"context"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// azurePath walks an Azure cluster's one private endpoint: the API server
// goes through the router (no kube-apiserver-private Service on Azure).
var azurePath = cloudPath{
	access: func(hc *hcplinkv1beta1.HostedCluster) string {
		if hc.Spec.Platform.Azure == nil {
			return ""
		}
		return string(hc.Spec.Platform.Azure.Topology)
	},
	load: func(_ context.Context, _ *hcplinkv1beta1.HostedCluster, c Credentials, opts *Options) {
		opts.Azure = LoadAzureClients(c.Getenv, c.AzureGuestSubscription)
	},
	sides: func(_ context.Context, k kubeSeen, opts Options) (string, string) {
		return opts.Azure.managementLabel(k), opts.Azure.guestLabel(k)
	},
	walk: func(ctx context.Context, k *kubeSeen, opts Options) ([]Hop, error) {
		svc, err := k.serviceHop(ctx, hcplinkv1beta1.PrivateRouterServiceName)
		if err != nil {
			return nil, err
		}
		return onEndpoint(hcplinkv1beta1.PrivateRouterServiceName, append([]Hop{svc}, walkAzure(ctx, *k, opts.Azure)...)), nil
	},
}
