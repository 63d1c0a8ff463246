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
//  1. delete the AWSEndpointService and AzurePrivateLinkService objects and
//     wait until they are gone: their finalizers remove the cloud resources
//     (the control-plane operator removes the endpoint, its security group
//     and DNS records; the operator's endpoint-service controllers remove
//     the endpoint service or Private Link Service). The control-plane
//     operator, its credentials and the HostedControlPlane stay up
//     meanwhile. If the objects remain after the grace period while the
//     HostedControlPlane reports invalid cloud credentials, the operator
//     gives up: it removes their finalizers, sets
//     CloudResourcesMayHaveLeaked and emits a Warning event naming the
//     resources;
//  2. release the HostedControlPlane (remove the operator's finalizer) and
//     wait until it is gone;
//  3. delete the control-plane operator's Deployment, RoleBinding, Role,
//     ServiceAccount and credentials, and wait until they are gone;
//  4. request the deletion of the namespace. Deletion is complete once the
//     namespace is gone, or is terminating with every object the operator
//     made in it gone: the namespace controller removes what others put
//     there. (A test API server has no namespace controller, so a deleted
//     namespace stays Terminating there forever; this rule lets deletion
//     finish anyway.)
//  5. remove the finalizer.
//
// A namespace that does not belong to the cluster is never touched.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (time.Duration, error) {
	log := ctrl.LoggerFrom(ctx)
	hc := s.hc
	if !controllerutil.ContainsFinalizer(hc, hcplinkv1beta1.OperatorFinalizer) {
		s.gone = true
		return 0, nil
	}
	s.conditions.setCondition(metav1.Condition{Type: hcplinkv1beta1.AvailableCondition, Status: metav1.ConditionFalse,
		Reason: hcplinkv1beta1.DeletingReason, Message: "the cluster is being deleted", ObservedGeneration: hc.Generation})

	ns, err := r.existingNamespace(ctx, s.namespace)
	if err != nil {
		return 0, err
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

// deleteControlPlane runs steps 1 to 4 of reconcileDelete; done is true
// when the finalizer may go.
func (r *Reconciler) deleteControlPlane(ctx context.Context, s *scope, ns *corev1.Namespace) (done bool, requeue time.Duration, err error) {
	hc, gen := s.hc, s.hc.Generation
	deleting := func(reason, message string) {
		s.conditions.setCondition(metav1.Condition{Type: DeletingCondition, Status: metav1.ConditionTrue,
			Reason: reason, Message: bound(message, maxConditionMessage), ObservedGeneration: gen})
	}

	// 0. Mark the control plane as going, so nothing recreates what step 1
	// deletes.
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: hc.Name}}
	if _, err := r.deleteAndCheck(ctx, hcp); err != nil {
		return false, 0, err
	}

	// 1. Private-link objects, while the control-plane operator still runs.
	remaining, err := r.deletePrivateLinkObjects(ctx, s.namespace)
	if err != nil {
		deleting(WaitingForPrivateLinkCleanupReason, "deleting the private-link objects failed and will be retried: "+err.Error())
		return false, 0, err
	}
	if len(remaining) > 0 {
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		var credentials *metav1.Condition
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: hc.Name}, hcp); err == nil {
			credentials = findCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
		} else if !apierrors.IsNotFound(err) {
			return false, 0, fmt.Errorf("reading the HostedControlPlane: %w", err)
		}
		d := decideCleanup(r.now(), hc.DeletionTimestamp.Time, credentials, r.Config.gracePeriod(), describeRemaining(remaining))
		if !d.abandon {
			deleting(WaitingForPrivateLinkCleanupReason, d.message)
			return false, d.requeueAfter, nil
		}
		if err := r.abandonCleanup(ctx, s, remaining, credentials); err != nil {
			return false, 0, err
		}
		deleting(CleanupAbandonedReason, "removed the finalizers of "+describeRemaining(remaining)+"; see CloudResourcesMayHaveLeaked")
		return false, afterAbandonRequeue, nil
	}

	// 2. Release the HostedControlPlane, while the control-plane operator
	// still runs.
	if err := removeFinalizer(ctx, r.Client, hcp, hcplinkv1beta1.OperatorFinalizer); client.IgnoreNotFound(err) != nil {
		return false, 0, fmt.Errorf("releasing the HostedControlPlane: %w", err)
	}
	if gone, err := r.deleteAndCheck(ctx, hcp); err != nil || !gone {
		deleting(WaitingForControlPlaneDeletionReason, fmt.Sprintf("waiting for the HostedControlPlane %s/%s to be deleted", s.namespace, hc.Name))
		return false, objectDeletionPoll, err
	}

	// 3. The control-plane operator and its credentials.
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: s.namespace, Name: name} }
	var left []string
	for _, obj := range []client.Object{
		&appsv1.Deployment{ObjectMeta: meta(ControlPlaneOperatorName)},
		&rbacv1.RoleBinding{ObjectMeta: meta(ControlPlaneOperatorName)},
		&rbacv1.Role{ObjectMeta: meta(ControlPlaneOperatorName)},
		&corev1.ServiceAccount{ObjectMeta: meta(ControlPlaneOperatorName)},
		&corev1.Secret{ObjectMeta: meta(AWSCredentialsSecretName)},
	} {
		gone, err := r.deleteAndCheck(ctx, obj)
		if err != nil {
			return false, 0, err
		}
		if !gone {
			left = append(left, kindOf(obj)+" "+obj.GetName())
		}
	}
	if len(left) > 0 {
		deleting(WaitingForControlPlaneDeletionReason, "waiting for the control-plane operator's objects to be deleted: "+strings.Join(left, ", "))
		return false, objectDeletionPoll, nil
	}

	// 4. The namespace: requested, and everything we made in it is gone.
	if ns.DeletionTimestamp.IsZero() {
		if err := r.Client.Delete(ctx, ns, client.Preconditions{UID: &ns.UID}); client.IgnoreNotFound(err) != nil {
			return false, 0, fmt.Errorf("deleting namespace %s: %w", ns.Name, err)
		}
	}
	return true, 0, nil
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

