package azureprivatelink

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// A resource group that is gone says nothing of what hcplink made in it:
// deletion keeps the finalizer and the condition says why, rather than
// taking "ResourceGroupNotFound" for "the endpoint is gone" (issue 18,
// item 6). The admin's credential, so that Azure answers with the missing
// group rather than a missing role assignment.
func TestDeletionKeepsTheFinalizerWhileTheResourceGroupIsMissing(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.admin)
	c.until("available", available)

	groups, err := armresources.NewResourceGroupsClient(customer, w.admin, w.f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := groups.BeginDelete(w.ctx, guestRG, nil)
	done(w, p, err)

	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	for range 5 {
		res := c.reconcile()
		c.w.clk.Advance(max(min(res.RequeueAfter, time.Minute), time.Second))
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(c.cr), cr); err != nil || !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
			t.Fatalf("the finalizer was dropped although Azure said the resource group does not exist (%v)", err)
		}
	}
	cond := condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
	if cond.Reason != hcplinkv1beta1.InvalidParameterReason || !strings.Contains(cond.Message, "ResourceGroupNotFound") ||
		!strings.Contains(cond.Message, "resource group does not exist") {
		t.Errorf("condition while the resource group is missing: %+v", cond)
	}
	checkMessages(t, cr)
}
