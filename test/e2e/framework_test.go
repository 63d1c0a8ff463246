package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// env is the one devenv every scenario in this package shares; scenarios
// use their own namespaces and cluster names so that they do not meet.
var env *devenv.Env

// suite is the package's share of the e2e helpers.
var suite = e2eutil.ForAWS("e2e")

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	env, err = suite.Start(devenv.Options{DriftInterval: 20 * time.Second,
		// The third account is the events scenario's alone: its call counts tell its passes.
		CustomerAccounts: 3})
	if err != nil {
		return 1
	}
	defer suite.Stop()
	return m.Run()
}

// clusterSpec describes an AWS hosted cluster for a scenario.
type clusterSpec struct {
	namespace, name string
	access          hcplinkv1beta1.AWSEndpointAccessType
	nodePoolZones   []string // one NodePool per entry, in the customer subnet of that zone
}

// createAWSCluster prepares the customer side (role, zone) and creates the
// HostedCluster and its NodePools.
func createAWSCluster(t *testing.T, spec clusterSpec) *hcplinkv1beta1.HostedCluster {
	t.Helper()
	ctx := context.Background()
	infraID := spec.name + "-" + strings.ToLower(e2eutil.RandomSuffix(5))
	fixture, err := env.PrepareAWSCluster(ctx, spec.namespace, spec.name, infraID)
	if err != nil {
		t.Fatalf("preparing the customer account: %v", err)
	}
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: spec.namespace, Name: spec.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: infraID,
			DNS:     hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{
				MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}},
			},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type:  hcplinkv1beta1.RoutePublishing,
					Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + spec.name + ".example.test"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS: &hcplinkv1beta1.AWSPlatformSpec{
					Region:              devenv.Region,
					EndpointAccess:      spec.access,
					CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
					RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: fixture.ControlPlaneOperatorRoleARN},
				},
			},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("creating HostedCluster: %v", err)
	}
	for i, zone := range spec.nodePoolZones {
		createNodePool(t, spec.namespace, fmt.Sprintf("%s-np%d", spec.name, i+1), spec.name, env.Customer.SubnetByAZ[zone])
	}
	return hc
}

func createNodePool(t *testing.T, namespace, name, cluster, subnet string) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: cluster,
			Platform: hcplinkv1beta1.NodePoolPlatform{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS:  &hcplinkv1beta1.AWSNodePoolPlatform{Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: subnet}},
			},
		},
	}
	if err := env.Client.Create(context.Background(), np); err != nil {
		t.Fatalf("creating NodePool %s: %v", name, err)
	}
}
