package azure_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// staleOnce answers the first VNet read with one made earlier (through
// the same real client): the view of a worker that read the VNet just
// before another wrote a subnet into it. Later reads go to cloudsim.
type staleOnce struct {
	azurecloud.VirtualNetworksAPI
	earlier *armnetwork.VirtualNetworksClientGetResponse
}

func (s *staleOnce) Get(ctx context.Context, rg, name string, o *armnetwork.VirtualNetworksClientGetOptions) (armnetwork.VirtualNetworksClientGetResponse, error) {
	if r := s.earlier; r != nil {
		s.earlier = nil
		return *r, nil
	}
	return s.VirtualNetworksAPI.Get(ctx, rg, name, o)
}

// Two writers place NAT subnets in one VNet from the same read of it (two
// workers of one operator, or two operators): both pick the same free
// range, Azure refuses the second as overlapping (NetcfgSubnetRangesOverlap),
// and the second reads the VNet again and takes the next free range.
func TestNATSubnetsPlacedFromTheSameReadGetDistinctRanges(t *testing.T) {
	w := newWorld(t)
	admin := w.f.AzureAdminCredential(t)
	first := w.providers(cloudsimtest.ProviderSubscription, admin).PrivateLinkServices
	second := w.providers(cloudsimtest.ProviderSubscription, admin).PrivateLinkServices
	ref, err := azurecloud.ParseVNetID(w.mgmtVNetID)
	if err != nil {
		t.Fatal(err)
	}
	before, err := second.VirtualNetworks.Get(w.ctx, ref.ResourceGroup, ref.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	second.VirtualNetworks = &staleOnce{VirtualNetworksAPI: second.VirtualNetworks, earlier: &before}

	var got []string
	for _, p := range []struct {
		provider *azurecloud.PrivateLinkServices
		name     string
	}{{first, "pls-nat-a"}, {second, "pls-nat-b"}} {
		var subnet *armnetwork.Subnet
		settle(t, w, "creating "+p.name, func(token string) (string, error) {
			s, next, err := p.provider.EnsureNATSubnet(w.ctx, w.mgmtVNetID, p.name, token)
			subnet = s
			return next, err
		})
		if subnet != nil && subnet.ID != nil {
			// Seen done on its operation, it was not read back.
			subnet, _ = p.provider.Subnet(w.ctx, *subnet.ID)
		}
		if subnet == nil || subnet.Properties == nil || subnet.Properties.AddressPrefix == nil {
			t.Fatalf("%s: %+v", p.name, subnet)
		}
		got = append(got, *subnet.Properties.AddressPrefix)
	}
	a, b := netip.MustParsePrefix(got[0]), netip.MustParsePrefix(got[1])
	if a.Overlaps(b) {
		t.Errorf("the NAT subnets overlap: %s and %s", a, b)
	}
}
