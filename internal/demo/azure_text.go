package demo

import (
	"fmt"
	"strings"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// subscriptionLabel names whose subscription an ID is.
func subscriptionLabel(subscription string, c azureCloud) string {
	switch strings.ToLower(subscription) {
	case strings.ToLower(c.managementSubscription):
		return "management subscription " + subscription
	case strings.ToLower(c.guestSubscription):
		return "guest subscription " + subscription
	}
	return "subscription " + subscription
}

// subscriptionLabels names each subscription, in order.
func subscriptionLabels(subscriptions []string, c azureCloud) string {
	labels := make([]string, 0, len(subscriptions))
	for _, s := range subscriptions {
		labels = append(labels, subscriptionLabel(s, c))
	}
	if len(labels) == 0 {
		return "no subscription"
	}
	return strings.Join(labels, ", ")
}

// azureTopology says who owns what before anything is made.
func azureTopology(c azureCloud, f azureFixture) string {
	return fmt.Sprintf(`
Two Azure subscriptions take part:
  %s (the provider's): the management VNet %s in resource group %s,
    the routers' internal load balancer, the Private Link Services and their NAT subnets
  %s (the guest's): the workers' VNet %s in resource group %s, the Private Endpoint,
    the private zone, its VNet link and its records
Both operators sign in by workload identity (their service-account tokens, federated with
user-assigned managed identities that hcplink create iam azure makes): the management operator
with only its custom role at the management resource group (create iam azure --operator), the
control-plane operator with only its own at the guest resource group. The Private Link Service
is visible to and auto-approves only the guest subscription (and any
additionalAllowedSubscriptions).
`, subscriptionLabel(c.managementSubscription, c), azurecloud.NameOf(c.managementVNetID), c.managementResourceGroup,
		subscriptionLabel(c.guestSubscription, c), azurecloud.NameOf(f.vnetID), f.resourceGroup)
}

// azureKeepLines are the shell lines to explore a kept Azure cluster with
// kubectl, the az CLI or the Go SDK, all as cloudsim's administrator.
func azureKeepLines(c azureCloud, f azureFixture, hcpNS, zone string) string {
	return fmt.Sprintf(`
The Azure cluster is available. Paste these lines into another shell to explore it:

export KUBECONFIG=%[1]s
# the Go SDK and the operators' own variables (azidentity, client secret)
export AZURE_TENANT_ID=%[2]s AZURE_CLIENT_ID=%[3]s AZURE_CLIENT_SECRET=%[4]s
export AZURE_AUTHORITY_HOST=%[5]s/ AZURE_RESOURCE_MANAGER_ENDPOINT=%[5]s AZURE_CA_BUNDLE=%[6]s
export AZURE_SUBSCRIPTION_ID=%[7]s   # management; the guest's is %[8]s
# the az CLI (its own config directory, trusting cloudsim's CA)
export REQUESTS_CA_BUNDLE=%[6]s AZURE_CONFIG_DIR=%[9]s
az cloud register -n cloudsim --endpoint-resource-manager %[5]s/ \
  --endpoint-active-directory %[5]s/adfs \
  --endpoint-active-directory-resource-id https://management.core.windows.net/ \
  --endpoint-active-directory-graph-resource-id https://graph.windows.net/
az cloud set -n cloudsim
az login --service-principal -u "$AZURE_CLIENT_ID" -p "$AZURE_CLIENT_SECRET" --tenant "$AZURE_TENANT_ID"

kubectl get hostedclusters,nodepools -A
kubectl get azureprivatelinkservices,services -n %[10]s
az network private-dns record-set a list -g %[11]s -z %[12]s --subscription %[8]s
az network private-dns zone list --subscription %[8]s -o table
`, c.kubeconfig, c.tenantID, c.adminClientID, c.adminClientSecret, strings.TrimSuffix(c.cloudURL, "/"), c.caFile,
		c.managementSubscription, c.guestSubscription, c.azConfigDir, hcpNS, f.resourceGroup, zone)
}
