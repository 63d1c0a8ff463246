package e2eazure

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// recipeHostedCluster is the README's Azure HostedCluster ("Run it for
// real"), with the user's values and create iam azure's output filled in.
const recipeHostedCluster = `
apiVersion: hcplink.io/v1beta1
kind: HostedCluster
metadata: {name: NAME, namespace: NAMESPACE}
spec:
  infraID: INFRAID
  dns: {baseDomain: recipe.example.test}
  networking:
    machineNetwork: [{cidr: 10.1.0.0/16}]
  services:
  - service: APIServer
    servicePublishingStrategy: {type: Route, route: {hostname: api.recipe.example.test}}
  platform:
    type: Azure
    azure:
      subscriptionID: SUBSCRIPTION
      resourceGroup: RESOURCEGROUP
      location: LOCATION
      vnetID: VNETID
      subnetID: SUBNETID
      topology: Private
      private: {type: PrivateLink}
      tenantID: TENANTID
      azureAuthenticationConfig:
        workloadIdentities:
          controlPlaneOperator: {clientID: CLIENTID}
`

// TestRecipeMakesASecondCluster follows the README's Azure recipe as a new
// user would, beside devenv's own clusters and with none of devenv's
// cluster helpers: create iam azure (the library behind the command, as
// the user's own Azure login), the HostedCluster from the README's YAML
// with the command's tenantID and clientID, then wait for Available. The
// control-plane operator signs in as that identity, from the Deployment
// the operator renders. Then the cluster is deleted and destroy iam azure
// leaves no identity.
func TestRecipeMakesASecondCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	namespace := suite.CreateNamespace(t, "recipe")
	name, infraID := "recipe", "recipe-"+e2eutil.RandomSuffix(5)
	user := azureiam.Clients{Credential: env.AzureAdmin, Options: env.AzureClientOptions}
	iam := azureiam.Options{InfraID: infraID, Namespace: namespace, Name: name, IssuerURL: env.AzureIssuerURL,
		SubscriptionID: env.AzureGuest.SubscriptionID, ResourceGroup: env.AzureGuest.ResourceGroup, Location: "eastus"}
	var log bytes.Buffer
	out, err := azureiam.Create(ctx, user, &log, iam)
	if err != nil {
		t.Fatalf("create iam azure: %v\n%s", err, log.String())
	}

	manifest := strings.NewReplacer("NAMESPACE", namespace, "INFRAID", infraID, "NAME", name,
		"SUBSCRIPTION", env.AzureGuest.SubscriptionID, "RESOURCEGROUP", env.AzureGuest.ResourceGroup, "LOCATION", "eastus",
		"VNETID", env.AzureGuest.VNetID, "SUBNETID", env.AzureGuest.SubnetIDs[0],
		"TENANTID", out.TenantID, "CLIENTID", out.ClientID).Replace(recipeHostedCluster)
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := yaml.UnmarshalStrict([]byte(manifest), hc); err != nil {
		t.Fatalf("the recipe's YAML: %v", err)
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("kubectl apply: %v", err)
	}
	c := &cluster{Cluster: e2eutil.NewCluster(suite, namespace, name), infraID: infraID}
	c.waitAvailable(t)

	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.HCPNamespace, Name: name}, hcp); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("the control-plane operator's credentials: %+v", cond)
	}

	c.deleteAndCheckNothingLeft(t)
	if err := azureiam.Destroy(ctx, user, &log, iam); err != nil {
		t.Fatalf("destroy iam azure: %v", err)
	}
	identities, err := armmsi.NewUserAssignedIdentitiesClient(iam.SubscriptionID, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := identities.Get(ctx, iam.ResourceGroup, infraID+"-control-plane-operator", nil); !azurecloud.IsNotFound(err) {
		t.Errorf("the identity is left after destroy iam azure: %v", err)
	}
}
