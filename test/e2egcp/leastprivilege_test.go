package e2egcp

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	dns "google.golang.org/api/dns/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	simgcp "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// unusedHere are granted permissions the lifecycle below cannot reach on
// cloudsim, each with the reason; the test fails when one is used after
// all (then it belongs in the comparison, not here).
var unusedHere = map[gcpcloud.Component]map[string]string{}

// TestOperatorsLeastPrivilege walks one GCP cluster through its life
// (create PublicAndPrivate, Private and back, an additional project added
// and removed, its private zone unbound from the customer's network behind
// its back and bound again at the drift check, delete) with its control-plane operator signed in by
// workload identity federation as its own service account, holding only
// the control-plane operator's custom role, and the management operator
// signed in with its key, holding only its custom role in the management
// project; it compares what cloudsim evaluated for each with what its
// role grants: nothing denied, nothing granted and never used.
func TestOperatorsLeastPrivilege(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "leastpriv", hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)
	c.waitAvailable(t)
	for _, step := range []struct {
		access  hcplinkv1beta1.GCPEndpointAccessType
		private bool
	}{{hcplinkv1beta1.GCPEndpointAccessPrivate, true}, {hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate, false}} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.GCP.EndpointAccess = step.access })
		suite.Eventually(t, e2eutil.ShortWait, fmt.Sprintf("the ExternalName Services of %s", step.access), func(ctx context.Context) error {
			return c.checkExternalNames(ctx, step.private)
		})
	}
	c.addThenRemovePartnerProject(t)
	p := c.waitPath(t, c.fixture.Subnet)
	unbindZone(t, p.zone.Name)
	suite.Eventually(t, oneDriftCheck, "the private zone to be bound to the customer's network again", func(ctx context.Context) error {
		_, err := c.checkDNS(ctx, p.cr)
		return err
	})
	c.deleteAndCheckNothingLeft(t)

	compareUsedWithGranted(t, "the control-plane operator",
		env.Cloud.GCP.Evaluations("serviceAccount:"+c.fixture.ControlPlaneOperatorServiceAccount), gcpcloud.ControlPlaneOperator)
	compareUsedWithGranted(t, "the management operator",
		env.Cloud.GCP.Evaluations("serviceAccount:"+env.GCPOperatorServiceAccount), gcpcloud.ManagementOperator)
}

// compareUsedWithGranted fails for every permission denied to the
// component and every permission its role grants that was never evaluated.
func compareUsedWithGranted(t *testing.T, who string, evaluated map[string]simgcp.Decision, component gcpcloud.Component) {
	t.Helper()
	var used, denied []string
	for permission, d := range evaluated {
		used = append(used, permission)
		if d.Denied > 0 {
			denied = append(denied, permission)
		}
	}
	sort.Strings(used)
	t.Logf("%s was evaluated for: %v", who, used)
	if len(denied) > 0 {
		t.Errorf("denied to %s (its role misses them): %v", who, denied)
	}
	if len(evaluated) == 0 {
		t.Fatalf("nothing was evaluated for %s: is it signed in as another principal?", who)
	}
	for _, permission := range gcpcloud.PermissionsOf(component) {
		_, ok := evaluated[permission]
		why, unused := unusedHere[component][permission]
		switch {
		case ok && unused:
			t.Errorf("%s was used after all: take it out of unusedHere (%s)", permission, why)
		case !ok && !unused && !slices.Contains(used, permission):
			t.Errorf("the role of %s grants %s, which the whole lifecycle never used", who, permission)
		}
	}
}

// unbindZone takes every network off the private zone's visibility, as a
// project owner might by mistake.
func unbindZone(t *testing.T, zone string) {
	t.Helper()
	d, err := dnsClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.ManagedZones.Patch(devenv.GCPCustomerProject, zone, &dns.ManagedZone{PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{
		Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{}, ForceSendFields: []string{"Networks"}}}).Context(t.Context()).Do()
	if err != nil {
		t.Fatalf("unbinding the private zone from the customer's network: %v", err)
	}
}
