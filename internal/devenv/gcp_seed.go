package devenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The fixtures' names and address plans.
const (
	gcpManagementNetwork = "devenv-management"
	gcpNodesSubnet       = "nodes"
	gcpNodesCIDR         = "10.0.0.0/24"
	gcpCustomerNetwork   = "devenv-customer"
	// gcpDefaultNATSubnets is how many PSC NAT subnetworks the management
	// network has unless Options.GCPNATSubnets asks for more: Google allows
	// one service attachment per NAT subnetwork, so it is how many private
	// clusters the devenv serves at once.
	gcpDefaultNATSubnets = 4
	// gcpSeedTimeout bounds the wait for one of the administrator's
	// changes to show (cloudsim's fast operations take 200 ms).
	gcpSeedTimeout = 30 * time.Second
	gcpSeedPoll    = 20 * time.Millisecond
)

// gcpCustomerSubnets are the customer network's workers' subnetworks, name → CIDR.
var gcpCustomerSubnets = [][2]string{{"workers", "10.10.0.0/24"}, {"workers-2", "10.10.1.0/24"}}

// gcpNATSubnetName names the management network's i-th PSC NAT
// subnetwork (from 1) and gcpNATSubnetCIDR its range: a /28 each, out of
// 10.1.0.0/16.
func gcpNATSubnetName(i int) string { return fmt.Sprintf("psc-nat-%d", i) }

func gcpNATSubnetCIDR(i int) string {
	n := (i - 1) * 16
	return fmt.Sprintf("10.1.%d.%d/28", n/256, n%256)
}

// seedGCPNetworks makes, as cloudsim's administrator, the management
// network (its nodes subnetwork and natSubnets PSC NAT subnetworks) and the
// customer's network with the workers' subnetworks in GCPCustomerProject.
func seedGCPNetworks(ctx context.Context, admin *compute.Service, natSubnets int) (GCPManagementNetwork, GCPCustomerNetwork, error) {
	m := GCPManagementNetwork{Project: GCPManagementProject, ProjectNumber: GCPManagementProjectNumber, Network: gcpManagementNetwork,
		NetworkPath: "projects/" + GCPManagementProject + "/global/networks/" + gcpManagementNetwork, NodesSubnet: gcpNodesSubnet}
	subnets := [][3]string{{gcpNodesSubnet, gcpNodesCIDR, ""}}
	for i := 1; i <= natSubnets; i++ {
		m.NATSubnets = append(m.NATSubnets, gcpNATSubnetName(i))
		subnets = append(subnets, [3]string{gcpNATSubnetName(i), gcpNATSubnetCIDR(i), gcpcloud.PurposePrivateServiceConnect})
	}
	if err := createGCPNetwork(ctx, admin, m.Project, m.Network, subnets); err != nil {
		return m, GCPCustomerNetwork{}, fmt.Errorf("management network: %w", err)
	}
	c, err := seedGCPCustomerNetwork(ctx, admin, GCPCustomerProject, GCPCustomerProjectNumber)
	return m, c, err
}

// seedGCPCustomerNetwork makes, as cloudsim's administrator, a customer's
// network with the workers' subnetworks in the project.
func seedGCPCustomerNetwork(ctx context.Context, admin *compute.Service, project, number string) (GCPCustomerNetwork, error) {
	c := GCPCustomerNetwork{Project: project, ProjectNumber: number, Network: gcpCustomerNetwork}
	var subnets [][3]string
	for _, s := range gcpCustomerSubnets {
		c.Subnets = append(c.Subnets, s[0])
		subnets = append(subnets, [3]string{s[0], s[1], ""})
	}
	if err := createGCPNetwork(ctx, admin, c.Project, c.Network, subnets); err != nil {
		return c, fmt.Errorf("customer network: %w", err)
	}
	return c, nil
}

// createGCPNetwork makes a custom-mode network with subnetworks (name,
// CIDR, purpose) in GCPRegion, waiting until each shows.
func createGCPNetwork(ctx context.Context, admin *compute.Service, project, name string, subnets [][3]string) error {
	net := &compute.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}
	if _, err := admin.Networks.Insert(project, net).Context(ctx).Do(); err != nil {
		return fmt.Errorf("network %s: %w", name, err)
	}
	if err := awaitGCP(ctx, func() error { _, err := admin.Networks.Get(project, name).Context(ctx).Do(); return err }); err != nil {
		return fmt.Errorf("network %s: %w", name, err)
	}
	for _, s := range subnets {
		sub := &compute.Subnetwork{Name: s[0], Network: "global/networks/" + name, IpCidrRange: s[1], Purpose: s[2]}
		if _, err := admin.Subnetworks.Insert(project, GCPRegion, sub).Context(ctx).Do(); err != nil {
			return fmt.Errorf("subnetwork %s: %w", s[0], err)
		}
	}
	for _, s := range subnets {
		if err := awaitGCP(ctx, func() error { _, err := admin.Subnetworks.Get(project, GCPRegion, s[0]).Context(ctx).Do(); return err }); err != nil {
			return fmt.Errorf("subnetwork %s: %w", s[0], err)
		}
	}
	return nil
}

// awaitGCP polls read until it finds the resource (not 404), within
// gcpSeedTimeout.
func awaitGCP(ctx context.Context, read func() error) error {
	ctx, cancel := context.WithTimeout(ctx, gcpSeedTimeout)
	defer cancel()
	for {
		err := read()
		var ge *googleapi.Error
		if err == nil || !errors.As(err, &ge) || ge.Code != http.StatusNotFound {
			return err
		}
		if !sim.SleepContext(ctx, gcpSeedPoll) {
			return fmt.Errorf("not there within %v: %w", gcpSeedTimeout, err)
		}
	}
}