// deletePrivateLinkObjects requests the deletion of every AWSEndpointService
// and AzurePrivateLinkService in the namespace and returns those that still
// exist.
func (r *Reconciler) deletePrivateLinkObjects(ctx context.Context, namespace string) ([]client.Object, error) {
	var objs []client.Object
	aws := &hcplinkv1beta1.AWSEndpointServiceList{}
	if err := r.Client.List(ctx, aws, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing AWSEndpointServices: %w", err)
	}
	for i := range aws.Items {
		objs = append(objs, &aws.Items[i])
	}
	azure := &hcplinkv1beta1.AzurePrivateLinkServiceList{}
	if err := r.Client.List(ctx, azure, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing AzurePrivateLinkServices: %w", err)
	}
	for i := range azure.Items {
		objs = append(objs, &azure.Items[i])
	}
	var remaining []client.Object
	for _, obj := range objs {
		if obj.GetDeletionTimestamp().IsZero() {
			if err := r.Client.Delete(ctx, obj); err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return nil, fmt.Errorf("deleting %s %s: %w", kindOf(obj), obj.GetName(), err)
			}
		}
		remaining = append(remaining, obj)
	}
	return remaining, nil
}

// abandonCleanup removes the finalizers of the private-link objects that
// are left, and reports what may have leaked in a condition, a Warning
// event and the log.
func (r *Reconciler) abandonCleanup(ctx context.Context, s *scope, remaining []client.Object, credentials *metav1.Condition) error {
	leaks := make([]string, 0, len(remaining))
	for _, obj := range remaining {
		if len(obj.GetFinalizers()) > 0 {
			// Every finalizer goes, whoever added it: no lock needed.
			patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
			obj.SetFinalizers(nil)
			if err := r.Client.Patch(ctx, obj, patch); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("removing the finalizers of %s %s: %w", kindOf(obj), obj.GetName(), err)
			}
		}
		leaks = append(leaks, describeLeak(obj, s.hc))
	}
	message := fmt.Sprintf("gave up on the cloud cleanup: the control plane reported invalid cloud credentials (%s) for longer than %s, so the finalizers of %s were removed; these cloud resources may remain and need to be deleted by hand: %s",
		messageOrReason(credentials), r.Config.gracePeriod(), describeRemaining(remaining), strings.Join(leaks, "; "))
	s.conditions.setCondition(metav1.Condition{Type: CloudResourcesMayHaveLeakedCondition, Status: metav1.ConditionTrue,
		Reason: CleanupAbandonedReason, Message: bound(message, maxConditionMessage), ObservedGeneration: s.hc.Generation})
	if r.Recorder != nil {
		r.Recorder.Eventf(s.hc, nil, corev1.EventTypeWarning, CloudResourcesMayHaveLeakedEvent, "AbandonCloudCleanup", "%s", bound(message, maxEventNote))
	}
	ctrl.LoggerFrom(ctx).Error(nil, "cloud cleanup abandoned; cloud resources may have leaked", "resources", leaks)
	return nil
}

