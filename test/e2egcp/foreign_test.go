package e2egcp

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// A consumer hcplink did not make — an endpoint from the partner's
// project, which the cluster does not accept — is rejected, and deleting
// the cluster still deletes the attachment it is connected to.
func TestForeignConsumerIsRejectedAndDeletionProceeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := createCluster(t, "foreign", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	p := c.waitPath(t, c.fixture.Subnet)
	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := "foreign-" + e2eutil.RandomSuffix(5)
	project := devenv.GCPPartnerProject
	do := func(what string, op *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	op, err := cc.Networks.Insert(project, &compute.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
	do("the partner's network", op, err)
	suite.Eventually(t, e2eutil.ShortWait, "the partner's network", func(ctx context.Context) error {
		_, err := cc.Networks.Get(project, name).Context(ctx).Do()
		return err
	})
	op, err = cc.Subnetworks.Insert(project, devenv.GCPRegion, &compute.Subnetwork{Name: name, Network: "global/networks/" + name, IpCidrRange: "10.20.0.0/24"}).Do()
	do("the partner's subnetwork", op, err)
	suite.Eventually(t, e2eutil.ShortWait, "the partner's subnetwork", func(ctx context.Context) error {
		_, err := cc.Subnetworks.Get(project, devenv.GCPRegion, name).Context(ctx).Do()
		return err
	})
	op, err = cc.Addresses.Insert(project, devenv.GCPRegion, &compute.Address{Name: name, AddressType: "INTERNAL",
		Subnetwork: "regions/" + devenv.GCPRegion + "/subnetworks/" + name}).Do()
	do("the partner's address", op, err)
	var addr *compute.Address
	suite.Eventually(t, e2eutil.ShortWait, "the partner's address", func(ctx context.Context) (err error) {
		addr, err = cc.Addresses.Get(project, devenv.GCPRegion, name).Context(ctx).Do()
		return err
	})
	op, err = cc.ForwardingRules.Insert(project, devenv.GCPRegion, &compute.ForwardingRule{Name: name, Network: "global/networks/" + name,
		IPAddress: addr.SelfLink, Target: p.attachment.SelfLink}).Do()
	do("the partner's endpoint", op, err)

	suite.Eventually(t, oneDriftCheck, "the partner's endpoint to be rejected", func(ctx context.Context) error {
		ep, err := cc.ForwardingRules.Get(project, devenv.GCPRegion, name).Context(ctx).Do()
		if err != nil {
			return err
		}
		if ep.PscConnectionStatus != "REJECTED" {
			return fmt.Errorf("the partner's endpoint is %s", ep.PscConnectionStatus)
		}
		return nil
	})
	c.deleteAndCheckNothingLeft(t)
	if _, err := cc.ForwardingRules.Delete(project, devenv.GCPRegion, name).Do(); err != nil {
		t.Errorf("cleaning up the partner's endpoint: %v", err)
	}
}
