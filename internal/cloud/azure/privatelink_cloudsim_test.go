package azure_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestPrivateLinkEndToEnd runs the provider calls of both operators in
// their order, each side with only its custom role from the permissions
// table: find the router's frontend across pages, create a NAT subnet in
// the VNet's free space, the PLS visible to the customer, the customer's
// endpoint and its IP; then reject the connection and delete everything.
// Every long-running operation returns a resume token first and finishes
// on a later pass.
func TestPrivateLinkEndToEnd(t *testing.T) {
	w := newWorld(t)
	mo := w.providers(cloudsimtest.ProviderSubscription,
		w.customRoleIdentity(azurecloud.ManagementOperator, cloudsimtest.ProviderSubscription, rgScope(cloudsimtest.ProviderSubscription, mgmtRG)))
	cpo := w.providers(cloudsimtest.CustomerSubscription,
		w.customRoleIdentity(azurecloud.ControlPlaneOperator, cloudsimtest.CustomerSubscription, rgScope(cloudsimtest.CustomerSubscription, guestRG)))
	pls, pes := mo.PrivateLinkServices, cpo.PrivateEndpoints

	// The frontend, on the third page of load balancers.
	scope := azurecloud.LoadBalancerScope{ResourceGroup: mgmtRG, VNetID: w.mgmtVNetID}
	fes, err := pls.FindFrontendsByIP(w.ctx, scope, routerIP)
	if err != nil || len(fes) != 1 {
		t.Fatalf("FindFrontendsByIP = %v, %v", fes, err)
	}
	fe := fes[0]
	if fe.ID != w.frontendID || fe.SubnetID != w.nodesSubnetID || fe.VNetID() != w.mgmtVNetID || fe.Location == "" {
		t.Errorf("frontend = %+v, want %s in %s, with the load balancer's location", fe, w.frontendID, w.nodesSubnetID)
	}
	if none, err := pls.FindFrontendsByIP(w.ctx, scope, "10.0.0.99"); err != nil || len(none) != 0 {
		t.Errorf("an address no frontend has: %v, %v", none, err)
	}
	if _, err := pls.FindFrontendsByIP(w.ctx, azurecloud.LoadBalancerScope{}, routerIP); cloud.ClassOf(err) != cloud.ClassInvalidInput {
		t.Errorf("with no resource group: %v, want a refusal (the subscription is never scanned)", err)
	}

	// The NAT subnet, in the VNet's free space, policies off.
	natName := azurecloud.NATSubnetName(clusterID)
	var nat *armnetwork.Subnet
	settle(t, w, "creating the NAT subnet", func(token string) (string, error) {
		s, next, err := pls.EnsureNATSubnet(w.ctx, fe.VNetID(), natName, token)
		nat = s
		return next, err
	})
	// A creation seen done on its operation is not read back: read it here.
	nat, err = pls.Subnet(w.ctx, *nat.ID)
	if err != nil || nat == nil {
		t.Fatalf("reading the NAT subnet: %v, %v", nat, err)
	}
	prefix := netip.MustParsePrefix(*nat.Properties.AddressPrefix)
	if !netip.MustParsePrefix("10.0.0.0/16").Contains(prefix.Addr()) || prefix.Overlaps(netip.MustParsePrefix("10.0.0.0/24")) || prefix.Bits() != azurecloud.NATSubnetPrefixLength {
		t.Errorf("NAT subnet prefix %s: not a free /%d of the VNet", prefix, azurecloud.NATSubnetPrefixLength)
	}
	if *nat.Properties.PrivateLinkServiceNetworkPolicies != armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled {
		t.Errorf("NAT subnet policies = %v", *nat.Properties.PrivateLinkServiceNetworkPolicies)
	}
	if again, token, err := pls.EnsureNATSubnet(w.ctx, fe.VNetID(), natName, ""); err != nil || token != "" || again == nil || *again.ID != *nat.ID {
		t.Errorf("ensuring an existing NAT subnet: %v, %q, %v", again, token, err)
	}

	// The PLS, visible to and auto-approving the customer.
	name := azurecloud.PrivateLinkServiceName(clusterID)
	body := azurecloud.PrivateLinkServiceBody(azurecloud.PrivateLinkServiceSpec{
		Location: location, FrontendID: fe.ID, NATSubnetID: *nat.ID,
		Subscriptions: []string{cloudsimtest.CustomerSubscription},
		Tags:          azurecloud.ManagementTags(clusterID, crName, "mgmt-1"),
	})
	var service *armnetwork.PrivateLinkService
	settle(t, w, "creating the PLS", func(token string) (string, error) {
		s, next, err := pls.CreateOrUpdate(w.ctx, mgmtRG, name, body, token)
		service = s
		return next, err
	})
	alias := *service.Properties.Alias
	if alias == "" || !azurecloud.OwnedBy(service.Tags, clusterID, crName) {
		t.Fatalf("PLS = alias %q, tags %v", alias, service.Tags)
	}
	if got, err := pls.Get(w.ctx, mgmtRG, name); err != nil || got == nil || *got.Properties.Alias != alias {
		t.Errorf("Get = %v, %v", got, err)
	}

	// The customer's endpoint, its connection approved, its IP.
	peName := azurecloud.PrivateEndpointName(clusterID, crName)
	var pe *armnetwork.PrivateEndpoint
	settle(t, w, "creating the Private Endpoint", func(token string) (string, error) {
		p, next, err := pes.CreateOrUpdate(w.ctx, guestRG, peName, azurecloud.PrivateEndpointBody(azurecloud.PrivateEndpointSpec{
			Location: location, SubnetID: w.guestSubnetID, Service: alias, Tags: azurecloud.OwnershipTags(clusterID, crName),
		}), token)
		pe = p
		return next, err
	})
	if status, svc := azurecloud.EndpointConnectionStatus(pe); status != azurecloud.ConnectionApproved || svc != alias {
		t.Errorf("endpoint connection = %q to %q", status, svc)
	}
	ip, err := pes.IP(w.ctx, pe)
	if err != nil || !netip.MustParsePrefix("192.168.1.0/24").Contains(netip.MustParseAddr(ip)) {
		t.Errorf("endpoint IP = %q, %v", ip, err)
	}

	// Deletion on the operator's side: reject, delete the PLS, the subnet.
	// The connections are read from the service itself, as the operator
	// reads them.
	connections := func() []*armnetwork.PrivateEndpointConnection {
		got, err := pls.Get(w.ctx, mgmtRG, name)
		if err != nil || got == nil || got.Properties == nil {
			t.Fatalf("reading the Private Link Service: %v, %v", got, err)
		}
		return got.Properties.PrivateEndpointConnections
	}
	conns := connections()
	if len(conns) != 1 || azurecloud.ConnectionStatus(conns[0].Properties) != azurecloud.ConnectionApproved {
		t.Fatalf("connections = %v", conns)
	}
	if err := pls.RejectConnection(w.ctx, mgmtRG, name, conns[0], "the cluster is being deleted"); err != nil {
		t.Fatalf("rejecting: %v", err)
	}
	conns = connections()
	if len(conns) != 1 || azurecloud.ConnectionStatus(conns[0].Properties) != azurecloud.ConnectionRejected {
		t.Errorf("after rejecting, connections = %v", conns)
	}
	if err := pls.RejectConnection(w.ctx, mgmtRG, name, conns[0], "the cluster is being deleted"); err != nil {
		t.Errorf("rejecting a rejected connection again: %v", err)
	}
	if pe, _ = pes.Get(w.ctx, guestRG, peName); pe == nil {
		t.Fatal("the endpoint is gone")
	}
	if status, _ := azurecloud.EndpointConnectionStatus(pe); status != azurecloud.ConnectionRejected {
		t.Errorf("the endpoint sees its connection %q", status)
	}
	if _, err := pls.Delete(w.ctx, mgmtRG, name, ""); classOf(err) != cloud.ClassDependency {
		t.Errorf("deleting a PLS with a connection: %v, want a dependency error", err)
	}
	connName := *conns[0].Name
	deleteConn := func(token string) (string, error) { return pls.DeleteConnection(w.ctx, mgmtRG, name, connName, token) }
	if token, err := deleteConn(""); err != nil || token != "" {
		// Azure answers 200/202; follow it like any other operation.
		for i := 0; token != "" && err == nil && i < 10; i++ {
			w.clock.Advance(time.Minute)
			token, err = deleteConn(token)
		}
		if err != nil || token != "" {
			t.Fatalf("deleting the connection: %q, %v", token, err)
		}
	}
	if conns := connections(); len(conns) != 0 {
		t.Fatalf("connections after deleting = %v", conns)
	}
	settle(t, w, "deleting the PLS", func(token string) (string, error) { return pls.Delete(w.ctx, mgmtRG, name, token) })
	if gone, err := pls.Get(w.ctx, mgmtRG, name); err != nil || gone != nil {
		t.Errorf("deleted PLS = %v, %v", gone, err)
	}
	settle(t, w, "deleting the NAT subnet", func(token string) (string, error) { return pls.DeleteSubnet(w.ctx, *nat.ID, token) })
	if gone, err := pls.Subnet(w.ctx, *nat.ID); err != nil || gone != nil {
		t.Errorf("deleted subnet = %v, %v", gone, err)
	}
	settle(t, w, "deleting the endpoint", func(token string) (string, error) { return pes.Delete(w.ctx, guestRG, peName, token) })
	if gone, err := pes.Get(w.ctx, guestRG, peName); err != nil || gone != nil {
		t.Errorf("deleted endpoint = %v, %v", gone, err)
	}
	// Deleting what is gone is done at once.
	if token, err := pls.Delete(w.ctx, mgmtRG, name, ""); token != "" || err != nil {
		t.Errorf("deleting an absent PLS: %q, %v", token, err)
	}
	if token, err := pes.Delete(w.ctx, guestRG, peName, ""); token != "" || err != nil {
		t.Errorf("deleting an absent endpoint: %q, %v", token, err)
	}
}
