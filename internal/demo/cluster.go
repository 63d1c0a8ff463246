package demo

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// The steps both clouds' tours share.

// changeCluster reads hc afresh, applies change and merge-patches it (the
// operators write its status meanwhile), then prints "  ~ field: value".
func changeCluster(ctx context.Context, c client.Client, hc *hcplinkv1beta1.HostedCluster, out io.Writer, field, value string, change func(*hcplinkv1beta1.HostedCluster)) error {
	if err := c.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
		return err
	}
	patch := client.MergeFrom(hc.DeepCopy())
	change(hc)
	if err := c.Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("setting %s to %s: %w", field, value, err)
	}
	fmt.Fprintf(out, "  ~ %s: %s\n", field, value)
	return nil
}

// deleteCluster deletes the cluster, waits until it and its control-plane
// namespace are gone, and prints the cloud's timing table.
func deleteCluster(ctx context.Context, c client.Client, track *tracker, hc *hcplinkv1beta1.HostedCluster, hcpNS, cloud string) error {
	if err := c.Delete(ctx, hc); err != nil {
		return fmt.Errorf("deleting the HostedCluster: %w", err)
	}
	if err := track.wait(ctx, step{"HostedCluster and its control-plane namespace gone", func(ctx context.Context) (string, error) {
		return clusterGone(ctx, c, hc, hcpNS)
	}}); err != nil {
		return err
	}
	fmt.Fprintf(track.out, "\n%s: timing\n", cloud)
	track.summary()
	return nil
}

// clusterGone holds once the HostedCluster and its control-plane namespace
// no longer exist.
func clusterGone(ctx context.Context, c client.Client, hc *hcplinkv1beta1.HostedCluster, hcpNS string) (string, error) {
	if err := c.Get(ctx, client.ObjectKeyFromObject(hc), &hcplinkv1beta1.HostedCluster{}); !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("HostedCluster still exists")
	}
	if err := c.Get(ctx, types.NamespacedName{Name: hcpNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("namespace %s still exists", hcpNS)
	}
	return "", nil
}
