package hostedcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Event reasons.
const (
	// CloudResourcesMayHaveLeakedEvent is the reason of the Warning event
	// emitted when the operator gives up on the private-link cleanup.
	CloudResourcesMayHaveLeakedEvent = "CloudResourcesMayHaveLeaked"
)

// reconcileDelete takes the cluster down in order:
//
//  0. request the deletion of the HostedControlPlane. The operator's
//     finalizer keeps it Terminating: the control-plane operator sees the
//     cluster is going, so its observers stop recreating the private-link
//     objects, while it keeps running and reporting its credentials;
//  1. delete the private-link objects of every registered platform
//     (AWSEndpointService, AzurePrivateLinkService) and wait until they are
//     gone: their finalizers remove the cloud resources (the control-plane
//     operator's, hcplink.io/control-plane-cleanup, the endpoint, its
//     security group and DNS records in the customer's account; the
//     operator's, hcplink.io/operator-cleanup, the endpoint service in the
//     management account). The control-plane operator, its credentials and
//     the HostedControlPlane stay up meanwhile;
//  2. for a platform with a final sweep (AWS): wait for the control-plane
//     operator's final customer-side sweep, HostedControlPlane
//     CloudCleanupComplete=True. Once no private-link object is left, the
//     control-plane operator removes everything still tagged for the
//     cluster in the customer's account (what a forced namespace deletion
//     or a lost status left behind);
//  3. release the HostedControlPlane (remove the operator's finalizer) and
//     wait until it is gone;
//  4. delete the control-plane operator's Deployment, RoleBinding, Role,
//     ServiceAccount and credentials, and wait until they are gone;
//  5. request the deletion of the namespace. Deletion is complete once the
//     namespace is gone, or is terminating with every object the operator
//     made in it gone: the namespace controller removes what others put
//     there. (A test API server has no namespace controller, so a deleted
//     namespace stays Terminating there forever; this rule lets deletion
//     finish anyway.)
//  6. remove the finalizer.
//
// The escape hatch is per component: only the component whose credentials
// do not work may be given up, and the other keeps cleaning up. The
// control-plane operator's finalizers and the wait for its final sweep are
// given up when the HostedControlPlane reports ValidCloudCredentials=False
// for the grace period, or never reported it for the grace period (the
// control-plane operator never ran); the operator's own finalizers only
// when the management credentials are invalid for the grace period. Giving
// up sets CloudResourcesMayHaveLeaked and emits a Warning event naming what
// may remain.
//
// If the control-plane namespace is gone while the cluster still holds the
// finalizer (someone force-deleted it, stripping finalizers), a platform
// with a final sweep gets back just enough to run it: the namespace, the
// HostedControlPlane (marked deleting before anything can read it as
// live), and the control-plane operator with its credentials. The new
// control-plane operator finds no private-link object and sweeps the
// customer's account by tags, so leftovers of the lost namespace are found
// and removed; deletion then proceeds as above.
//
// A cluster deleted before the operator went to create its control-plane
// operator (status.controlPlaneOperatorCreationTime unset, see
// controlPlaneOperatorMayHaveRun) had none, so nothing of its can be in the
// customer's account: deletion neither waits for its cleanup or final
// sweep, nor recreates it for one, and reports no leak.
//
// A namespace that does not belong to the cluster is never touched.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (time.Duration, error) {
	log := ctrl.LoggerFrom(ctx)
	hc := s.hc
	if !controllerutil.ContainsFinalizer(hc, hcplinkv1beta1.OperatorFinalizer) {
		s.gone = true
		return 0, nil
	}
	s.conditions.setCondition(availableCondition(availability{generation: hc.Generation, deleting: true}))

	ns, err := r.existingNamespace(ctx, s.namespace)
	if err != nil {
		return 0, err
	}
	p := r.Config.Platforms.ForCluster(hc)
	switch {
	case ns != nil || p == nil || !p.FinalSweep:
	case !controlPlaneOperatorMayHaveRun(hc, false, nil):
		log.Info(neverCreatedWhy+"; no final sweep to run", "namespace", s.namespace)
	default:
		if err := r.recreateForFinalSweep(ctx, hc); err != nil {
			return 0, err
		}
		s.conditions.setCondition(metav1.Condition{Type: hcplinkv1beta1.DeletingCondition, Status: metav1.ConditionTrue,
			Reason: hcplinkv1beta1.WaitingForCloudCleanupReason, ObservedGeneration: hc.Generation,
			Message: fmt.Sprintf("the control-plane namespace %s was gone; recreated it with the control-plane operator so that it can sweep the customer's account for leftovers", s.namespace)})
		log.Info("control-plane namespace was gone during deletion; recreated it for the final sweep", "namespace", s.namespace)
		// Look again once the new objects are in the cache.
		return namespaceRecreatedPoll, nil
	}
	if ns != nil && ns.Annotations[hcplinkv1beta1.ClusterAnnotation] == hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name) {
		done, requeue, err := r.deleteControlPlane(ctx, s, ns)
		if err != nil || !done {
			return requeue, err
		}
	}

	if err := removeFinalizer(ctx, r.Client, hc, hcplinkv1beta1.OperatorFinalizer); err != nil {
		return 0, err
	}
	s.gone = true
	log.Info("control plane deleted; finalizer removed")
	return 0, nil
}

