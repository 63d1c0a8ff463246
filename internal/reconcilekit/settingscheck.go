package reconcilekit

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/outcome"
)

// SettingsCheck is the pass a platform's settings check makes: once per
// generation of a HostedControlPlane, it asks the cloud, as the cluster's
// own identity, whether the settings name things that exist (Check), and
// writes the answer as Condition. The router controller gives the private
// router no load balancer until that condition is True, so invalid
// settings create nothing in the cloud. A False check is looked at again
// after the outcome policy's growing delays (the customer may create what
// is missing); a True one is not repeated until the spec changes.
type SettingsCheck struct {
	Client     client.Client
	Tracker    *outcome.Tracker
	Condition  string
	FieldOwner string
	// Due reports whether this generation's settings still want checking:
	// the platform's private configuration, not yet found valid.
	Due func(*hcplinkv1beta1.HostedControlPlane) bool
	// Check asks the cloud; it makes no change there.
	Check func(context.Context, *hcplinkv1beta1.HostedControlPlane) outcome.Outcome
}

// Reconcile checks the control plane's settings when they are due and it
// is not being deleted.
func (c SettingsCheck) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := c.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !hcp.DeletionTimestamp.IsZero() || !c.Due(hcp) {
		return ctrl.Result{}, nil
	}
	o := c.Check(ctx, hcp)
	finisher := Finisher{Tracker: c.Tracker, Type: c.Condition,
		Writer: conditions.Writer{Client: c.Client, FieldOwner: c.FieldOwner, Now: c.Tracker.Now}}
	return finisher.Finish(ctx, Target{Object: hcp, Conditions: &hcp.Status.Conditions, Key: string(hcp.UID) + "/validation"}, o)
}
