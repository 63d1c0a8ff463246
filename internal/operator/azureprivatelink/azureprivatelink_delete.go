package azureprivatelink

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// connectionRejected is Azure's status of a rejected connection.
const connectionRejected = "Rejected"

// natSubnetPrefix starts the names of the NAT subnets hcplink creates
// (azurecloud.NATSubnetName): no other subnet is ever deleted.
const natSubnetPrefix = "pls-nat-"

// reconcileDelete removes the Private Link Service once the control-plane
// operator has removed the customer side (its finalizer is gone): reject
// the connections left and remove them, delete the service, then the NAT
// subnet hcplink created, then drop the finalizer. While Azure refuses
// (credentials, throttling) the finalizer stays, looked at again after
// growing delays.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	cr := s.cr
	if res, over := reconcilekit.DeletionStart(cr, s.hc, r.Now(), func() { r.forget(cr) }); over {
		return res, nil
	}
	if reconcilekit.WaitsForControlPlane(cr) {
		return r.finish(ctx, s, outcome.Continue(), waitingForControlPlane())
	}
	if o := r.deleteService(ctx, s); !o.Done() {
		return r.finish(ctx, s, outcome.Continue(), o)
	}
	if o := r.deleteNATSubnet(ctx, s); !o.Done() {
		return r.finish(ctx, s, outcome.Continue(), o)
	}
	if err := r.writeStatus(ctx, s); err != nil {
		return r.finish(ctx, s, outcome.Continue(), outcome.FromError(err))
	}
	if err := kubepatch.Finalizers(ctx, r.Client, cr, func() { controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
		return r.finish(ctx, s, outcome.Continue(), outcome.FromError(err))
	}
	r.forget(cr)
	ctrl.LoggerFrom(ctx).Info("Private Link Service removed; finalizer dropped")
	return ctrl.Result{}, nil
}

// forget drops what the controller remembers of a deleted object.
func (r *Reconciler) forget(cr *hcplinkv1beta1.AzurePrivateLinkService) {
	r.Tracker.Forget(string(cr.UID))
	r.Tracker.Forget(string(cr.UID) + "/lb")
	r.frontends.Delete(cr.UID)
	r.natSubnets.Delete(cr.UID)
	r.releaseVNetTurn(cr.UID)
}

