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
// taking "ResourceGroupNotFound" for "the service and the NAT subnet are
// gone" (issue 18, item 6).
func TestDeletionKeepsTheFinalizerWhileTheResourceGroupIsMissing(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)

	groups, err := armresources.NewResourceGroupsClient(mgmtSub, w.f.AzureAdminCredential(t), w.f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := groups.BeginDelete(w.ctx, mgmtRG, nil)
	finish(w, p, err)

	if err := env.Client.Delete(w.ctx, c.cr); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		w.reconcile(r, c.cr)
		w.clk.Advance(time.Minute)
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(c.cr), c.cr); err != nil || !controllerutil.ContainsFinalizer(c.cr, hcplinkv1beta1.OperatorFinalizer) {
			t.Fatalf("the finalizer was dropped although Azure said the resource group does not exist (%v)", err)
		}
	}
	cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Reason != hcplinkv1beta1.InvalidParameterReason || !strings.Contains(cond.Message, "ResourceGroupNotFound") ||
		!strings.Contains(cond.Message, "resource group does not exist") || strings.Contains(cond.Message, mgmtSub) {
		t.Errorf("condition while the resource group is missing: %+v", cond)
	}
}