// describeRemaining names the private-link objects deletion waits for and
// the finalizers that hold them.
func describeRemaining(objs []client.Object) string {
	parts := make([]string, 0, len(objs))
	for _, obj := range objs {
		p := kindOf(obj) + " " + obj.GetName()
		if f := obj.GetFinalizers(); len(f) > 0 {
			sorted := append([]string(nil), f...)
			sort.Strings(sorted)
			p += " (finalizers: " + strings.Join(sorted, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return joinBounded(parts, maxConditionMessage/2)
}

// describeLeak names the cloud resources a private-link object recorded in
// its status, for a human to find and delete.
func describeLeak(obj client.Object, hc *hcplinkv1beta1.HostedCluster) string {
	var parts []string
	add := func(label, value string) {
		if value != "" {
			parts = append(parts, label+" "+value)
		}
	}
	where := ""
	switch o := obj.(type) {
	case *hcplinkv1beta1.AWSEndpointService:
		st := o.Status
		add("endpoint service", st.EndpointServiceName)
		add("VPC endpoint", st.EndpointID)
		add("security group", st.SecurityGroupID)
		if len(st.DNSNames) > 0 {
			records := "DNS records " + strings.Join(st.DNSNames, ", ")
			if st.DNSZoneID != "" {
				records += " in hosted zone " + st.DNSZoneID
			}
			parts = append(parts, records)
		}
		infraID := st.InfraID
		if infraID == "" {
			infraID = hc.Spec.InfraID
		}
		region := st.Region
		if region == "" && hc.Spec.Platform.AWS != nil {
			region = hc.Spec.Platform.AWS.Region
		}
		where = fmt.Sprintf(" (region %s, tagged %s)", region, hcplinkv1beta1.ClusterTagKey(infraID))
	case *hcplinkv1beta1.AzurePrivateLinkService:
		st := o.Status
		add("Private Link Service", st.PrivateLinkServiceID)
		add("Private Endpoint", st.PrivateEndpointID)
		if st.PrivateDNSZoneID != "" {
			add("Private DNS zone", st.PrivateDNSZoneID)
		} else {
			add("Private DNS zone", st.DNSZoneName)
		}
		if st.NATSubnetID != "" && !strings.EqualFold(st.NATSubnetID, o.Spec.NATSubnetID) {
			add("NAT subnet (created by hcplink)", st.NATSubnetID)
		}
		where = fmt.Sprintf(" (subscription %s, resource group %s)", o.Spec.SubscriptionID, o.Spec.ResourceGroupName)
	}
	if len(parts) == 0 {
		return kindOf(obj) + " " + obj.GetName() + where + ": no cloud resource IDs were recorded; look for resources tagged for the cluster"
	}
	return kindOf(obj) + " " + obj.GetName() + where + ": " + strings.Join(parts, ", ")
}

func kindOf(obj client.Object) string {
	return reflect.TypeOf(obj).Elem().Name()
}
