package e2eazure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
)

// The cloud as the administrator sees it, through the real SDK.

func network(sub string) *armnetwork.ClientFactory {
	f, err := armnetwork.NewClientFactory(sub, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		panic(err) // only a nil credential fails here
	}
	return f
}

func privateDNS(sub string) *armprivatedns.ClientFactory {
	f, err := armprivatedns.NewClientFactory(sub, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		panic(err)
	}
	return f
}

func isNotFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}

func parse(id string) (*arm.ResourceID, error) {
	rid, err := arm.ParseResourceID(id)
	if err != nil {
		return nil, fmt.Errorf("parsing %q: %w", id, err)
	}
	return rid, nil
}

func getPLS(ctx context.Context, id string) (*armnetwork.PrivateLinkService, error) {
	rid, err := parse(id)
	if err != nil {
		return nil, err
	}
	out, err := network(rid.SubscriptionID).NewPrivateLinkServicesClient().Get(ctx, rid.ResourceGroupName, rid.Name, nil)
	if err != nil {
		return nil, err
	}
	return &out.PrivateLinkService, nil
}

func getPE(ctx context.Context, id string) (*armnetwork.PrivateEndpoint, error) {
	rid, err := parse(id)
	if err != nil {
		return nil, err
	}
	out, err := network(rid.SubscriptionID).NewPrivateEndpointsClient().Get(ctx, rid.ResourceGroupName, rid.Name, nil)
	if err != nil {
		return nil, err
	}
	return &out.PrivateEndpoint, nil
}

func getLoadBalancer(ctx context.Context, id string) (*armnetwork.LoadBalancer, error) {
	rid, err := parse(id)
	if err != nil {
		return nil, err
	}
	out, err := network(rid.SubscriptionID).NewLoadBalancersClient().Get(ctx, rid.ResourceGroupName, rid.Name, nil)
	if err != nil {
		return nil, err
	}
	return &out.LoadBalancer, nil
}

// aRecord is the addresses of an A record set of a zone in the guest
// resource group ("" name not found: nil, nil).
func aRecord(ctx context.Context, zone, name string) ([]string, error) {
	out, err := privateDNS(env.AzureGuest.SubscriptionID).NewRecordSetsClient().Get(ctx, env.AzureGuest.ResourceGroup, zone, armprivatedns.RecordTypeA, name, nil)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ips []string
	for _, a := range out.Properties.ARecords {
		ips = append(ips, deref(a.IPv4Address))
	}
	return ips, nil
}

func deleteARecord(ctx context.Context, zone, name string) error {
	_, err := privateDNS(env.AzureGuest.SubscriptionID).NewRecordSetsClient().Delete(ctx, env.AzureGuest.ResourceGroup, zone, armprivatedns.RecordTypeA, name, nil)
	return err
}

// vnetLinks lists a zone's VNet links in the guest resource group.
func vnetLinks(ctx context.Context, zone string) ([]*armprivatedns.VirtualNetworkLink, error) {
	pager := privateDNS(env.AzureGuest.SubscriptionID).NewVirtualNetworkLinksClient().NewListPager(env.AzureGuest.ResourceGroup, zone, nil)
	var out []*armprivatedns.VirtualNetworkLink
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Value...)
	}
	return out, nil
}

// resource is a cloud resource's ID and tags.
type resource struct {
	id   string
	tags map[string]*string
}

// leftovers lists what exists in the management and guest resource
// groups beyond devenv's fixtures (the VNets and the subnets devenv made):
// load balancers, public addresses, Private Link Services and NAT subnets
// on the management side; Private Endpoints, their interfaces and private
// zones on the guest side.
func leftovers(ctx context.Context) ([]resource, error) {
	var out []resource
	mgmt, guest := network(env.AzureManagement.SubscriptionID), network(env.AzureGuest.SubscriptionID)
	mrg, grg := env.AzureManagement.ResourceGroup, env.AzureGuest.ResourceGroup
	steps := []func() error{
		func() error {
			return collect(ctx, mgmt.NewLoadBalancersClient().NewListPager(mrg, nil), func(p armnetwork.LoadBalancersClientListResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
		func() error {
			return collect(ctx, mgmt.NewPublicIPAddressesClient().NewListPager(mrg, nil), func(p armnetwork.PublicIPAddressesClientListResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
		func() error {
			return collect(ctx, mgmt.NewPrivateLinkServicesClient().NewListPager(mrg, nil), func(p armnetwork.PrivateLinkServicesClientListResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
		func() error {
			return collect(ctx, mgmt.NewSubnetsClient().NewListPager(mrg, lastSegment(env.AzureManagement.VNetID), nil), func(p armnetwork.SubnetsClientListResponse) {
				for _, r := range p.Value {
					if !strings.EqualFold(deref(r.ID), env.AzureManagement.LoadBalancerSubnetID) {
						out = append(out, resource{id: deref(r.ID)})
					}
				}
			})
		},
		func() error {
			return collect(ctx, guest.NewPrivateEndpointsClient().NewListPager(grg, nil), func(p armnetwork.PrivateEndpointsClientListResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
		func() error {
			return collect(ctx, guest.NewInterfacesClient().NewListPager(grg, nil), func(p armnetwork.InterfacesClientListResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
		func() error {
			zones := privateDNS(env.AzureGuest.SubscriptionID).NewPrivateZonesClient()
			return collect(ctx, zones.NewListByResourceGroupPager(grg, nil), func(p armprivatedns.PrivateZonesClientListByResourceGroupResponse) {
				for _, r := range p.Value {
					out = append(out, resource{deref(r.ID), r.Tags})
				}
			})
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collect reads every page of a pager.
func collect[T any](ctx context.Context, pager *runtime.Pager[T], use func(T)) error {
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		use(page)
	}
	return nil
}

func ids(rs []resource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.id)
	}
	slices.Sort(out)
	return out
}

func lastSegment(id string) string { return id[strings.LastIndex(id, "/")+1:] }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func derefAll(ps []*string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, deref(p))
	}
	slices.Sort(out)
	return out
}