// deleteService deletes the object's service (the one in status, else
// pls-<clusterID> in the load balancer's resource group) unless it is not
// ours. Connections left are rejected first, so that their owners see
// why, then removed: Azure refuses to delete a service with connections.
func (r *Reconciler) deleteService(ctx context.Context, s *scope) outcome.Outcome {
	log := ctrl.LoggerFrom(ctx)
	rg, name := r.serviceLocation(s)
	if name == "" || rg == "" {
		log.Info("no Private Link Service recorded or findable; nothing to delete")
		return outcome.Continue()
	}
	pls, err := r.Cloud.PrivateLinkService(ctx, rg, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if pls == nil {
		r.Services.Forget(rg, name)
		s.status.PrivateLinkServiceID, s.status.PrivateLinkServiceAlias = "", ""
		return outcome.Continue()
	}
	if why := r.notOursBecause(pls, s); why != "" {
		log.Info("not deleting a Private Link Service that is not this object's", "privateLinkService", name, "why", why)
		return outcome.Continue()
	}
	if pls.Properties != nil && provisioning(pls.Properties.ProvisioningState) == armnetwork.ProvisioningStateDeleting {
		return deleting("Private Link Service " + name + " is being deleted")
	}
	if n, o := r.removeConnections(ctx, rg, pls); !o.Done() || n > 0 {
		if !o.Done() {
			return o
		}
		return connectionsPending(name, n)
	}
	gone, err := r.Cloud.DeletePrivateLinkService(ctx, rg, name)
	r.Services.Invalidate(rg, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if !gone {
		return deleting("Private Link Service " + name + " is being deleted")
	}
	log.Info("deleted the Private Link Service", "privateLinkService", name)
	r.Events.Deleted(s.cr, "Private Link Service", name)
	s.status.PrivateLinkServiceID, s.status.PrivateLinkServiceAlias = "", ""
	return outcome.Continue()
}

// removeConnections rejects every connection not yet rejected and starts
// removing each; n is how many the service still had.
func (r *Reconciler) removeConnections(ctx context.Context, rg string, pls *armnetwork.PrivateLinkService) (n int, o outcome.Outcome) {
	if pls.Properties == nil {
		return 0, outcome.Continue()
	}
	name := deref(pls.Name)
	for _, c := range pls.Properties.PrivateEndpointConnections {
		if c == nil {
			continue
		}
		n++
		if connectionStatus(c) != connectionRejected {
			if err := r.Cloud.RejectConnection(ctx, rg, name, c, "the cluster is being deleted"); err != nil {
				return n, outcome.FromError(err)
			}
			ctrl.LoggerFrom(ctx).Info("rejected a private endpoint connection", "privateLinkService", name, "connection", deref(c.Name))
		}
		if c.Properties != nil && provisioning(c.Properties.ProvisioningState) == armnetwork.ProvisioningStateDeleting {
			continue
		}
		if err := r.Cloud.DeleteConnection(ctx, rg, name, deref(c.Name)); err != nil {
			return n, outcome.FromError(err)
		}
	}
	return n, outcome.Continue()
}

func connectionStatus(c *armnetwork.PrivateEndpointConnection) string {
	if c.Properties == nil || c.Properties.PrivateLinkServiceConnectionState == nil {
		return ""
	}
	return deref(c.Properties.PrivateLinkServiceConnectionState.Status)
}

// serviceLocation is where the object's service is: the one in status,
// else pls-<clusterID> in the resource group of the load balancer in
// status, or in the management cluster's (where its load balancers, and
// so their services, are).
func (r *Reconciler) serviceLocation(s *scope) (rg, name string) {
	if id := s.status.PrivateLinkServiceID; id != "" {
		return azurecloud.ResourceGroupOf(id), lastSegment(id)
	}
	name = serviceName(s)
	if lb := s.status.InternalLoadBalancerID; lb != "" {
		return azurecloud.ResourceGroupOf(lb), name
	}
	return r.Cloud.LoadBalancers.ResourceGroup, name
}

// deleteNATSubnet, once the service that used it is gone, lets go of the
// NAT subnet status.natSubnetID records: a shared one is deleted when no
// other object uses it (deleteSharedNATSubnet); one of the object's own
// (made before subnets were shared) is deleted with it. Never one
// spec.natSubnetID names, never one whose name is not hcplink's; a subnet
// is never found by its name alone.
func (r *Reconciler) deleteNATSubnet(ctx context.Context, s *scope) outcome.Outcome {
	id := s.status.NATSubnetID
	if id == "" || strings.EqualFold(id, s.cr.Spec.NATSubnetID) {
		return outcome.Continue()
	}
	if r.sharedIndex(id) > 0 {
		return r.deleteSharedNATSubnet(ctx, s, id)
	}
	if !strings.HasPrefix(lastSegment(id), natSubnetPrefix) {
		return outcome.Continue()
	}
	gone, err := r.Cloud.DeleteSubnet(ctx, id)
	if err != nil {
		return outcome.FromError(err)
	}
	if !gone {
		return deleting("NAT subnet " + lastSegment(id) + " is being deleted")
	}
	ctrl.LoggerFrom(ctx).Info("deleted the NAT subnet hcplink created", "subnet", lastSegment(id))
	r.Events.Deleted(s.cr, "NAT subnet", lastSegment(id))
	s.status.NATSubnetID = ""
	return outcome.Continue()
}

// vnetOf is the VNet ID of a subnet ID.
func vnetOf(subnetID string) string {
	if i := strings.Index(strings.ToLower(subnetID), "/subnets/"); i >= 0 {
		return subnetID[:i]
	}
	return subnetID
}
