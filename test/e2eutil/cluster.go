package e2eutil

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Cluster is one scenario's HostedCluster as every suite handles it: read,
// patched, waited for, deleted, and its control-plane namespace's
// ExternalName Services listed. A suite embeds it beside what it prepared
// in the cloud for the cluster.
type Cluster struct {
	Suite           *Suite
	Namespace, Name string
	// HCPNamespace is the control-plane namespace, where the private-link
	// object and the Services live.
	HCPNamespace string
}

// NewCluster names a scenario's cluster in namespace.
func NewCluster(s *Suite, namespace, name string) Cluster {
	return Cluster{Suite: s, Namespace: namespace, Name: name, HCPNamespace: hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name)}
}

// Get reads the HostedCluster.
func (c *Cluster) Get(ctx context.Context) (*hcplinkv1beta1.HostedCluster, error) {
	hc := &hcplinkv1beta1.HostedCluster{}
	return hc, c.Suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name}, hc)
}

// Patch applies a merge patch to the HostedCluster's spec (the operators
// write status meanwhile, so no read-then-update).
func (c *Cluster) Patch(t *testing.T, change func(hc *hcplinkv1beta1.HostedCluster)) {
	t.Helper()
	ctx := context.Background()
	hc, err := c.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orig := hc.DeepCopy()
	change(hc)
	if err := c.Suite.Env.Client.Patch(ctx, hc, client.MergeFrom(orig)); err != nil {
		t.Fatalf("changing HostedCluster %s: %v", c.Name, err)
	}
}

// WaitAvailable waits until the cluster is Available with its private path
// (over, "Private Link"), which privateCondition says.
func (c *Cluster) WaitAvailable(t *testing.T, over, privateCondition string) {
	t.Helper()
	c.Suite.Eventually(t, LongWait, "HostedCluster "+c.Name+" to be available over "+over, func(ctx context.Context) error {
		hc, err := c.Get(ctx)
		if err != nil {
			return err
		}
		if err := ConditionIs(hc.Status.Conditions, privateCondition, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		return ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue, "")
	})
}

// ExternalNames lists the ExternalName Services of the control-plane
// namespace, by name.
func (c *Cluster) ExternalNames(ctx context.Context) (map[string]string, error) {
	var list corev1.ServiceList
	if err := c.Suite.Env.Client.List(ctx, &list, client.InNamespace(c.HCPNamespace)); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range list.Items {
		if s.Spec.Type == corev1.ServiceTypeExternalName {
			out[s.Name] = s.Spec.ExternalName
		}
	}
	return out, nil
}

// DeleteAndWait deletes the HostedCluster and waits until it is gone.
func (c *Cluster) DeleteAndWait(t *testing.T) {
	t.Helper()
	hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if err := c.Suite.Env.Client.Delete(context.Background(), hc); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting HostedCluster %s: %v", c.Name, err)
	}
	c.Suite.Eventually(t, LongWait, "HostedCluster "+c.Name+" to be deleted", func(ctx context.Context) error {
		if _, err := c.Get(ctx); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})
}