// namespaceRecreatedPoll: the namespace was recreated for the final sweep.
const namespaceRecreatedPoll = time.Second

// recreateForFinalSweep brings back a force-deleted control-plane
// namespace with what the control-plane operator needs for its final
// sweep. The HostedControlPlane is marked deleting before the control-plane
// operator exists, so it never sees the cluster as live and recreates no
// private-link object.
func (r *Reconciler) recreateForFinalSweep(ctx context.Context, hc *hcplinkv1beta1.HostedCluster) error {
	if err := r.ensureNamespaceAndControlPlane(ctx, hc); err != nil {
		return err
	}
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespaceOf(hc), Name: hc.Name}}
	if _, err := r.deleteAndCheck(ctx, hcp); err != nil {
		return err
	}
	return r.ensureControlPlaneOperator(ctx, hc)
}

func hcpNamespaceOf(hc *hcplinkv1beta1.HostedCluster) string {
	return hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
}

// deleteControlPlane runs steps 0 to 5 of reconcileDelete; done is true
// when the finalizer may go.
func (r *Reconciler) deleteControlPlane(ctx context.Context, s *scope, ns *corev1.Namespace) (done bool, requeue time.Duration, err error) {
	hc, gen := s.hc, s.hc.Generation
	deleting := func(reason, message string) {
		s.conditions.setCondition(metav1.Condition{Type: hcplinkv1beta1.DeletingCondition, Status: metav1.ConditionTrue,
			Reason: reason, Message: bound(message, maxConditionMessage), ObservedGeneration: gen})
	}

	// 0. Mark the control plane as going, so nothing recreates what step 1
	// deletes.
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: hc.Name}}
	hcpGone, err := r.deleteAndCheck(ctx, hcp)
	if err != nil {
		return false, 0, err
	}
	since := hc.DeletionTimestamp.Time
	var credentials *metav1.Condition
	if !hcpGone {
		s.hcp = hcp
		since = later(since, hcp.CreationTimestamp.Time)
		credentials = findCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	}

	// 1. Private-link objects, while the control-plane operator still runs.
	remaining, err := r.deletePrivateLinkObjects(ctx, s)
	if err != nil {
		deleting(hcplinkv1beta1.WaitingForPrivateLinkCleanupReason, "deleting the private-link objects failed and will be retried: "+err.Error())
		return false, 0, err
	}
	mayHaveRun, err := r.mayHaveRunControlPlaneOperator(ctx, s, remaining)
	if err != nil {
		return false, 0, err
	}
	cpo := controlPlaneGiveUp(r.now(), since, credentials, r.Config.gracePeriod(), mayHaveRun)
	if cpo.nothingMade && !hcpGone {
		ctrl.LoggerFrom(ctx).Info(neverCreatedWhy + "; not waiting for its cleanup")
	}
	if len(remaining) > 0 {
		requeue, err := r.awaitPrivateLinkCleanup(ctx, s, remaining, cpo, deleting)
		return false, requeue, err
	}

	// 2. The control-plane operator's final sweep of the customer's account.
	if p := r.Config.Platforms.ForCluster(hc); p != nil && p.FinalSweep && !hcpGone {
		if wait, requeue := r.awaitFinalSweep(ctx, s, p, hcp, cpo, deleting); wait {
			return false, requeue, nil
		}
	}

	// 3. Release the HostedControlPlane, while the control-plane operator
	// still runs.
	if err := removeFinalizer(ctx, r.Client, hcp, hcplinkv1beta1.OperatorFinalizer); client.IgnoreNotFound(err) != nil {
		return false, 0, fmt.Errorf("releasing the HostedControlPlane: %w", err)
	}
	if gone, err := r.deleteAndCheck(ctx, hcp); err != nil || !gone {
		deleting(hcplinkv1beta1.WaitingForControlPlaneDeletionReason, fmt.Sprintf("waiting for the HostedControlPlane %s/%s to be deleted", s.namespace, hc.Name))
		return false, objectDeletionPoll, err
	}
	s.hcp = nil

	// 4. The control-plane operator and its credentials.
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: s.namespace, Name: name} }
	var left []string
	objs := []client.Object{
		&appsv1.Deployment{ObjectMeta: meta(ControlPlaneOperatorName)},
		&rbacv1.RoleBinding{ObjectMeta: meta(ControlPlaneOperatorName)},
		&rbacv1.Role{ObjectMeta: meta(ControlPlaneOperatorName)},
		&corev1.ServiceAccount{ObjectMeta: meta(ControlPlaneOperatorName)},
	}
	for _, name := range r.Config.Platforms.SecretNames() {
		objs = append(objs, &corev1.Secret{ObjectMeta: meta(name)})
	}
	for _, obj := range objs {
		gone, err := r.deleteAndCheck(ctx, obj)
		if err != nil {
			return false, 0, err
		}
		if !gone {
			left = append(left, kindOf(obj)+" "+obj.GetName())
		}
	}
	if len(left) > 0 {
		deleting(hcplinkv1beta1.WaitingForControlPlaneDeletionReason, "waiting for the control-plane operator's objects to be deleted: "+strings.Join(left, ", "))
		return false, objectDeletionPoll, nil
	}

	// 5. The namespace: requested, and everything we made in it is gone.
	if ns.DeletionTimestamp.IsZero() {
		if err := r.Client.Delete(ctx, ns, client.Preconditions{UID: &ns.UID}); client.IgnoreNotFound(err) != nil {
			return false, 0, fmt.Errorf("deleting namespace %s: %w", ns.Name, err)
		}
	}
	return true, 0, nil
}

