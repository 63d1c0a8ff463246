package awsprivatelink

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// scope is what one pass works with.
type scope struct {
	// client writes the CR's status and annotations.
	client client.Client

	cr   *hcplinkv1beta1.AWSEndpointService
	base *hcplinkv1beta1.AWSEndpointService // status as last written
	hcp  *hcplinkv1beta1.HostedControlPlane // nil when gone (deletion only)

	// The providers, in the region kept in status.
	groups    awscloud.SecurityGroups
	endpoints awscloud.VPCEndpoints
	records   awscloud.Records

	// notes are what the ready message must add (zones not reached).
	notes []string
	// missingSubnets are NodePool subnets that no longer exist.
	missingSubnets []string
	// otherVPCSubnets are NodePool subnets of another VPC than the
	// cluster's: an endpoint cannot have a network interface there.
	otherVPCSubnets []string
}

func (s *scope) infraID() string { return s.cr.Status.InfraID }

func (s *scope) vpcID() string { return s.cr.Status.VPCID }

// desiredTags are resourceTags plus the ownership tags.
func (s *scope) desiredTags(extra map[string]string) map[string]string {
	return awscloud.ResourceTags(s.cr.Spec.ResourceTags, s.infraID(), s.cr.Name, extra)
}

// managedTag says whether we may remove a tag key: ours, or a resourceTags
// key we put there earlier.
func (s *scope) managedTag(key string) bool {
	if _, ok := awscloud.OwnershipTags(s.infraID(), s.cr.Name)[key]; ok {
		return true
	}
	for _, k := range strings.Split(s.cr.Annotations[ResourceTagKeysAnnotation], ",") {
		if k != "" && k == key {
			return true
		}
	}
	return false
}

// ownFilters select this CR's resources: the ownership pair, in the VPC.
func (s *scope) ownFilters() []ec2types.Filter {
	f := awscloud.OwnershipFilters(s.infraID(), s.cr.Name)
	if s.vpcID() != "" {
		f = append(f, awscloud.Filter("vpc-id", s.vpcID()))
	}
	return f
}

func (r *Reconciler) newScope(cr *hcplinkv1beta1.AWSEndpointService, hcp *hcplinkv1beta1.HostedControlPlane) *scope {
	return &scope{client: r.Client, cr: cr, base: cr.DeepCopy(), hcp: hcp}
}

// useRegion points the providers at the region kept in status.
func (r *Reconciler) useRegion(s *scope) {
	s.groups = awscloud.SecurityGroups{EC2: r.EC2, Region: s.cr.Status.Region}
	s.endpoints = awscloud.VPCEndpoints{EC2: r.EC2, Region: s.cr.Status.Region}
	s.records = awscloud.Records{Route53: r.Route53}
}

// target is what the pass's end writes: the CR's status fields and its
// condition.
func (s *scope) target() reconcilekit.Target {
	return reconcilekit.Target{Object: s.cr, Conditions: &s.cr.Status.Conditions, Key: string(s.cr.UID), Persist: s.persist}
}

// persist writes the status fields this controller owns (not conditions)
// when they changed since the last write.
func (s *scope) persist(ctx context.Context) error {
	want, have := s.cr.Status.DeepCopy(), s.base.Status.DeepCopy()
	want.Conditions, have.Conditions = nil, nil
	want.EndpointServiceName, have.EndpointServiceName = "", ""
	if equality.Semantic.DeepEqual(want, have) {
		return nil
	}
	// A merge patch merges maps: keys no longer wanted are sent as null.
	zones := map[string]any{}
	for k := range have.SubnetZoneIDs {
		zones[k] = nil
	}
	for k, v := range want.SubnetZoneIDs {
		zones[k] = v
	}
	if err := reconcilekit.PatchStatus(ctx, s.client, s.cr, "AWSEndpointService", map[string]any{
		"endpointID":      reconcilekit.NullIfEmpty(want.EndpointID),
		"dnsNames":        want.DNSNames,
		"dnsZoneID":       reconcilekit.NullIfEmpty(want.DNSZoneID),
		"securityGroupID": reconcilekit.NullIfEmpty(want.SecurityGroupID),
		"region":          reconcilekit.NullIfEmpty(want.Region),
		"infraID":         reconcilekit.NullIfEmpty(want.InfraID),
		"vpcID":           reconcilekit.NullIfEmpty(want.VPCID),
		"subnetZoneIDs":   zones,
	}); err != nil {
		return err
	}
	conds := s.base.Status.Conditions
	s.base = s.cr.DeepCopy()
	s.base.Status.Conditions = conds
	s.cr.Status.Conditions = conds
	return nil
}

// patchAnnotation sets (or removes, when value is "") one annotation.
func (s *scope) patchAnnotation(ctx context.Context, key, value string) error {
	cr := s.cr
	if cr.Annotations[key] == value {
		return nil
	}
	var v any = value
	if value == "" {
		v = nil
	}
	raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if err := s.client.Patch(ctx, cr, client.RawPatch(types.MergePatchType, raw)); err != nil {
		return fmt.Errorf("writing annotation %s: %w", key, err)
	}
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	if value == "" {
		delete(cr.Annotations, key)
	} else {
		cr.Annotations[key] = value
	}
	return nil
}

// recordTagKeys remembers the resourceTags keys now on the resources.
func (s *scope) recordTagKeys(ctx context.Context) error {
	keys := make([]string, 0, len(s.cr.Spec.ResourceTags))
	for _, t := range s.cr.Spec.ResourceTags {
		keys = append(keys, t.Key)
	}
	sort.Strings(keys)
	return s.patchAnnotation(ctx, ResourceTagKeysAnnotation, strings.Join(keys, ","))
}

// tokenGeneration is the generation of the VPC endpoint's ClientToken.
func (s *scope) tokenGeneration() int64 {
	g, _ := strconv.ParseInt(s.cr.Annotations[TokenGenerationAnnotation], 10, 64)
	return g
}

// externalNames keeps the ExternalName Services of the private-router CR
// pointing at target (see reconcilekit.ExternalNames); other CRs have none.
func (s *scope) externalNames(ctx context.Context, target string) error {
	if s.cr.Name != hcplinkv1beta1.PrivateRouterServiceName {
		return nil
	}
	return reconcilekit.ExternalNames(ctx, s.client, s.cr, "AWSEndpointService", hcplinkv1beta1.AWSExternalNames(s.hcp), target)
}
