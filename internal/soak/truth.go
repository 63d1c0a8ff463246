package soak

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Conditions that were False with a reason not true at the time. The one
// the soak can judge honestly is permission refused: the only credentials
// it revokes are one cluster's, in known windows, and cloudsim's faults
// never answer AccessDenied. So an AccessDenied (or InvalidCredentials)
// that a condition took on outside its cluster's revocation windows — or
// on a cluster never revoked — said something untrue.

// deniedReasons are the reasons that say the cloud refused the credentials.
var deniedReasons = map[string]bool{hcplinkv1beta1.AccessDeniedReason: true, hcplinkv1beta1.InvalidCredentialsReason: true}

// truthSlack: a call sent just before credentials were restored may be
// refused and reported a few seconds after, and the samples are pollEvery
// apart.
const truthSlack = 15 * time.Second

// deniedAt is one condition that turned to a permission refusal.
type deniedAt struct {
	cluster, object, condType, message string
	at                                 time.Time
}

// truthWatch samples the conditions of the clusters' objects and keeps
// every permission refusal once, at the time it was first seen: a
// condition's lastTransitionTime moves only when its status does, so a
// condition False for another reason that turns AccessDenied keeps the
// earlier time.
type truthWatch struct {
	client   client.Client
	clusters map[string]string // namespace (the cluster's or its control plane's) → cluster namespace
	now      func() time.Time

	mu      sync.Mutex
	seen    map[string]deniedAt
	current map[string]string // object and condition type → the key in seen of the refusal it shows now
}

func newTruthWatch(c client.Client, clusters []*cluster) *truthWatch {
	t := &truthWatch{client: c, clusters: map[string]string{}, now: time.Now, seen: map[string]deniedAt{}, current: map[string]string{}}
	for _, cl := range clusters {
		t.clusters[cl.namespace] = cl.namespace
		t.clusters[cl.hcpNamespace()] = cl.namespace
	}
	return t
}

// run samples every pollEvery until ctx ends.
func (t *truthWatch) run(ctx context.Context) {
	for {
		t.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pollEvery):
		}
	}
}

func (t *truthWatch) sample(ctx context.Context) {
	now := t.now()
	note := func(kind, namespace, name string, conds []metav1.Condition) {
		t.observe(now, kind+" "+namespace+"/"+name, namespace, conds)
	}
	var hcs hcplinkv1beta1.HostedClusterList
	if t.client.List(ctx, &hcs) == nil {
		for _, o := range hcs.Items {
			note("HostedCluster", o.Namespace, o.Name, o.Status.Conditions)
		}
	}
	var nps hcplinkv1beta1.NodePoolList
	if t.client.List(ctx, &nps) == nil {
		for _, o := range nps.Items {
			note("NodePool", o.Namespace, o.Name, o.Status.Conditions)
		}
	}
	var aes hcplinkv1beta1.AWSEndpointServiceList
	if t.client.List(ctx, &aes) == nil {
		for _, o := range aes.Items {
			note("AWSEndpointService", o.Namespace, o.Name, o.Status.Conditions)
		}
	}
	var pscs hcplinkv1beta1.GCPPrivateServiceConnectList
	if t.client.List(ctx, &pscs) == nil {
		for _, o := range pscs.Items {
			note("GCPPrivateServiceConnect", o.Namespace, o.Name, o.Status.Conditions)
		}
	}
	var pls hcplinkv1beta1.AzurePrivateLinkServiceList
	if t.client.List(ctx, &pls) == nil {
		for _, o := range pls.Items {
			note("AzurePrivateLinkService", o.Namespace, o.Name, o.Status.Conditions)
		}
	}
}

// untrue lists the refusals that no revocation window of their cluster
// explains.
func (t *truthWatch) untrue(windows map[string][]window) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, d := range t.seen {
		if !explained(d, windows[d.cluster]) {
			out = append(out, fmt.Sprintf("%s: %s at %s, while its credentials were granted (%q)", d.object, d.condType, d.at.UTC().Format(time.RFC3339), d.message))
		}
	}
	sort.Strings(out)
	return out
}

// explained: the refusal was first seen inside one of the windows (or
// within truthSlack after it ended).
func explained(d deniedAt, windows []window) bool {
	for _, w := range windows {
		if !d.at.Before(w.from) && !d.at.After(w.to.Add(truthSlack)) {
			return true
		}
	}
	return false
}

// observe notes the refusals among an object's conditions as seen at now.
func (t *truthWatch) observe(now time.Time, object, namespace string, conds []metav1.Condition) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range conds {
		slot := object + " " + c.Type
		if c.Status != metav1.ConditionFalse || !deniedReasons[c.Reason] {
			delete(t.current, slot) // the refusal, if any, is over
			continue
		}
		if _, ok := t.current[slot]; ok {
			continue // the same refusal, seen before
		}
		key := fmt.Sprintf("%s %s", slot, now.UTC().Format(time.RFC3339Nano))
		t.current[slot] = key
		t.seen[key] = deniedAt{cluster: t.clusters[namespace], object: object, condType: c.Type + "=" + c.Reason, message: c.Message, at: now}
	}
}