// mayHaveRunControlPlaneOperator applies controlPlaneOperatorMayHaveRun
// to the cluster, reading its control-plane operator's Deployment only
// when the status does not already answer.
func (r *Reconciler) mayHaveRunControlPlaneOperator(ctx context.Context, s *scope, privateLink []platform.Object) (bool, error) {
	if controlPlaneOperatorMayHaveRun(s.hc, false, privateLink) {
		return true, nil
	}
	key := client.ObjectKey{Namespace: s.namespace, Name: ControlPlaneOperatorName}
	err := r.Client.Get(ctx, key, &appsv1.Deployment{})
	if client.IgnoreNotFound(err) != nil {
		return false, fmt.Errorf("reading Deployment %s: %w", key, err)
	}
	return controlPlaneOperatorMayHaveRun(s.hc, err == nil, privateLink), nil
}

// awaitPrivateLinkCleanup waits for the private-link objects' finalizers,
// giving up those of a component whose escape hatch is open: the
// control-plane operator's (cpo) or the operator's own. It returns when to
// look again.
func (r *Reconciler) awaitPrivateLinkCleanup(ctx context.Context, s *scope, remaining []platform.Object, cpo giveUp, deleting func(reason, message string)) (time.Duration, error) {
	now := r.now()
	mgmt := managementGiveUp(now, s.hc.DeletionTimestamp.Time, r.Config.ManagementCredentials, r.Config.gracePeriod())
	side := map[string]giveUp{hcplinkv1beta1.ControlPlaneFinalizer: cpo, hcplinkv1beta1.OperatorFinalizer: mgmt}

	var leaks, whys, removed []string
	held := map[string]bool{}
	for _, o := range remaining {
		for _, f := range append([]string(nil), o.Object.GetFinalizers()...) {
			g, known := side[f]
			held[f] = true
			if !known || !g.now {
				continue
			}
			if err := removeFinalizer(ctx, r.Client, o.Object, f); err != nil {
				return 0, fmt.Errorf("giving up the cleanup of %s %s: %w", kindOf(o.Object), o.Object.GetName(), err)
			}
			leaks = append(leaks, o.Leak(f))
			removed = append(removed, fmt.Sprintf("%s from %s %s", f, kindOf(o.Object), o.Object.GetName()))
			if !contains(whys, g.why) {
				whys = append(whys, g.why)
			}
		}
	}
	if len(removed) > 0 {
		r.reportLeak(ctx, s, strings.Join(whys, "; "), "removed the finalizer "+strings.Join(removed, ", "), leaks)
		deleting(hcplinkv1beta1.CleanupAbandonedReason, "removed the finalizer "+strings.Join(removed, ", ")+"; see CloudResourcesMayHaveLeaked")
		return afterAbandonRequeue, nil
	}
	message := "waiting for the cloud cleanup of " + describeRemaining(remaining)
	var deadlines []time.Time
	if held[hcplinkv1beta1.ControlPlaneFinalizer] {
		if m := cpo.waitMessage("the control-plane operator's cleanup"); m != "" {
			message += "; " + m
			deadlines = append(deadlines, cpo.deadline)
		}
	}
	if held[hcplinkv1beta1.OperatorFinalizer] {
		if m := mgmt.waitMessage("the operator's own cleanup"); m != "" {
			message += "; " + m
			deadlines = append(deadlines, mgmt.deadline)
		}
	}
	deleting(hcplinkv1beta1.WaitingForPrivateLinkCleanupReason, message)
	return requeueFor(now, deadlines...), nil
}

