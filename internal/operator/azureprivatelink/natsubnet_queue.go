package azureprivatelink

import (
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Azure's network provider runs one operation at a time on a VNet and its
// subnets: a second subnet PUT while one runs is refused with
// AnotherOperationInProgress, and its retry costs a read of the subnet, a
// read of the VNet and the write again. So the NAT subnets this operator
// creates in one VNet take turns: while one of ours is being created
// there, the others wait for it, without asking Azure, and are woken when
// it ends. (Others hit the same rule: hashicorp/terraform-provider-azurerm#3780
// and #13726, which lock the VNet around subnet writes;
// Azure/terraform-provider-azapi#503.)

const (
	// vnetTurnsMaxHold bounds how long one creation holds a VNet's turn,
	// in case its object goes away mid-creation (Azure's subnet operations
	// take seconds).
	vnetTurnsMaxHold = 2 * time.Minute
	// vnetTurnsRecheck is a waiter's safety net: it is woken when the turn
	// is free, and looks again after this in case the wake-up was lost.
	vnetTurnsRecheck = 30 * time.Second
)

// vnetTurns is whose NAT subnet is being created in each VNet, and who
// waits.
type vnetTurns struct {
	mu      sync.Mutex
	holders map[string]vnetTurn                      // lower-cased VNet ID → holder
	waiting map[string]map[types.NamespacedName]bool // lower-cased VNet ID → waiters
}

type vnetTurn struct {
	uid   types.UID
	since time.Time
}

// take gives the object (uid, key) the VNet's turn if it is free (or its
// already); else the object waits, and is among those release returns.
func (t *vnetTurns) take(vnetID string, uid types.UID, key types.NamespacedName, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	vnet := strings.ToLower(vnetID)
	if h, held := t.holders[vnet]; held && h.uid != uid && now.Sub(h.since) < vnetTurnsMaxHold {
		if t.waiting == nil {
			t.waiting = map[string]map[types.NamespacedName]bool{}
		}
		if t.waiting[vnet] == nil {
			t.waiting[vnet] = map[types.NamespacedName]bool{}
		}
		t.waiting[vnet][key] = true
		return false
	}
	if t.holders == nil {
		t.holders = map[string]vnetTurn{}
	}
	if h, held := t.holders[vnet]; !held || h.uid != uid {
		t.holders[vnet] = vnetTurn{uid: uid, since: now}
	}
	delete(t.waiting[vnet], key)
	return true
}

// release frees every VNet uid holds and returns the objects that wait
// for them, to be woken.
func (t *vnetTurns) release(uid types.UID) []types.NamespacedName {
	t.mu.Lock()
	defer t.mu.Unlock()
	var wake []types.NamespacedName
	for vnet, h := range t.holders {
		if h.uid != uid {
			continue
		}
		delete(t.holders, vnet)
		for key := range t.waiting[vnet] {
			wake = append(wake, key)
		}
		delete(t.waiting, vnet)
	}
	return wake
}

// natSubnetQueued: another cluster's NAT subnet is being created in the
// same VNet; this one's follows when it ends.
func natSubnetQueued(name string) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
		"NAT subnet "+name+" waits for another cluster's NAT subnet in the same VNet (Azure changes one subnet of a VNet at a time).", vnetTurnsRecheck)
}
