package azureprivatelink

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// scope is what one pass works with.
type scope struct {
	// client writes the CR's status and its ExternalName Services.
	client client.Client

	cr   *hcplinkv1beta1.AzurePrivateLinkService
	base *hcplinkv1beta1.AzurePrivateLinkService // status as last written
	hcp  *hcplinkv1beta1.HostedControlPlane      // nil when gone (deletion only)
	// The providers, in the customer's subscription.
	endpoints Endpoints
	dns       DNS
	// infraID names the cluster's resources; kept in the ownership tags.
	infraID string
}

// target is what the pass's end writes: the CR's status fields and its
// conditions.
func (s *scope) target() reconcilekit.Target {
	return reconcilekit.Target{Object: s.cr, Conditions: &s.cr.Status.Conditions, Key: string(s.cr.UID), Persist: s.persist}
}

// externalNames keeps the ExternalName Services of a Private cluster
// pointing at the private zone (see reconcilekit.ExternalNames); want nil
// deletes ours.
func (s *scope) externalNames(ctx context.Context, want map[string]string) error {
	return reconcilekit.ExternalNames(ctx, s.client, s.cr, "AzurePrivateLinkService", want, azurecloud.ExternalNameTarget(s.cr.Status.DNSZoneName))
}

// persist writes the status fields this controller owns (not conditions,
// not the operator's) when they changed since the last write.
func (s *scope) persist(ctx context.Context) error {
	want, have := s.cr.Status, s.base.Status
	if want.PrivateEndpointID == have.PrivateEndpointID && want.PrivateEndpointIP == have.PrivateEndpointIP &&
		want.PrivateDNSZoneID == have.PrivateDNSZoneID && want.DNSZoneName == have.DNSZoneName {
		return nil
	}
	if err := reconcilekit.PatchStatus(ctx, s.client, s.cr, "AzurePrivateLinkService", map[string]any{
		"privateEndpointID": reconcilekit.NullIfEmpty(want.PrivateEndpointID),
		"privateEndpointIP": reconcilekit.NullIfEmpty(want.PrivateEndpointIP),
		"privateDNSZoneID":  reconcilekit.NullIfEmpty(want.PrivateDNSZoneID),
		"dnsZoneName":       reconcilekit.NullIfEmpty(want.DNSZoneName),
	}); err != nil {
		return err
	}
	conds := s.base.Status.Conditions
	s.base = s.cr.DeepCopy()
	s.base.Status.Conditions = conds
	if !equality.Semantic.DeepEqual(s.cr.Status.Conditions, conds) {
		s.cr.Status.Conditions = conds
	}
	return nil
}

func (s *scope) endpointName() string { return azurecloud.PrivateEndpointName(s.infraID, s.cr.Name) }

func (s *scope) linkName() string { return azurecloud.VNetLinkName(s.infraID) }