// awaitFinalSweep waits for HostedControlPlane CloudCleanupComplete=True,
// unless the control-plane operator's escape hatch is open; wait is false
// when deletion may go on.
func (r *Reconciler) awaitFinalSweep(ctx context.Context, s *scope, p *platform.Platform, hcp *hcplinkv1beta1.HostedControlPlane, cpo giveUp, deleting func(reason, message string)) (wait bool, requeue time.Duration) {
	complete := findCondition(hcp.Status.Conditions, hcplinkv1beta1.CloudCleanupCompleteCondition)
	if (complete != nil && complete.Status == metav1.ConditionTrue) || cpo.nothingMade {
		return false, 0
	}
	state := "not reported yet"
	if complete != nil {
		state = messageOrReason(complete)
	}
	if cpo.now {
		leak := p.FinalSweepLeak(s.hc) + " (the sweep's last report: " + state + ")"
		r.reportLeak(ctx, s, cpo.why, "stopped waiting for the control-plane operator's final sweep of the customer's account", []string{leak})
		return false, 0
	}
	message := fmt.Sprintf("waiting for the control-plane operator's final sweep of the customer's account (HostedControlPlane %s): %s",
		hcplinkv1beta1.CloudCleanupCompleteCondition, state)
	if m := cpo.waitMessage("the wait for it"); m != "" {
		message += "; " + m
	}
	deleting(hcplinkv1beta1.WaitingForCloudCleanupReason, message)
	return true, requeueFor(r.now(), cpo.deadline)
}

