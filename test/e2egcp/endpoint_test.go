package e2egcp

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// oneReport bounds the management operator's report of a change of the
// endpoint: its drift check, which may use a listing of the attachments
// made up to four fifths of an interval before.
const oneReport = 2*oneDriftCheck + e2eutil.ShortWait

// The PSC endpoint deleted behind hcplink's back, as an administrator
// would through the Compute Engine API, while the management operator
// reports its connection ACCEPTED (so that the control-plane operator's
// drift checks do not read it): the operator's listing shows it gone, its
// report changes, and the control-plane operator makes the endpoint again
// on the same address — a new connection, ACCEPTED, which the operator
// then reports; never two endpoints of the cluster at once.
func TestDeletedEndpointIsMadeAgainThroughTheOperatorsReport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := createCluster(t, "epdeleted", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	before := c.waitPath(t, c.fixture.Subnet)
	c.waitReport(t, before.endpoint)
	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.ForwardingRules.Delete(devenv.GCPCustomerProject, devenv.GCPRegion, before.endpoint.Name).Do(); err != nil {
		t.Fatalf("deleting the endpoint %s: %v", before.endpoint.Name, err)
	}
	start := time.Now()
	var after *path
	suite.Eventually(t, oneReport, "the endpoint made again, ACCEPTED, with the records on its address", func(ctx context.Context) (err error) {
		if after, err = c.checkPath(ctx, nil, c.fixture.Subnet); err != nil {
			return err
		}
		if after.endpoint.PscConnectionId == before.endpoint.PscConnectionId {
			return fmt.Errorf("endpoint %s still has connection %d", after.endpoint.Name, after.endpoint.PscConnectionId)
		}
		return nil
	})
	t.Logf("endpoint %s: connection %d → %d at %s → %s, %s after its deletion", after.endpoint.Name, before.endpoint.PscConnectionId,
		after.endpoint.PscConnectionId, before.endpoint.IPAddress, after.endpoint.IPAddress, time.Since(start).Round(time.Second))
	if after.endpoint.IPAddress != before.endpoint.IPAddress {
		t.Errorf("the endpoint came back at %s, want its address %s", after.endpoint.IPAddress, before.endpoint.IPAddress)
	}
	c.waitReport(t, after.endpoint)
	c.checkNoDuplicates(t, map[string]int{"serviceAttachments": 1})
	c.deleteAndCheckNothingLeft(t)
}

// waitReport waits until the management operator reports endpoint's
// connection ACCEPTED in status.endpointConnection.
func (c *cluster) waitReport(t *testing.T, endpoint *compute.ForwardingRule) {
	t.Helper()
	want := hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: rel(endpoint.SelfLink),
		PSCConnectionID: strconv.FormatUint(endpoint.PscConnectionId, 10), Status: "ACCEPTED"}
	suite.Eventually(t, oneReport, "the operator to report connection "+want.PSCConnectionID+" ACCEPTED", func(ctx context.Context) error {
		cr, err := c.psc(ctx)
		if err != nil {
			return err
		}
		if got := cr.Status.EndpointConnection; got == nil || *got != want {
			return fmt.Errorf("status.endpointConnection is %+v", got)
		}
		return nil
	})
}
