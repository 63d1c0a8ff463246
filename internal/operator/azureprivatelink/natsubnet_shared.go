package azureprivatelink

import (
	"context"
	"net/netip"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// The Private Link Services of one management cluster share a NAT subnet
// per VNet (hcplink-nat-<management cluster>-<n>), as the cloud provider
// for Kubernetes shares one among its services: each service takes one
// address of it. Azure writes one subnet of a VNet at a time, so one
// subnet per cluster made clusters queue behind each other's subnet
// writes; shared, the first cluster makes it and the others use it
// without a call. When it is full a second is made, and so on.
//
// Ownership: Azure subnets carry no tags, so what makes a shared subnet
// ours is its name (it names this management cluster) and a record: every
// AzurePrivateLinkService that uses it names it in status.natSubnetID,
// written before the subnet is made. A subnet of our name that no record
// and no service of ours names was made by someone else: it is skipped,
// never used nor deleted. A shared subnet is deleted with the last object
// that records it (and Azure refuses while any service still uses it).

// natPool is what the operator knows of the shared NAT subnets of each
// VNet, learned from one read of the VNet per process.
type natPool struct {
	mu    sync.Mutex
	vnets map[string]*vnetNATs // lower-cased VNet ID
}

// vnetNATs are one VNet's shared NAT subnets.
type vnetNATs struct {
	// load is held while the VNet is read (one read however many workers
	// need it); read: the slots reflect that read.
	load sync.Mutex
	read bool
	// lastRead is the VNet as last read, until one of our subnet writes
	// makes it stale: a subnet to make is placed from it (a range taken
	// meanwhile by someone else makes Azure refuse, and the placement is
	// read afresh).
	lastRead *armnetwork.VirtualNetwork
	slots    map[int]*natSlot // by index, from 1
	// released are objects being deleted: their records no longer count
	// as users, even while a cache still shows them.
	released map[types.UID]bool
}

// natSlot is one shared NAT subnet.
type natSlot struct {
	state slotState
	// capacity is how many services it holds (its addresses).
	capacity int
	// token resumes its creation while that runs.
	token string
	// users are the objects this process gave it (their records may not
	// be in the cache yet).
	users map[types.UID]bool
}

type slotState int

const (
	// slotUnknown: not known to exist (absent, or not seen since a
	// failure): made or looked at when an object needs it.
	slotUnknown slotState = iota
	// slotReady: ours, provisioned.
	slotReady
	// slotForeign: a subnet of our name no record or service of ours
	// names: skipped, never used nor deleted.
	slotForeign
	// slotDeleting: being deleted with its last user: not given out.
	slotDeleting
)

// maxSharedNATSubnets bounds the search for a slot with room (Azure
// allows 3,000 subnets per VNet; a VNet's address space runs out first).
const maxSharedNATSubnets = 1000

func (p *natPool) vnet(id string) *vnetNATs {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.vnets == nil {
		p.vnets = map[string]*vnetNATs{}
	}
	key := strings.ToLower(id)
	v := p.vnets[key]
	if v == nil {
		v = &vnetNATs{slots: map[int]*natSlot{}, released: map[types.UID]bool{}}
		p.vnets[key] = v
	}
	return v
}

// slot is slot n (made unknown when new); p.mu held.
func (v *vnetNATs) slot(n, capacity int) *natSlot {
	s := v.slots[n]
	if s == nil {
		s = &natSlot{capacity: capacity, users: map[types.UID]bool{}}
		v.slots[n] = s
	}
	return s
}

// natBits is the size of the shared NAT subnets this operator makes.
func (r *Reconciler) natBits() int {
	if r.NATSubnetPrefixLength > 0 {
		return r.NATSubnetPrefixLength
	}
	return azurecloud.SharedNATSubnetPrefixLength
}

// sharedIndex is n when subnetID is this management cluster's n-th shared
// NAT subnet, else 0.
func (r *Reconciler) sharedIndex(subnetID string) int {
	return azurecloud.SharedNATSubnetIndex(r.ManagementClusterID, lastSegment(subnetID))
}

// recordedUsers are the objects of this management cluster by the NAT
// subnet their status records (lower-cased ID), from the cache.
func (r *Reconciler) recordedUsers(ctx context.Context) (map[string][]types.UID, error) {
	list := &hcplinkv1beta1.AzurePrivateLinkServiceList{}
	if err := r.Client.List(ctx, list); err != nil {
		return nil, err
	}
	out := map[string][]types.UID{}
	for i := range list.Items {
		if id := list.Items[i].Status.NATSubnetID; id != "" {
			key := strings.ToLower(id)
			out[key] = append(out[key], list.Items[i].UID)
		}
	}
	return out, nil
}

// usersOf counts the users of a slot: those this process gave it and
// those the records name, less the released; p.mu held.
func (v *vnetNATs) usersOf(s *natSlot, recorded []types.UID) int {
	users := map[types.UID]bool{}
	for uid := range s.users {
		users[uid] = true
	}
	for _, uid := range recorded {
		users[uid] = true
	}
	for uid := range v.released {
		delete(users, uid)
	}
	return len(users)
}

// ensureSharedNATSubnet gives the object a shared NAT subnet of the load
// balancer's VNet (the one its status records, else one with room,
// recorded before anything is made) and makes sure it exists.
func (r *Reconciler) ensureSharedNATSubnet(ctx context.Context, s *scope) outcome.Outcome {
	id := s.status.NATSubnetID
	vnetID := vnetOf(s.frontend.SubnetID)
	v := r.nat.vnet(vnetID)
	if id != "" {
		r.nat.mu.Lock()
		slot := v.slot(r.sharedIndex(id), azurecloud.SubnetCapacity(r.natBits()))
		slot.users[s.cr.UID] = true
		ready := slot.state == slotReady
		r.nat.mu.Unlock()
		if ready {
			return outcome.Continue()
		}
		if r.listedServiceUses(ctx, s, id) {
			r.nat.mu.Lock()
			slot.state = slotReady
			r.nat.mu.Unlock()
			return outcome.Continue()
		}
	}
	placeIn, err := r.readNATSubnets(ctx, s, v)
	if err != nil {
		return outcome.FromError(err)
	}
	if id == "" {
		var o outcome.Outcome
		if id, o = r.assignSharedNATSubnet(ctx, s, v, vnetID); !o.Done() {
			return o
		}
	}
	return r.makeSharedNATSubnet(ctx, s, v, id, placeIn)
}

// readNATSubnets reads the VNet once per process (every worker that needs
// it meanwhile waits for that one read) and learns which subnets of our
// names exist and are ours. placeIn is the VNet as this pass read it (nil
// when read earlier): a subnet to make is placed from it.
func (r *Reconciler) readNATSubnets(ctx context.Context, s *scope, v *vnetNATs) (placeIn *armnetwork.VirtualNetwork, err error) {
	v.load.Lock()
	defer v.load.Unlock()
	if v.read {
		return nil, nil
	}
	vnet, err := r.Cloud.NATSubnetVNet(ctx, s.frontend.SubnetID)
	if err != nil {
		return nil, err
	}
	recorded, err := r.recordedUsers(ctx)
	if err != nil {
		return nil, err
	}
	usedByOurs := r.subnetsOurServicesUse(ctx, s)
	r.nat.mu.Lock()
	defer r.nat.mu.Unlock()
	for _, sn := range vnet.Properties.Subnets {
		n := r.sharedIndex(deref(sn.ID))
		if n == 0 {
			continue
		}
		bits := r.natBits()
		if sn.Properties != nil && sn.Properties.AddressPrefix != nil {
			if p, err := netip.ParsePrefix(*sn.Properties.AddressPrefix); err == nil {
				bits = p.Bits()
			}
		}
		slot := v.slot(n, azurecloud.SubnetCapacity(bits))
		slot.capacity = azurecloud.SubnetCapacity(bits)
		key := strings.ToLower(deref(sn.ID))
		switch {
		case len(recorded[key]) == 0 && !usedByOurs[key]:
			slot.state = slotForeign
		case sn.Properties != nil && provisioning(sn.Properties.ProvisioningState) == armnetwork.ProvisioningStateSucceeded:
			slot.state = slotReady
		}
	}
	v.read, v.lastRead = true, vnet
	return vnet, nil
}

// subnetsOurServicesUse are the NAT subnets (lower-cased IDs) of the
// services tagged for this management cluster, from the shared listing.
func (r *Reconciler) subnetsOurServicesUse(ctx context.Context, s *scope) map[string]bool {
	out := map[string]bool{}
	all, err := r.Services.All(ctx, azurecloud.ResourceGroupOf(s.frontend.LoadBalancerID))
	if err != nil {
		return out
	}
	for _, pls := range all {
		if pls.Properties == nil || r.ManagementClusterID == "" || tagValue(pls.Tags, azurecloud.ManagementClusterTagKey) != r.ManagementClusterID {
			continue
		}
		for _, id := range natSubnetIDs(pls.Properties.IPConfigurations) {
			out[strings.ToLower(id)] = true
		}
	}
	return out
}

// assignSharedNATSubnet gives the object the first shared subnet with
// room (skipping ones not ours and ones being deleted) and records it in
// status before anything is made.
func (r *Reconciler) assignSharedNATSubnet(ctx context.Context, s *scope, v *vnetNATs, vnetID string) (string, outcome.Outcome) {
	recorded, err := r.recordedUsers(ctx)
	if err != nil {
		return "", outcome.FromError(err)
	}
	r.nat.mu.Lock()
	id, n := "", 0
	for i := 1; i <= maxSharedNATSubnets; i++ {
		slot := v.slot(i, azurecloud.SubnetCapacity(r.natBits()))
		candidate := vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(r.ManagementClusterID, i)
		if slot.state == slotForeign || slot.state == slotDeleting || v.usersOf(slot, recorded[strings.ToLower(candidate)]) >= slot.capacity {
			continue
		}
		slot.users[s.cr.UID] = true
		id, n = candidate, i
		break
	}
	r.nat.mu.Unlock()
	if id == "" {
		return "", natAddressSpaceExhausted()
	}
	s.status.NATSubnetID = id
	if err := r.writeStatus(ctx, s); err != nil {
		r.nat.mu.Lock()
		delete(v.slots[n].users, s.cr.UID)
		r.nat.mu.Unlock()
		s.status.NATSubnetID = ""
		return "", outcome.FromError(err)
	}
	return id, outcome.Continue()
}

// makeSharedNATSubnet makes the recorded shared subnet exist: nothing to
// do when it is known ready; else, in the VNet's turn, its creation is
// started or resumed from its token.
func (r *Reconciler) makeSharedNATSubnet(ctx context.Context, s *scope, v *vnetNATs, id string, placeIn *armnetwork.VirtualNetwork) outcome.Outcome {
	n := r.sharedIndex(id)
	r.nat.mu.Lock()
	slot := v.slot(n, azurecloud.SubnetCapacity(r.natBits()))
	state, token := slot.state, slot.token
	r.nat.mu.Unlock()
	name := lastSegment(id)
	switch state {
	case slotReady:
		return outcome.Continue()
	case slotForeign: // recorded before someone else made one of the name
		return natSubnetNameTaken(name)
	}
	vnetID := vnetOf(s.frontend.SubnetID)
	if !r.vnetTurns.take(vnetID, s.cr.UID, client.ObjectKeyFromObject(s.cr), r.Now()) {
		return sharedNATSubnetQueued(name)
	}
	if token == "" {
		// One read of the VNet says whether the subnet exists and, if
		// not, where it fits (the read this pass made, else a new one).
		if placeIn == nil {
			r.nat.mu.Lock()
			placeIn = v.lastRead
			r.nat.mu.Unlock()
		}
		if placeIn == nil {
			vnet, err := r.Cloud.NATSubnetVNet(ctx, s.frontend.SubnetID)
			if err != nil {
				r.releaseVNetTurn(s.cr.UID)
				return outcome.FromError(err)
			}
			placeIn = vnet
		}
		if existing := azurecloud.SubnetNamed(placeIn, name); existing != nil {
			r.releaseVNetTurn(s.cr.UID)
			if existing.Properties != nil && provisioning(existing.Properties.ProvisioningState) == armnetwork.ProvisioningStateSucceeded {
				r.nat.mu.Lock()
				slot.state = slotReady
				r.nat.mu.Unlock()
				return outcome.Continue()
			}
			return natSubnetCreating(name, 0)
		}
		ctrl.LoggerFrom(ctx).Info("creating the shared NAT subnet", "subnet", name)
		r.Events.Created(s.cr, "NAT subnet", name)
	} else {
		placeIn = nil
	}
	callCtx, retryAfter := azurecloud.CaptureRetryAfter(ctx)
	subnet, next, err := r.Cloud.EnsureNATSubnet(callCtx, s.frontend.SubnetID, name, r.natBits(), token, placeIn)
	r.nat.mu.Lock()
	slot.token, v.lastRead = next, nil
	if err == nil && next == "" && subnet.Properties != nil && provisioning(subnet.Properties.ProvisioningState) == armnetwork.ProvisioningStateSucceeded {
		slot.state = slotReady
	}
	r.nat.mu.Unlock()
	if err != nil || next == "" {
		r.releaseVNetTurn(s.cr.UID)
	}
	if err != nil {
		if codeOf(err) == azurecloud.CodeNoFreeAddressSpace {
			return natAddressSpaceExhausted()
		}
		return outcome.FromError(err)
	}
	if subnet.Properties != nil && provisioning(subnet.Properties.ProvisioningState) == armnetwork.ProvisioningStateUpdating {
		return natSubnetCreating(name, retryAfter())
	}
	return outcome.Continue()
}

// forgetNATSubnet: Azure refused a service on the subnet; it is looked at
// again on the next pass.
func (r *Reconciler) forgetNATSubnet(id string) {
	if n := r.sharedIndex(id); n > 0 {
		v := r.nat.vnet(vnetOf(id))
		r.nat.mu.Lock()
		if slot := v.slots[n]; slot != nil && slot.state == slotReady {
			slot.state = slotUnknown
		}
		v.lastRead = nil
		r.nat.mu.Unlock()
	}
}

// deleteSharedNATSubnet deletes the object's shared NAT subnet when no
// other object records it (or was given it) any more; otherwise the
// object lets go of it. A service of anyone still on it makes Azure
// refuse the deletion: then it is left.
func (r *Reconciler) deleteSharedNATSubnet(ctx context.Context, s *scope, id string) outcome.Outcome {
	log := ctrl.LoggerFrom(ctx)
	n := r.sharedIndex(id)
	v := r.nat.vnet(vnetOf(id))
	recorded, err := r.recordedUsers(ctx)
	if err != nil {
		return outcome.FromError(err)
	}
	r.nat.mu.Lock()
	v.released[s.cr.UID] = true
	for uid := range v.released { // those gone from the records are gone for good
		if !recordedAnywhere(recorded, uid) && uid != s.cr.UID {
			delete(v.released, uid)
		}
	}
	slot := v.slot(n, azurecloud.SubnetCapacity(r.natBits()))
	delete(slot.users, s.cr.UID)
	if slot.state == slotForeign || v.usersOf(slot, recorded[strings.ToLower(id)]) > 0 {
		r.nat.mu.Unlock()
		log.Info("leaving the shared NAT subnet to the clusters still using it", "subnet", lastSegment(id))
		s.status.NATSubnetID = ""
		return outcome.Continue()
	}
	slot.state = slotDeleting
	r.nat.mu.Unlock()

	gone, err := r.Cloud.DeleteSubnet(ctx, id)
	r.nat.mu.Lock()
	switch {
	case err != nil:
		slot.state = slotUnknown
	case gone:
		delete(v.slots, n)
		v.lastRead = nil
	}
	r.nat.mu.Unlock()
	if codeOf(err) == codeInUseSubnetCannotBeDeleted {
		log.Info("the shared NAT subnet is still in use by a Private Link Service; leaving it", "subnet", lastSegment(id))
		s.status.NATSubnetID = ""
		return outcome.Continue()
	}
	if err != nil {
		return outcome.FromError(err)
	}
	if !gone {
		return deleting("NAT subnet " + lastSegment(id) + " is being deleted")
	}
	log.Info("deleted the shared NAT subnet; no cluster uses it any more", "subnet", lastSegment(id))
	r.Events.Deleted(s.cr, "NAT subnet", lastSegment(id))
	s.status.NATSubnetID = ""
	return outcome.Continue()
}

// codeInUseSubnetCannotBeDeleted is Azure's refusal to delete a subnet
// that still holds an IP configuration (a Private Link Service's NAT
// address among them).
const codeInUseSubnetCannotBeDeleted = "InUseSubnetCannotBeDeleted"

// codeOf is the code of a classified error, else Azure's.
func codeOf(err error) string {
	if e, ok := cloud.AsError(err); ok && e.Code != "" {
		return e.Code
	}
	return azurecloud.ErrorCode(err)
}

func recordedAnywhere(recorded map[string][]types.UID, uid types.UID) bool {
	for _, uids := range recorded {
		for _, u := range uids {
			if u == uid {
				return true
			}
		}
	}
	return false
}

// natAddressSpaceExhausted: no shared NAT subnet has room and the VNet
// has no free range for another.
func natAddressSpaceExhausted() outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.NATAddressSpaceExhaustedReason,
		"The management VNet has no free address range for another NAT subnet, and hcplink's NAT subnets in it are full; add an address range to the VNet, or give the cluster a NAT subnet of your own (natSubnetID).")
}

// sharedNATSubnetQueued: another cluster is making the shared NAT subnet
// (or another of ours in the VNet); this one is woken when that ends.
func sharedNATSubnetQueued(name string) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
		"Waiting for another cluster to finish creating NAT subnet "+name+", which the clusters of this management cluster share (Azure changes one subnet of a VNet at a time).", vnetTurnsRecheck)
}