// removeFinalizer removes finalizer from obj with a JSON patch guarded by
// a test of the entry, so that it neither needs an up-to-date
// resourceVersion nor can remove another entry.
func removeFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	for i, f := range obj.GetFinalizers() {
		if f != finalizer {
			continue
		}
		path := fmt.Sprintf("/metadata/finalizers/%d", i)
		data, err := json.Marshal([]patchOp{{Op: "test", Path: path, Value: finalizer}, {Op: "remove", Path: path}})
		if err != nil {
			return err
		}
		if err := c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, data)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing finalizer %s: %w", finalizer, err)
		}
		return nil
	}
	return nil
}

// deleteAndCheck requests obj's deletion unless it is already requested;
// gone is true when obj no longer exists.
func (r *Reconciler) deleteAndCheck(ctx context.Context, obj client.Object) (gone bool, err error) {
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("reading %s %s: %w", kindOf(obj), client.ObjectKeyFromObject(obj), err)
	}
	if obj.GetDeletionTimestamp().IsZero() {
		if err := r.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, fmt.Errorf("deleting %s %s: %w", kindOf(obj), client.ObjectKeyFromObject(obj), err)
		}
	}
	return false, nil
}

// deletePrivateLinkObjects requests the deletion of every registered
// platform's private-link objects in the control-plane namespace and
// returns those that still exist.
func (r *Reconciler) deletePrivateLinkObjects(ctx context.Context, s *scope) ([]platform.Object, error) {
	var remaining []platform.Object
	for _, p := range r.Config.Platforms.All() {
		objs, err := p.List(ctx, r.Client, s.namespace, s.hc)
		if err != nil {
			return nil, fmt.Errorf("listing %ss: %w", p.Kind, err)
		}
		for _, o := range objs {
			if o.Object.GetDeletionTimestamp().IsZero() {
				if err := r.Client.Delete(ctx, o.Object); err != nil {
					if apierrors.IsNotFound(err) {
						continue
					}
					return nil, fmt.Errorf("deleting %s %s: %w", kindOf(o.Object), o.Object.GetName(), err)
				}
			}
			remaining = append(remaining, o)
		}
	}
	return remaining, nil
}

// reportLeak reports, in CloudResourcesMayHaveLeaked (added to what an
// earlier give-up reported), a Warning event and the log, that a
// component's cleanup was given up and what may remain.
func (r *Reconciler) reportLeak(ctx context.Context, s *scope, why, what string, leaks []string) {
	message := fmt.Sprintf("gave up on part of the cloud cleanup because %s for longer than %s: %s; these cloud resources may remain and need to be deleted by hand: %s",
		why, r.Config.gracePeriod(), what, strings.Join(leaks, "; "))
	if prev := findCondition(s.hc.Status.Conditions, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition); prev != nil && prev.Status == metav1.ConditionTrue && !strings.Contains(prev.Message, message) {
		message = prev.Message + " Then: " + message
	}
	s.conditions.setCondition(metav1.Condition{Type: hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition, Status: metav1.ConditionTrue,
		Reason: hcplinkv1beta1.CleanupAbandonedReason, Message: bound(message, maxConditionMessage), ObservedGeneration: s.hc.Generation})
	r.Events.Warning(s.hc, CloudResourcesMayHaveLeakedEvent, "AbandonCloudCleanup", bound(message, maxEventNote))
	metrics.CleanupAbandoned(string(s.hc.Spec.Platform.Type))
	ctrl.LoggerFrom(ctx).Error(nil, "cloud cleanup abandoned; cloud resources may have leaked", "why", why, "resources", leaks)
}

// describeRemaining names the private-link objects deletion waits for and
// the finalizers that hold them.
func describeRemaining(objs []platform.Object) string {
	parts := make([]string, 0, len(objs))
	for _, o := range objs {
		p := kindOf(o.Object) + " " + o.Object.GetName()
		if f := o.Object.GetFinalizers(); len(f) > 0 {
			sorted := append([]string(nil), f...)
			sort.Strings(sorted)
			p += " (finalizers: " + strings.Join(sorted, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return joinBounded(parts, maxConditionMessage/2)
}

func kindOf(obj client.Object) string {
	return reflect.TypeOf(obj).Elem().Name()
}
