package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"slices"
	"time"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	simgcp "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

type gcpPlatform struct{}

func (gcpPlatform) name() string { return "gcp" }

// capacity: none beyond the management network's PSC NAT subnetworks,
// which devenvOptions makes enough of.
func (gcpPlatform) capacity() (int, string) { return 0, "" }

// throttling: Compute Engine's per-project rate quotas (simgcp.DefaultQuotas).
func (gcpPlatform) throttling() sim.Throttling {
	return sim.Throttling{Enabled: true, Services: simgcp.DefaultQuotas()}
}

// gcpSpareNATSubnets: Google lets a PSC NAT subnetwork serve one service
// attachment, so the fleet takes one per cluster; the spares serve the
// clusters made again while the attachments of their deleted namesakes
// are still going.
const gcpSpareNATSubnets = 8

func (p gcpPlatform) devenvOptions(o Options) devenv.Options {
	return devenv.Options{Platform: devenv.PlatformGCP, Faults: &sim.FaultConfig{Throttling: p.throttling()}, DriftInterval: driftInterval,
		OperatorReplicas: operatorReplicas, GCPNATSubnets: o.Clusters + gcpSpareNATSubnets}
}

func (gcpPlatform) prepare(ctx context.Context, env *devenv.Env, n int) ([]*cluster, error) {
	out := make([]*cluster, n)
	for i := range out {
		c := &cluster{index: i, namespace: fmt.Sprintf("soak-%03d", i), name: fmt.Sprintf("hc-%d", i), infraID: fmt.Sprintf("soak-%03d", i)}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fx, err := env.PrepareGCPCluster(ctx, c.namespace, c.name, c.infraID)
		if err != nil {
			return nil, fmt.Errorf("preparing %s: %w", c.name, err)
		}
		c.gcp = fx
		out[i] = c
	}
	return out, nil
}

// principals: the management operator's service account, and every
// control-plane operator's, as IAM names its members.
func (gcpPlatform) principals(env *devenv.Env, clusters []*cluster) []string {
	out := []string{"serviceAccount:" + env.GCPOperatorServiceAccount}
	for _, c := range clusters {
		out = append(out, "serviceAccount:"+c.gcp.ControlPlaneOperatorServiceAccount)
	}
	return out
}

func (gcpPlatform) hostedCluster(c *cluster) *hcplinkv1beta1.HostedCluster {
	fx := c.gcp
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "soak.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: gcpMachineNetwork}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".soak.example.com"),
			Platform:   fx.Platform(hcplinkv1beta1.GCPEndpointAccessPrivate),
		},
	}
}

// gcpMachineNetwork holds devenv's customer subnetworks (10.10.0.0/24 and
// 10.10.1.0/24).
const gcpMachineNetwork = "10.10.0.0/16"

func (gcpPlatform) subnets(*cluster) int { return 2 }

func (gcpPlatform) nodePoolPlatform(c *cluster, i int) hcplinkv1beta1.NodePoolPlatform {
	subnet := c.gcp.Subnet
	if i%2 == 1 {
		subnet = c.gcp.SecondSubnet
	}
	return hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPNodePoolPlatform{Subnet: subnet}}
}

func (gcpPlatform) toggleAccess(hc *hcplinkv1beta1.HostedCluster) {
	g := hc.Spec.Platform.GCP
	if g.EndpointAccess == hcplinkv1beta1.GCPEndpointAccessPrivate {
		g.EndpointAccess = hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate
	} else {
		g.EndpointAccess = hcplinkv1beta1.GCPEndpointAccessPrivate
	}
}

func (gcpPlatform) allowOther(hc *hcplinkv1beta1.HostedCluster, on bool) {
	g := hc.Spec.Platform.GCP
	if !on {
		if g.Private != nil {
			g.Private.AdditionalAllowedProjects = nil
		}
		return
	}
	if g.Private == nil {
		g.Private = &hcplinkv1beta1.GCPPrivateSpec{}
	}
	g.Private.AdditionalAllowedProjects = []string{devenv.GCPPartnerProject}
}

// drift, as the customer project's owner with Google's API, the two
// changes the control-plane operator's drift check repairs (it reads the
// endpoint's forwarding rule, the zone and the zone's records): the api
// record deleted from the cluster's private zone, or the Private Service
// Connect endpoint's forwarding rule deleted.
func (gcpPlatform) drift(ctx context.Context, env *devenv.Env, c *cluster, rng *rand.Rand) (string, error) {
	owner := gcpcloud.Owner{InfraID: c.infraID, Name: hcplinkv1beta1.PrivateRouterServiceName}
	if rng.Intn(2) == 0 {
		svc, err := dns.NewService(ctx, option.WithEndpoint(env.GCPDNSEndpoint), option.WithTokenSource(env.GCPAdminTokens()))
		if err != nil {
			return "", err
		}
		zone := gcpcloud.ZoneName(c.infraID)
		_, err = patientGCP(ctx, func() error {
			z, err := svc.ManagedZones.Get(c.gcp.Project, zone).Context(ctx).Do()
			if err != nil {
				return err
			}
			_, err = svc.ResourceRecordSets.Delete(c.gcp.Project, zone, gcpcloud.RecordFQDN(gcpcloud.APIRecordName, z.DnsName), "A").Context(ctx).Do()
			return err
		})
		return "record deleted", err
	}
	svc, err := compute.NewService(ctx, option.WithEndpoint(env.GCPComputeEndpoint), option.WithTokenSource(env.GCPAdminTokens()))
	if err != nil {
		return "", err
	}
	_, err = patientGCP(ctx, func() error {
		_, err := svc.ForwardingRules.Delete(c.gcp.Project, c.gcp.Region, gcpcloud.EndpointName(owner)).Context(ctx).Do()
		return err
	})
	return "endpoint deleted", err
}

// patientGCP retries the soak's own call through the faults (Google's
// clients retry little by themselves); a resource not there, not made yet
// or already gone, is nothing to drift.
func patientGCP(ctx context.Context, call func() error) (bool, error) {
	var err error
	for range 20 {
		if err = call(); err == nil {
			return true, nil
		}
		if gcpcloud.IsNotFound(err) {
			return false, nil
		}
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code < http.StatusInternalServerError && ge.Code != http.StatusTooManyRequests && !isRateLimited(ge) {
			return false, err // refused: retrying will not help
		}
		if !sim.SleepContext(ctx, 250*time.Millisecond) {
			return false, ctx.Err()
		}
	}
	return false, err
}

// isRateLimited: Compute Engine answers its rate quota with 403 rateLimitExceeded.
func isRateLimited(ge *googleapi.Error) bool {
	return slices.ContainsFunc(ge.Errors, func(e googleapi.ErrorItem) bool { return e.Reason == "rateLimitExceeded" })
}

func (gcpPlatform) revoke(ctx context.Context, env *devenv.Env, c *cluster) (func(context.Context) error, error) {
	return revokeGCPBinding(ctx, env, c)
}
