package validationtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

// getTable lists resource in namespace as kubectl get does: as a Table with
// the CRD's printer columns. It returns the cells by row name and column
// name.
func getTable(t *testing.T, namespace, resource string) map[string]map[string]any {
	t.Helper()
	httpClient, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("%s/apis/%s/namespaces/%s/%s", strings.TrimSuffix(env.Config.Host, "/"), hcv1.GroupVersion, namespace, resource)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]any{}
	for _, row := range table.Rows {
		cells := map[string]any{}
		for i, col := range table.ColumnDefinitions {
			cells[col.Name] = row.Cells[i]
		}
		rows[fmt.Sprint(cells["Name"])] = cells
	}
	return rows
}

func setCondition(conditions *[]metav1.Condition, conditionType string, status metav1.ConditionStatus) {
	*conditions = append(*conditions, metav1.Condition{
		Type: conditionType, Status: status, Reason: hcv1.AsExpectedReason, LastTransitionTime: metav1.Now(),
	})
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

func updateStatus(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Status().Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

func requireCells(t *testing.T, rows map[string]map[string]any, row string, want map[string]any) {
	t.Helper()
	cells, ok := rows[row]
	if !ok {
		t.Fatalf("no row %q in %v", row, rows)
	}
	for col, w := range want {
		if got := cells[col]; fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("row %q column %q = %v, want %v", row, col, got, w)
		}
	}
}

// TestPrinterColumns checks what kubectl get shows for each kind.
func TestPrinterColumns(t *testing.T) {
	ns := env.NewNamespace(t)

	aws := awsPrivate(ns, "aws")
	create(t, aws)
	setCondition(&aws.Status.Conditions, hcv1.AvailableCondition, metav1.ConditionTrue)
	setCondition(&aws.Status.Conditions, hcv1.AWSEndpointAvailableCondition, metav1.ConditionFalse)
	setCondition(&aws.Status.Conditions, hcv1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue)
	updateStatus(t, aws)

	azure := azurePublicAndPrivate(ns, "azure")
	create(t, azure)
	setCondition(&azure.Status.Conditions, hcv1.AzurePrivateLinkServiceAvailableCondition, metav1.ConditionUnknown)
	updateStatus(t, azure)

	gcp := gcpPrivate(ns, "gcp")
	create(t, gcp)
	setCondition(&gcp.Status.Conditions, hcv1.GCPPrivateServiceConnectAvailableCondition, metav1.ConditionFalse)
	updateStatus(t, gcp)

	rows := getTable(t, ns, "hostedclusters")
	requireCells(t, rows, "aws", map[string]any{
		"Platform": "AWS", "Access": "Private", "Available": "True", "AWS Endpoint": "False", "Azure PLS": nil, "GCP PSC": nil, "Endpoint Service": "True",
	})
	requireCells(t, rows, "azure", map[string]any{
		"Platform": "Azure", "Access": "PublicAndPrivate", "Available": nil, "AWS Endpoint": nil, "Azure PLS": "Unknown", "GCP PSC": nil,
	})
	requireCells(t, rows, "gcp", map[string]any{
		"Platform": "GCP", "Access": "Private", "Available": nil, "AWS Endpoint": nil, "Azure PLS": nil, "GCP PSC": "False",
	})

	create(t, awsNodePool(ns, "aws-np", subnetA))
	create(t, awsNodePool(ns, "aws-np-no-subnet", ""))
	create(t, azureNodePool(ns, "azure-np"))
	create(t, gcpNodePool(ns, "gcp-np"))
	rows = getTable(t, ns, "nodepools")
	requireCells(t, rows, "aws-np", map[string]any{"Cluster": "demo", "Platform": "AWS", "Subnet": subnetA})
	requireCells(t, rows, "aws-np-no-subnet", map[string]any{"Cluster": "demo", "Platform": "AWS", "Subnet": nil})
	requireCells(t, rows, "azure-np", map[string]any{"Cluster": "azdemo", "Platform": "Azure", "Subnet": subnetID})
	requireCells(t, rows, "gcp-np", map[string]any{"Cluster": "gcpdemo", "Platform": "GCP", "Subnet": "workers"})

	create(t, hostedControlPlane(ns, "gcp", gcp))
	rows = getTable(t, ns, "hostedcontrolplanes")
	requireCells(t, rows, "gcp", map[string]any{"Platform": "GCP", "Access": "Private"})

	ep := awsEndpointService(ns, "private-router")
	create(t, ep)
	ep.Status.EndpointServiceName = "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0"
	ep.Status.EndpointID = "vpce-0123456789abcdef0"
	setCondition(&ep.Status.Conditions, hcv1.AWSEndpointServiceAvailableCondition, metav1.ConditionTrue)
	setCondition(&ep.Status.Conditions, hcv1.AWSEndpointAvailableCondition, metav1.ConditionTrue)
	updateStatus(t, ep)
	rows = getTable(t, ns, "awsendpointservices")
	requireCells(t, rows, "private-router", map[string]any{
		"NLB": ep.Spec.NetworkLoadBalancerName, "Service Name": ep.Status.EndpointServiceName,
		"Endpoint ID": ep.Status.EndpointID, "Service Available": "True", "Available": "True",
	})

	pls := azurePrivateLinkService(ns, "private-router")
	create(t, pls)
	pls.Status.PrivateLinkServiceAlias = "pls-demo.2f8a9e5c-0f4b-4b8e-9c0d-1e2f3a4b5c6d.eastus.azure.privatelinkservice"
	pls.Status.PrivateEndpointIP = "10.0.0.30"
	setCondition(&pls.Status.Conditions, hcv1.AzurePrivateLinkServiceAvailableCondition, metav1.ConditionTrue)
	updateStatus(t, pls)
	rows = getTable(t, ns, "azureprivatelinkservices")
	requireCells(t, rows, "private-router", map[string]any{
		"Alias": pls.Status.PrivateLinkServiceAlias, "Endpoint IP": "10.0.0.30", "Available": "True", "LB IP": "10.1.2.3",
	})

	psc := gcpPrivateServiceConnect(ns, "private-router")
	create(t, psc)
	psc.Status.ServiceAttachmentName = "hcplink-gcpdemo-8hd3k"
	psc.Status.EndpointIP = "10.0.0.31"
	setCondition(&psc.Status.Conditions, hcv1.GCPServiceAttachmentAvailableCondition, metav1.ConditionTrue)
	setCondition(&psc.Status.Conditions, hcv1.GCPPrivateServiceConnectAvailableCondition, metav1.ConditionFalse)
	updateStatus(t, psc)
	rows = getTable(t, ns, "gcpprivateserviceconnects")
	requireCells(t, rows, "private-router", map[string]any{
		"Attachment": "hcplink-gcpdemo-8hd3k", "Endpoint IP": "10.0.0.31", "Attachment Available": "True", "Available": "False", "LB IP": "10.128.0.20",
	})
}
