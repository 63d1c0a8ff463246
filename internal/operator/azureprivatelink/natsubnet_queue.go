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
// there, the others wait for it, without asking Azure. (Others hit the
// same rule: hashicorp/terraform-provider-azurerm#3780 and #13726, which
// lock the VNet around subnet writes; Azure/terraform-provider-azapi#503.)

// vnetTurnsMaxHold bounds how long one creation holds a VNet's turn, in
// case its object goes away mid-creation (Azure's subnet operations take
// seconds).
const vnetTurnsMaxHold = 2 * time.Minute

// vnetTurns is whose NAT subnet is being created in each VNet.
type vnetTurns struct {
	mu      sync.Mutex
	holders map[string]vnetTurn // lower-cased VNet ID → holder
}

type vnetTurn struct {
	uid   types.UID
	since time.Time
	// next is when the holder looks at its operation again (Azure's
	// Retry-After): when the others look whether the VNet is free.
	next time.Duration
}

// take gives uid the VNet's turn if it is free (or uid's already); else it
// reports how long to wait.
func (t *vnetTurns) take(vnetID string, uid types.UID, now time.Time) (wait time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := strings.ToLower(vnetID)
	h, held := t.holders[key]
	if held && h.uid != uid && now.Sub(h.since) < vnetTurnsMaxHold {
		return h.next, false
	}
	if t.holders == nil {
		t.holders = map[string]vnetTurn{}
	}
	t.holders[key] = vnetTurn{uid: uid, since: now}
	return 0, true
}

// hold records that uid's creation runs, looked at again after next.
func (t *vnetTurns) hold(vnetID string, uid types.UID, now time.Time, next time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.holders == nil {
		t.holders = map[string]vnetTurn{}
	}
	key := strings.ToLower(vnetID)
	since := now
	if h, ok := t.holders[key]; ok && h.uid == uid {
		since = h.since
	}
	t.holders[key] = vnetTurn{uid: uid, since: since, next: next}
}

// release frees every VNet uid holds.
func (t *vnetTurns) release(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, h := range t.holders {
		if h.uid == uid {
			delete(t.holders, k)
		}
	}
}

// natSubnetQueued: another cluster's NAT subnet is being created in the
// same VNet; this one's follows.
func natSubnetQueued(name string, wait time.Duration) outcome.Outcome {
	return outcome.Wait(hcplinkv1beta1.WaitingForPrivateLinkServiceReason,
		"NAT subnet "+name+" waits for another cluster's NAT subnet in the same VNet (Azure changes one subnet of a VNet at a time).", nextLook(wait))
}
