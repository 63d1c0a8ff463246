package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestInvalidClustersGetAConditionAndNothingElse creates clusters that pass
// CRD validation but cannot be served, and checks that each gets a
// ValidConfiguration=False condition naming the problem while nothing is
// created for it.
func TestInvalidClustersGetAConditionAndNothingElse(t *testing.T) {
	ns := suite.CreateNamespace(t, "invalid")
	ctx := context.Background()

	// A namespace that is not ours sits where one cluster's control plane would go.
	squatted := hcplinkv1beta1.HostedControlPlaneNamespace(ns, "squatted")
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: squatted}}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		// mutate turns a valid private AWS cluster into the invalid case.
		mutate func(hc *hcplinkv1beta1.HostedCluster)
		// mentions is a word the condition's message must contain.
		mentions string
		// ownNamespace is false when the control-plane namespace exists for another reason.
		ownNamespace bool
	}{
		{"region", func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.AWS.Region = "eu-west-1" }, "region", true},
		{"azure-on-aws-operator", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform = hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID:            "5f2c3a9e-7d1b-4c6a-9e8f-0a1b2c3d4e5f",
				ResourceGroupName:         "rg",
				Location:                  "eastus",
				VnetID:                    "/subscriptions/5f2c3a9e-7d1b-4c6a-9e8f-0a1b2c3d4e5f/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet",
				SubnetID:                  "/subscriptions/5f2c3a9e-7d1b-4c6a-9e8f-0a1b2c3d4e5f/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/workers",
				Topology:                  hcplinkv1beta1.AzureTopologyPrivate,
				Private:                   &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink, PrivateLink: &hcplinkv1beta1.AzurePrivateLinkSpec{}},
				TenantID:                  "72f988bf-86f1-41af-91ab-2d7cd011db47",
				AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}}
			hc.Spec.Services = routeEverything(hc.Name)
		}, "Azure", true},
		{"long-name-" + strings.Repeat("x", 50), func(*hcplinkv1beta1.HostedCluster) {}, "63", true},
		{"squatted", func(*hcplinkv1beta1.HostedCluster) {}, "namespace", false},
		{"collide.one", func(*hcplinkv1beta1.HostedCluster) {}, "namespace", false},
	}
	// "collide.one" maps to the same control-plane namespace as "collide-one",
	// which is created first and is valid.
	first := validPrivateCluster(ns, "collide-one", "coll1")
	if err := env.Client.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	suite.Eventually(t, e2eutil.ShortWait, "the first of two colliding clusters to be accepted", func(ctx context.Context) error {
		var got hcplinkv1beta1.HostedCluster
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), &got); err != nil {
			return err
		}
		return e2eutil.ConditionIs(got.Status.Conditions, hcplinkv1beta1.ValidConfigurationCondition, metav1.ConditionTrue, "")
	})

	for i, tc := range tests {
		t.Run(tc.name[:min(len(tc.name), 20)], func(t *testing.T) {
			hc := validPrivateCluster(ns, tc.name, fmt.Sprintf("inv%d", i))
			tc.mutate(hc)
			if err := env.Client.Create(ctx, hc); err != nil {
				t.Fatalf("the API server refused the case, so it does not test the operator: %v", err)
			}
			suite.Eventually(t, e2eutil.ShortWait, "ValidConfiguration=False", func(ctx context.Context) error {
				var got hcplinkv1beta1.HostedCluster
				if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil {
					return err
				}
				if err := e2eutil.ConditionIs(got.Status.Conditions, hcplinkv1beta1.ValidConfigurationCondition, metav1.ConditionFalse, ""); err != nil {
					return err
				}
				if msg := got.Status.Conditions; !strings.Contains(conditionMessage(msg), tc.mentions) {
					return fmt.Errorf("message %q does not mention %q", conditionMessage(msg), tc.mentions)
				}
				return nil
			})
			hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, tc.name)
			if tc.ownNamespace {
				if err := env.Client.Get(ctx, types.NamespacedName{Name: hcpNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
					t.Errorf("a control-plane namespace was created for an invalid cluster (err=%v)", err)
				}
			}
			var hcps hcplinkv1beta1.HostedControlPlaneList
			if err := env.Client.List(ctx, &hcps, client.InNamespace(hcpNS)); err != nil {
				t.Fatal(err)
			}
			for _, hcp := range hcps.Items {
				if hcp.Name == tc.name {
					t.Errorf("a HostedControlPlane was created for an invalid cluster")
				}
			}
			var deployments appsv1.DeploymentList
			if err := env.Client.List(ctx, &deployments, client.InNamespace(hcpNS)); err != nil {
				t.Fatal(err)
			}
			if tc.ownNamespace && len(deployments.Items) > 0 {
				t.Errorf("deployments were created for an invalid cluster: %d", len(deployments.Items))
			}
		})
	}
}

func conditionMessage(conditions []metav1.Condition) string {
	for _, c := range conditions {
		if c.Type == hcplinkv1beta1.ValidConfigurationCondition {
			return c.Message
		}
	}
	return ""
}

func routeEverything(name string) []hcplinkv1beta1.ServicePublishingStrategyMapping {
	return []hcplinkv1beta1.ServicePublishingStrategyMapping{{
		Service: hcplinkv1beta1.APIServer,
		ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
			Type:  hcplinkv1beta1.RoutePublishing,
			Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + strings.ReplaceAll(name, ".", "-") + ".example.test"},
		},
	}}
}

// validPrivateCluster is a Private AWS cluster the API server accepts; the
// role it names need not exist, as nothing reaches the cloud for it here.
func validPrivateCluster(namespace, name, infraID string) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}}},
			Services:   routeEverything(name),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::" + devenv.CustomerAccount + ":role/" + infraID + "-control-plane-operator"},
			}},
		},
	}
}
