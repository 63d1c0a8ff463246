package cloudsim_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// hcplink's ownership tags on both clouds, as the soak configures the ledger.
var ledgerTags = sim.LedgerConfig{
	OwnerTagPrefixes: []string{"kubernetes.io/cluster/", "kubernetes.io_cluster_"},
	PurposeTagKeys:   []string{"hcplink.io/endpoint-service", "hcplink.io_private-link-service"},
}

// Over the wire with the real SDK: the customer's VPC and security group
// exist before the ledger starts, so they are foreign; the product's two
// security groups for one owner alive at once are a duplicate, the rule it
// adds to the customer's group is a foreign touch, and the group it leaves
// behind is a leak.
func TestLedgerOnAWS(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ctx := context.Background()
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount))
	vpc, err := client.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	customers, err := client.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: vpc.Vpc.VpcId, GroupName: aws.String("customer"), Description: aws.String("customer")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ledgerTags
	cfg.Principals = []string{"arn:aws:iam::" + cloudsimtest.CustomerAccount + ":*"}
	f.Control(t, http.MethodPut, "/_cloudsim/ledger", cfg, nil)

	tags := []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup, Tags: []ec2types.Tag{
		{Key: aws.String("kubernetes.io/cluster/infra-1"), Value: aws.String("owned")},
		{Key: aws.String("hcplink.io/endpoint-service"), Value: aws.String("private-router")}}}}
	var ours []string
	for _, name := range []string{"ours-1", "ours-2"} {
		sg, err := client.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: vpc.Vpc.VpcId, GroupName: aws.String(name), Description: aws.String(name), TagSpecifications: tags})
		if err != nil {
			t.Fatal(err)
		}
		ours = append(ours, *sg.GroupId)
	}
	if _, err := client.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: customers.GroupId,
		IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443), CidrIp: aws.String("10.0.0.0/16")}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(ours[1])}); err != nil {
		t.Fatal(err)
	}

	var report sim.LedgerReport
	f.ControlGet(t, "/_cloudsim/ledger", &report)
	if len(report.Duplicates) != 1 || report.Duplicates[0].Owner != "infra-1/private-router" || len(report.Duplicates[0].IDs) != 2 {
		t.Errorf("duplicates = %+v, want the two groups of infra-1/private-router", report.Duplicates)
	}
	if leaks := report.Leaks[cloudsimtest.CustomerAccount]; len(leaks) != 1 || leaks[0].ID != ours[0] {
		t.Errorf("leaks = %+v, want only %s", report.Leaks, ours[0])
	}
	if got := report.ForeignTouched; len(got) != 1 || got[0].ID != *customers.GroupId || got[0].Operation != "ec2:AuthorizeSecurityGroupIngress" {
		t.Errorf("foreign touched = %+v, want the rule added to the customer's group", got)
	}
	if report.Created != 2 || report.Deleted != 1 {
		t.Errorf("created %d, deleted %d; want 2 and 1", report.Created, report.Deleted)
	}
}

