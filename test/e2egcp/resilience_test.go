package e2egcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// Scenarios where the cloud or the operator loses something behind
// hcplink's back: the service attachment deleted by an administrator, the
// management operator restarted between the attachment's creation and the
// status write. Each checks Google's own history of the cluster's
// resources (its Compute Engine operations) for duplicates.

// The service attachment deleted behind hcplink's back, as an
// administrator would through the Compute Engine API: the management
// operator makes it again at its drift check (same name, same accept
// list), the customer's endpoint connects to it again (ACCEPTED), and the
// records follow the endpoint's address; never two attachments or two
// endpoints of the cluster at once.
func TestDeletedAttachmentIsRecreatedAndEndpointReconnects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := createCluster(t, "sadeleted", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	before := c.waitPath(t, c.fixture.Subnet)
	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := before.attachment.Name
	if _, err := cc.ServiceAttachments.Delete(devenv.GCPManagementProject, devenv.GCPRegion, name).Do(); err != nil {
		t.Fatalf("deleting the service attachment %s: %v", name, err)
	}
	suite.Eventually(t, e2eutil.ShortWait, "the service attachment to be gone", func(ctx context.Context) error {
		if _, err := cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, name).Context(ctx).Do(); !isNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})

	// The operator finds it gone at its next drift check and makes it
	// again; the control-plane operator then reconnects its endpoint, each
	// step one of its polls.
	var after *path
	suite.Eventually(t, oneDriftCheck+e2eutil.ShortWait, "a new service attachment of the same name with the endpoint ACCEPTED on it", func(ctx context.Context) (err error) {
		if after, err = c.checkPath(ctx, nil, c.fixture.Subnet); err != nil {
			return err
		}
		if after.attachment.Id == before.attachment.Id {
			return errors.New("the status still names the deleted attachment")
		}
		return nil
	})
	if after.attachment.Name != name || rel(after.attachment.SelfLink) != rel(before.attachment.SelfLink) {
		t.Errorf("the attachment came back as %s, want %s (the endpoint targets that link)", after.attachment.SelfLink, before.attachment.SelfLink)
	}
	t.Logf("attachment %s: id %d → %d; endpoint %s at %s → %s at %s", name, before.attachment.Id, after.attachment.Id,
		before.endpoint.Name, before.endpoint.IPAddress, after.endpoint.Name, after.endpoint.IPAddress)
	c.checkNoDuplicates(t, map[string]int{"serviceAttachments": 2})
	c.deleteAndCheckNothingLeft(t)
}

// The management operator restarted between "attachment created" and
// "status written" (as test/e2e does on AWS: stopped once the attachment
// is in the cloud, the status write lost): the restarted operator adopts
// the attachment marked for the cluster, and Google's history has one
// insert of it. It stops the one management operator every scenario
// shares, so it does not run in parallel: Go runs it before the parallel
// scenarios start.
func TestOperatorRestartBetweenCreateAndStatusAdopts(t *testing.T) {
	ctx := context.Background()
	c := createCluster(t, "restart", hcplinkv1beta1.GCPEndpointAccessPrivate)
	cc, err := computeClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var created *compute.ServiceAttachment
	suite.Eventually(t, e2eutil.LongWait, "the cluster's service attachment in the management project", func(ctx context.Context) error {
		l, err := cc.ServiceAttachments.List(devenv.GCPManagementProject, devenv.GCPRegion).Context(ctx).Do()
		if err != nil {
			return err
		}
		for _, sa := range l.Items {
			if c.ownsName(sa.Name) {
				created = sa
				return nil
			}
		}
		return errors.New("no service attachment named for the cluster yet")
	})
	if err := env.StopOperator(); err != nil {
		t.Fatalf("stopping the management operator: %v", err)
	}
	// Whatever happens below, the other scenarios need the operator back.
	t.Cleanup(env.StartOperator)
	// The write that was lost: the attachment exists, status does not say so.
	c.patchStatus(t, map[string]any{"serviceAttachmentName": nil, "serviceAttachmentURI": nil, "natSubnets": nil})
	if cr, err := c.psc(ctx); err != nil || cr.Status.ServiceAttachmentName != "" || cr.Status.ServiceAttachmentURI != "" {
		t.Fatalf("clearing the status did not take: %+v %v", cr.Status, err)
	}
	env.StartOperator()

	c.waitAvailable(t)
	p := c.waitPath(t, c.fixture.Subnet)
	if p.attachment.Id != created.Id {
		t.Errorf("status names attachment %s (id %d) after the restart, want the adopted %s (id %d)", p.attachment.Name, p.attachment.Id, created.Name, created.Id)
	}
	c.checkNoDuplicates(t, map[string]int{"serviceAttachments": 1})
	c.deleteAndCheckNothingLeft(t)
}

// checkNoDuplicates reads the cluster's history in both projects: never
// two of its attachments, endpoints or addresses alive at once, and
// inserts of each collection as many as want says (collections not in want
// are not counted, only checked for duplicates).
func (c *cluster) checkNoDuplicates(t *testing.T, inserts map[string]int) {
	t.Helper()
	ctx := context.Background()
	for _, project := range []string{devenv.GCPManagementProject, c.fixture.Project} {
		h, err := history(ctx, project, c.ownsName)
		if err != nil {
			t.Fatalf("reading the history of %s: %v", project, err)
		}
		var lines []string
		for _, ch := range h {
			lines = append(lines, fmt.Sprintf("%s %s %s/%s by %s", ch.at, ch.kind, ch.collection, ch.name, ch.user))
		}
		t.Logf("history of %s in %s:\n  %s", c.Name, project, strings.Join(lines, "\n  "))
		for _, collection := range []string{"serviceAttachments", "forwardingRules", "addresses"} {
			if n := mostAlive(h, collection); n > 1 {
				t.Errorf("%s: %d %s of the cluster alive at once", project, n, collection)
			}
		}
		if project != devenv.GCPManagementProject {
			continue
		}
		for collection, want := range inserts {
			if n := count(h, collection, "insert"); n != want {
				t.Errorf("%s: %d inserts of %s of the cluster, want %d", project, n, collection, want)
			}
		}
	}
}

// ownsName reports whether a resource's name marks it as the cluster's
// (hcplink names what it makes for the infra ID).
func (c *cluster) ownsName(name string) bool {
	return strings.Contains(name, strings.ToLower(c.infraID))
}

// patchStatus merge-patches the GCPPrivateServiceConnect's status, as a
// lost or stale write would leave it.
func (c *cluster) patchStatus(t *testing.T, fields map[string]any) {
	t.Helper()
	ctx := context.Background()
	cr, err := c.psc(ctx)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Status().Patch(ctx, cr, client.RawPatch(types.MergePatchType, body)); err != nil {
		t.Fatalf("patching the status of %s: %v", cr.Name, err)
	}
}
