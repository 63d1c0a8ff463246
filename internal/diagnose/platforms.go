package diagnose

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// cloudPath is what diagnose knows of one cloud. A cloud is added here, with
// its own files, and nowhere else: Diagnose and LoadClients name no cloud.
type cloudPath struct {
	// access is the cluster's endpoint access (or topology) for the
	// HostedCluster hop.
	access func(hc *hcplinkv1beta1.HostedCluster) string
	// load builds the cloud's read clients from the command line's
	// credentials into opts; a missing credential leaves a reason, never an
	// error.
	load func(ctx context.Context, hc *hcplinkv1beta1.HostedCluster, c Credentials, opts *Options)
	// sides name the management and customer sides (accounts,
	// subscriptions, projects) as far as they are known.
	sides func(ctx context.Context, k kubeSeen, opts Options) (management, customer string)
	// walk returns the hops after the HostedControlPlane's, every one marked
	// with its private endpoint. Only a failure to read Kubernetes is an
	// error.
	walk func(ctx context.Context, k *kubeSeen, opts Options) ([]Hop, error)
}

var cloudPaths = map[hcplinkv1beta1.PlatformType]cloudPath{
	hcplinkv1beta1.AWSPlatform:   awsPath,
	hcplinkv1beta1.AzurePlatform: azurePath,
	hcplinkv1beta1.GCPPlatform:   gcpPath,
}

// Credentials are what the command line says about each cloud's
// credentials; only the cluster's cloud's are used.
type Credentials struct {
	AWS AWSCredentials
	// AzureGuestSubscription overrides the Azure cluster's subscription.
	AzureGuestSubscription string
	// Getenv reads the environment (os.Getenv): the Azure and Google
	// endpoints and sign-in.
	Getenv func(string) string
}

// LoadClients reads the cluster's platform and builds only its cloud's read
// clients into opts. A cluster that cannot be read, or of a cloud diagnose
// does not walk, gets none: Diagnose then says why.
func LoadClients(ctx context.Context, opts *Options, c Credentials) {
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := opts.Kube.Get(ctx, types.NamespacedName{Namespace: opts.Namespace, Name: opts.Name}, hc); err != nil {
		return
	}
	if p, ok := cloudPaths[hc.Spec.Platform.Type]; ok {
		p.load(ctx, hc, c, opts)
	}
}