// On ARM: a resource group the administrator made before the start is
// foreign, and the product's tag update on it is a touch; the product's
// two groups for one owner are a duplicate and leaks.
func TestLedgerOnAzure(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sub := cloudsimtest.CustomerSubscription
	ctx := context.Background()
	admin, err := armresources.NewResourceGroupsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateOrUpdate(ctx, "customer", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	sp := f.AzureServicePrincipalWithRole(t, "operator", "Contributor", "/subscriptions/"+sub)
	cfg := ledgerTags
	cfg.Principals = []string{sp.ObjectID}
	f.Control(t, http.MethodPut, "/_cloudsim/ledger", cfg, nil)

	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, sp), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	owned := map[string]*string{"kubernetes.io_cluster_infra-2": to.Ptr("owned"), "hcplink.io_private-link-service": to.Ptr("private-router")}
	for _, name := range []string{"ours-1", "ours-2"} {
		if _, err := groups.CreateOrUpdate(ctx, name, armresources.ResourceGroup{Location: to.Ptr("eastus"), Tags: owned}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := groups.CreateOrUpdate(ctx, "customer", armresources.ResourceGroup{Location: to.Ptr("eastus"), Tags: map[string]*string{"touched": to.Ptr("yes")}}, nil); err != nil {
		t.Fatal(err)
	}

	var report sim.LedgerReport
	f.Control(t, http.MethodGet, "/_cloudsim/ledger", nil, &report)
	if len(report.Duplicates) != 1 || report.Duplicates[0].Owner != "infra-2/private-router" {
		t.Errorf("duplicates = %+v, want the two groups of infra-2/private-router", report.Duplicates)
	}
	if leaks := report.Leaks[sub]; len(leaks) != 2 {
		t.Errorf("leaks in %s = %+v, want the two groups", sub, leaks)
	}
	if got := report.ForeignTouched; len(got) != 1 || got[0].Principal != sp.ObjectID {
		t.Errorf("foreign touched = %+v, want the update of the customer's group", got)
	}
}

// On Google's APIs with the real clients: the customer's address and zone
// exist before the ledger starts, so they are foreign, and the product's
// record added to that zone is a touch; the product's two addresses for one
// owner alive at once are a duplicate, and the one it leaves is a leak. A
// deletion counts when its operation is DONE.
func TestLedgerOnGCP(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	project, region := cloudsimtest.CustomerProject, cloudsimtest.GCPRegion
	admin := f.Compute(t, cloudsimtest.GCPAdminTokens())
	waitRegional := func(svc *compute.Service, op *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if op, err = svc.RegionOperations.Wait(project, region, op.Name).Do(); err != nil || op.Status != "DONE" || op.Error != nil {
			t.Fatalf("operation: %+v, %v", op, err)
		}
	}
	op, err := admin.Networks.Insert(project, &compute.Network{Name: "vpc", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.GlobalOperations.Wait(project, op.Name).Do(); err != nil {
		t.Fatal(err)
	}
	op, err = admin.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: "workers", Network: "global/networks/vpc", IpCidrRange: "10.0.0.0/24"}).Do()
	waitRegional(admin, op, err)
	op, err = admin.Addresses.Insert(project, region, &compute.Address{Name: "customers", AddressType: "INTERNAL", Subnetwork: "regions/" + region + "/subnetworks/workers"}).Do()
	waitRegional(admin, op, err)
	zone, err := f.DNS(t, cloudsimtest.GCPAdminTokens()).ManagedZones.Create(project, &dns.ManagedZone{Name: "customers", DnsName: "customer.example.", Visibility: "private",
		Description: "the customer's", PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{
			{NetworkUrl: "https://www.googleapis.com/compute/v1/projects/" + project + "/global/networks/vpc"}}}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	member := "serviceAccount:operator@" + project + ".iam.gserviceaccount.com"
	if err := f.Server.GCP.Grant(project, "roles/owner", member, nil); err != nil {
		t.Fatal(err)
	}
	cfg := ledgerTags
	cfg.OwnerTagPrefixes = append(cfg.OwnerTagPrefixes, "kubernetes-io-cluster-")
	cfg.PurposeTagKeys = append(cfg.PurposeTagKeys, "hcplink-io-private-service-connect")
	cfg.Principals = []string{member}
	f.Control(t, http.MethodPut, "/_cloudsim/ledger", cfg, nil)

	tokens := staticTokens(f.Server.GCP.IssueToken(member))
	product := f.Compute(t, tokens)
	labels := map[string]string{"kubernetes-io-cluster-infra-3": "owned", "hcplink-io-private-service-connect": "private-router"}
	for _, name := range []string{"ours-1", "ours-2"} {
		op, err := product.Addresses.Insert(project, region, &compute.Address{Name: name, AddressType: "INTERNAL", Labels: labels,
			Subnetwork: "regions/" + region + "/subnetworks/workers"}).Do()
		waitRegional(product, op, err)
	}
	op, err = product.Addresses.Delete(project, region, "ours-2").Do()
	waitRegional(product, op, err)
	if _, err := f.DNS(t, tokens).Changes.Create(project, zone.Name, &dns.Change{Additions: []*dns.ResourceRecordSet{
		{Name: "api.customer.example.", Type: "A", Ttl: 60, Rrdatas: []string{"10.0.0.9"}}}}).Do(); err != nil {
		t.Fatal(err)
	}

	var report sim.LedgerReport
	f.ControlGet(t, "/_cloudsim/ledger", &report)
	if len(report.Duplicates) != 1 || report.Duplicates[0].Owner != "infra-3/private-router" || report.Duplicates[0].Kind != "compute#address" || len(report.Duplicates[0].IDs) != 2 {
		t.Errorf("duplicates = %+v, want the two addresses of infra-3/private-router", report.Duplicates)
	}
	want := "projects/" + project + "/regions/" + region + "/addresses/ours-1"
	leaks := report.Leaks[project]
	var leakedIDs []string
	for _, l := range leaks {
		leakedIDs = append(leakedIDs, l.ID)
	}
	// The record the product added to the customer's zone is the product's too.
	if len(leaks) != 2 || leakedIDs[0] != "projects/"+project+"/managedZones/customers/rrsets/api.customer.example./A" || leakedIDs[1] != want {
		t.Errorf("leaks in %s = %v, want %s and the record it added", project, leakedIDs, want)
	}
	if got := report.ForeignTouched; len(got) != 1 || got[0].ID != "projects/"+project+"/managedZones/customers" || got[0].Principal != member {
		t.Errorf("foreign touched = %+v, want the change to the customer's zone", got)
	}
	if report.Created != 3 || report.Deleted != 1 {
		t.Errorf("created %d, deleted %d; want 3 (two addresses, one record) and 1", report.Created, report.Deleted)
	}
}
