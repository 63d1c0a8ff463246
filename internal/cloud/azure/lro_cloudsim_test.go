package azure_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

var operationID = regexp.MustCompile(`(?i)(operations|operationResults|operationStatuses)/([0-9a-f-]{36})`)

// forget makes a resume token name an operation the cloud does not know,
// as after the cloud dropped a finished operation.
func forget(t *testing.T, token string) string {
	t.Helper()
	if !operationID.MatchString(token) {
		t.Fatalf("the resume token names no operation: %s", token)
	}
	return operationID.ReplaceAllString(token, "${1}/"+azure.NewGUID())
}

// TestAForgottenOperationIsLookedUpAgain: a resume token whose operation
// the cloud no longer knows does not wedge the caller, and never places a
// NAT subnet twice or deletes a zone that is not ours.
func TestAForgottenOperationIsLookedUpAgain(t *testing.T) {
	w := newWorld(t)
	admin := w.f.AzureAdminCredential(t)
	pls := w.providers(cloudsimtest.ProviderSubscription, admin).PrivateLinkServices

	// The subnet's creation finishes while its token is forgotten: the
	// next pass finds the subnet where it is, not a second placement.
	name := azurecloud.NATSubnetName(clusterID)
	_, token, err := pls.EnsureNATSubnet(w.ctx, w.mgmtVNetID, name, "")
	if err != nil || token == "" {
		t.Fatalf("starting: %q, %v", token, err)
	}
	w.clock.Advance(time.Minute)
	placed, err := pls.Subnet(w.ctx, w.mgmtVNetID+"/subnets/"+name)
	if err != nil || placed == nil {
		t.Fatalf("the subnet after its operation: %v, %v", placed, err)
	}
	got, token, err := pls.EnsureNATSubnet(w.ctx, w.mgmtVNetID, name, forget(t, token))
	if err != nil || token != "" || got == nil || *got.Properties.AddressPrefix != *placed.Properties.AddressPrefix {
		t.Fatalf("resuming a forgotten creation: %v, %q, %v; want the subnet at %s", got, token, err, *placed.Properties.AddressPrefix)
	}

	// A forgotten PLS creation is simply put again (idempotent).
	body := azurecloud.PrivateLinkServiceBody(azurecloud.PrivateLinkServiceSpec{Location: location, FrontendID: w.frontendID, NATSubnetID: *got.ID,
		Subscriptions: []string{cloudsimtest.CustomerSubscription}})
	_, token, err = pls.CreateOrUpdate(w.ctx, mgmtRG, "pls", body, "")
	if err != nil || token == "" {
		t.Fatalf("starting the PLS: %q, %v", token, err)
	}
	w.clock.Advance(time.Minute)
	var service *armnetwork.PrivateLinkService
	token = forget(t, token)
	for i := 0; i < 10; i++ {
		if service, token, err = pls.CreateOrUpdate(w.ctx, mgmtRG, "pls", body, token); err != nil || token == "" {
			break
		}
		w.clock.Advance(time.Minute)
	}
	if err != nil || service == nil || *service.Properties.Alias == "" {
		t.Fatalf("resuming a forgotten PLS creation: %v, %v", service, err)
	}

	// A zone deletion whose token is forgotten while someone else's zone
	// took the name: it is left alone.
	dnsAdmin := w.adminDNS()
	dns := w.providers(cloudsimtest.CustomerSubscription, admin).PrivateDNS
	zone := "demo.hypershift.local"
	settle(t, w, "creating our zone", func(token string) (string, error) {
		_, next, err := dns.CreateZone(w.ctx, guestRG, zone, azurecloud.ZoneTags(clusterID, crName), token)
		return next, err
	})
	token, err = dns.DeleteZone(w.ctx, guestRG, zone, "")
	if err != nil || token == "" {
		t.Fatalf("starting the zone's deletion: %q, %v", token, err)
	}
	w.clock.Advance(time.Minute)
	p, err := dnsAdmin.NewPrivateZonesClient().BeginCreateOrUpdate(w.ctx, guestRG, zone, armprivatednsZone(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute)
	if _, err := p.PollUntilDone(w.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if token, err = dns.DeleteZone(w.ctx, guestRG, zone, forget(t, token)); err != nil || token != "" {
		t.Fatalf("resuming a forgotten deletion: %q, %v", token, err)
	}
	if z, err := dns.Zone(w.ctx, guestRG, zone); err != nil || z == nil {
		t.Fatalf("someone else's zone was deleted: %v", err)
	}
}

func armprivatednsZone() armprivatedns.PrivateZone {
	return armprivatedns.PrivateZone{Location: to.Ptr("global")}
}
