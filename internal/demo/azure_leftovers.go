package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// armThing is one resource as an ARM listing shows it.
type armThing struct {
	kind, id string
	tags     map[string]*string
}

// clusterMarks are what makes a resource the cluster's: its infra ID's tag,
// an ID the tour saw it use, or a name hcplink gives only to this cluster.
type clusterMarks struct {
	infraID string
	ids     []string
	names   []string
}

// azureLeftovers lists, sorted, the things that carry one of the cluster's
// marks.
func azureLeftovers(things []armThing, marks clusterMarks) []string {
	var left []string
	for _, th := range things {
		_, tagged := th.tags[azurecloud.ClusterTagKey(marks.infraID)]
		if tagged || containsFold(marks.ids, th.id) || containsFold(marks.names, azurecloud.NameOf(th.id)) {
			left = append(left, fmt.Sprintf("%s %s (%s)", th.kind, azurecloud.NameOf(th.id), azurecloud.SubscriptionOf(th.id)))
		}
	}
	slices.Sort(left)
	return left
}

func containsFold(list []string, s string) bool {
	return s != "" && slices.ContainsFunc(list, func(v string) bool { return v != "" && strings.EqualFold(v, s) })
}

// marks are the tour's cluster marks: the IDs it saw and the names hcplink
// derives from the cluster.
func (t *azureTour) marks() clusterMarks {
	s := t.seen
	return clusterMarks{
		infraID: azureInfraID,
		ids:     []string{s.plsID, s.natSubnetID, s.endpointID, s.zoneID},
		names: []string{
			azurecloud.PrivateEndpointName(azureInfraID, routerCR),
			azurecloud.PrivateDNSZoneName(azureClusterName),
			azurecloud.VNetLinkName(azureInfraID),
		},
	}
}

// clusterResources lists, over ARM in both subscriptions, every kind of
// resource the cluster has — Private Link Services, subnets of the
// management VNet, load-balancer frontends, Private Endpoints and their
// network interfaces, private zones — and keeps those that carry the
// cluster's marks.
func (t *azureTour) clusterResources(ctx context.Context) (listed int, ours []string, err error) {
	things, err := t.listARM(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("listing what the cloud holds: %w", err)
	}
	return len(things), azureLeftovers(things, t.marks()), nil
}

// resourcesBeforeDeletion is the same listing while the cluster runs: it
// shows the listing finds the cluster's resources, so that finding none
// afterwards means something.
func (t *azureTour) resourcesBeforeDeletion(ctx context.Context) (string, error) {
	_, ours, err := t.clusterResources(ctx)
	if err != nil {
		return "", err
	}
	if len(ours) == 0 {
		return "", fmt.Errorf("the listing finds none of the cluster's resources")
	}
	return strings.Join(ours, "\n      "), nil
}

// proveNothingLeft fails naming anything of the cluster still listed.
func (t *azureTour) proveNothingLeft(ctx context.Context) error {
	listed, left, err := t.clusterResources(ctx)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		fmt.Fprintf(t.out, "\n✗ the cloud still holds %d things of the cluster:\n  %s\n", len(left), strings.Join(left, "\n  "))
		return fmt.Errorf("%d Azure resources of the cluster were left behind", len(left))
	}
	fmt.Fprintf(t.out, "\n✓ cloudsim holds nothing for %s, read over ARM in both subscriptions: the same listing as before the deletion (%d resources now, the fixtures') shows no Private Link Service, NAT subnet, load-balancer frontend, Private Endpoint, network interface or private zone tagged %s or used by the cluster\n",
		azureInfraID, listed, azurecloud.ClusterTagKey(azureInfraID))
	return nil
}

// listARM lists the kinds of resource the cluster had, in both
// subscriptions.
func (t *azureTour) listARM(ctx context.Context) ([]armThing, error) {
	var things []armThing
	for _, list := range []func(context.Context) ([]armThing, error){t.listManagement, t.listGuest} {
		got, err := list(ctx)
		if err != nil {
			return nil, err
		}
		things = append(things, got...)
	}
	return things, nil
}

func (t *azureTour) listManagement(ctx context.Context) ([]armThing, error) {
	network, err := t.network(t.cloud.managementSubscription)
	if err != nil {
		return nil, err
	}
	var things []armThing
	services := network.NewPrivateLinkServicesClient().NewListBySubscriptionPager(nil)
	for services.More() {
		page, err := services.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Value {
			things = append(things, armThing{kind: "Private Link Service", id: deref(s.ID), tags: s.Tags})
		}
	}
	vnet := t.cloud.managementVNetID
	subnets := network.NewSubnetsClient().NewListPager(azurecloud.ResourceGroupOf(vnet), azurecloud.NameOf(vnet), nil)
	for subnets.More() {
		page, err := subnets.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Value {
			things = append(things, armThing{kind: "subnet", id: deref(s.ID)})
		}
	}
	lbs := network.NewLoadBalancersClient().NewListPager(t.cloud.managementResourceGroup, nil)
	for lbs.More() {
		page, err := lbs.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, lb := range page.Value {
			if fe := frontendWithIP(lb, t.seen.routerIP); fe != "" {
				// The frontend has no tags of its own: the router's address
				// still on a frontend is the mark.
				things = append(things, armThing{kind: "frontend of load balancer " + deref(lb.Name) + ":", id: deref(lb.ID) + "/frontendIPConfigurations/" + fe,
					tags: map[string]*string{azurecloud.ClusterTagKey(azureInfraID): to.Ptr("router address")}})
			}
		}
	}
	return things, nil
}

func (t *azureTour) listGuest(ctx context.Context) ([]armThing, error) {
	network, err := t.network(t.cloud.guestSubscription)
	if err != nil {
		return nil, err
	}
	var things []armThing
	endpoints := network.NewPrivateEndpointsClient().NewListBySubscriptionPager(nil)
	for endpoints.More() {
		page, err := endpoints.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, pe := range page.Value {
			things = append(things, armThing{kind: "Private Endpoint", id: deref(pe.ID), tags: pe.Tags})
		}
	}
	nics := network.NewInterfacesClient().NewListAllPager(nil)
	for nics.More() {
		page, err := nics.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, nic := range page.Value {
			things = append(things, armThing{kind: "network interface", id: deref(nic.ID), tags: endpointNICTags(deref(nic.Name))})
		}
	}
	dns, err := t.dns(t.cloud.guestSubscription)
	if err != nil {
		return nil, err
	}
	zones := dns.NewPrivateZonesClient().NewListPager(nil)
	for zones.More() {
		page, err := zones.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, z := range page.Value {
			things = append(things, armThing{kind: "private zone", id: deref(z.ID), tags: z.Tags})
		}
	}
	return things, nil
}

// endpointNICTags marks the network interface Azure made for the cluster's
// endpoint (named after it; Azure does not copy the endpoint's tags).
func endpointNICTags(name string) map[string]*string {
	if strings.HasPrefix(strings.ToLower(name), strings.ToLower(azurecloud.PrivateEndpointName(azureInfraID, routerCR))) {
		return map[string]*string{azurecloud.ClusterTagKey(azureInfraID): to.Ptr("endpoint's interface")}
	}
	return nil
}
