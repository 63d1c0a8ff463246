package gcpprivateserviceconnect

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/api/compute/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// ruleRef is the router's forwarding rule as the controller remembers it.
type ruleRef struct {
	Name, Link, IP string
}

// waitPending waits once on the operation a former pass started (Google's
// wait holds the call until it is done, within the provider's per-call
// timeout). Still running: look again shortly. Failed: the error's
// outcome, and the next pass reads the resource afresh.
func (r *Reconciler) waitPending(ctx context.Context, s *scope) outcome.Outcome {
	v, ok := r.pending.Load(s.cr.UID)
	if !ok {
		return outcome.Continue()
	}
	op := v.(gcpcloud.Operation)
	done, err := r.Cloud.Operations.Wait(ctx, op)
	if err != nil {
		r.pending.Delete(s.cr.UID)
		r.fresh.Delete(s.cr.UID)
		r.claims.release(s.cr.UID)
		return outcome.FromError(err)
	}
	if !done.Done {
		return operationRunning(op.Doing)
	}
	r.pending.Delete(s.cr.UID)
	return outcome.Continue()
}

// started keeps the operation a change answered, for the next pass to
// wait on; an adopted resource (the zero Operation) is read next pass.
func (r *Reconciler) started(s *scope, doing string, op gcpcloud.Operation, err error) outcome.Outcome {
	if err != nil {
		return outcome.FromError(err)
	}
	r.keep(s, op)
	return operationRunning(doing)
}

// keep remembers an operation that is not done, for the next pass.
func (r *Reconciler) keep(s *scope, op gcpcloud.Operation) {
	if !op.IsZero() && !op.Done {
		r.pending.Store(s.cr.UID, op)
	}
}

// ensureRule finds the INTERNAL forwarding rule holding
// spec.loadBalancerIP in the management network, once: later passes reuse
// it while the address stays. The listing of the network's internal rules
// is shared by the routers found within ruleListingTTL.
func (r *Reconciler) ensureRule(ctx context.Context, s *scope) outcome.Outcome {
	ip := s.cr.Spec.LoadBalancerIP
	if ip == "" {
		return waitingForIP()
	}
	if v, ok := r.rules.Load(s.cr.UID); ok && v.(ruleRef).IP == ip {
		rule := v.(ruleRef)
		s.rule, s.status.ForwardingRuleName = &rule, rule.Name
		return outcome.Continue()
	}
	var fr *compute.ForwardingRule
	for fresh := false; ; fresh = true {
		rules, cached, err := r.routerRules.get(ctx, r.Cloud.RouterRules.ListInternal, r.Now(), ruleListingTTL, fresh)
		if err != nil {
			return outcome.FromError(err)
		}
		fr, err = gcpcloud.RuleByIP(rules, ip)
		if (err != nil || fr == nil) && cached {
			continue // perhaps made or changed since the shared listing
		}
		if err != nil {
			return outcome.FromError(err)
		}
		if fr == nil {
			return ruleNotFound(ip, r.Network, r.Region)
		}
		break
	}
	rule := ruleRef{Name: fr.Name, Link: fr.SelfLink, IP: ip}
	r.rules.Store(s.cr.UID, rule)
	s.rule, s.status.ForwardingRuleName = &rule, rule.Name
	return outcome.Continue()
}

// ensureAttachment makes the service attachment what it must be: created
// when absent (again when it was deleted behind hcplink's back), adopted
// when it exists with this cluster's marker (created before a lost status
// write), its accept list put back when it differs, pending connections
// from projects off the list rejected. One read when nothing changed.
func (r *Reconciler) ensureAttachment(ctx context.Context, s *scope) outcome.Outcome {
	log := ctrl.LoggerFrom(ctx)
	name := r.attachmentName(s)
	if o, ok := r.freshlyMade(ctx, s, name); ok {
		return o
	}
	if r.unknownAttachment(s) {
		// Nothing says it exists: insert at once. An insert that meets an
		// attachment of the name adopts it when it is ours (read on the
		// next pass) and refuses it when not, so a read first would only
		// cost a call for every new cluster.
		return r.createAttachment(ctx, s, name)
	}
	sa, err := r.readAttachment(ctx, s, name)
	if err != nil {
		return outcome.FromError(err)
	}
	s.status.EndpointConnection = endpointConnection(sa, s.cr)
	if sa == nil {
		if s.status.ServiceAttachmentName != "" {
			log.Info("the service attachment recorded in status no longer exists; creating it again", "serviceAttachment", name)
			s.status.ServiceAttachmentName, s.status.ServiceAttachmentURI = "", ""
			name = gcpcloud.ServiceAttachmentName(r.owner(s))
		}
		return r.createAttachment(ctx, s, name)
	}
	if why := r.notOursBecause(sa, s); why != "" {
		return notOurs(name, why)
	}
	if target := gcpcloud.RelativeName(sa.TargetService); target != gcpcloud.RelativeName(s.rule.Link) {
		return r.replaceAttachment(ctx, s, sa, s.rule.Name)
	}
	if made, _ := r.created.LoadAndDelete(s.cr.UID); s.status.ServiceAttachmentName == "" && made != name {
		log.Info("adopting the service attachment marked for this object", "serviceAttachment", name)
		r.Events.Adopted(s.cr, "service attachment", name)
	}
	r.claims.made(s.cr.UID, r.Now())
	s.status.ServiceAttachmentName = sa.Name
	s.status.ServiceAttachmentURI = gcpcloud.RelativeName(sa.SelfLink)
	s.status.NATSubnets = lastSegments(sa.NatSubnets)

	want := desiredConsumers(s.hc, s.cr)
	if !gcpcloud.ConnectionPolicyHolds(sa, want) {
		log.Info("the connection policy differs; putting it back", "serviceAttachment", name,
			"have", projectsOf(gcpcloud.ConsumersOf(sa)), "want", projectsOf(want),
			"reconcileConnections", sa.ReconcileConnections, "rejected", sa.ConsumerRejectLists)
		doing := "updating the accept list of service attachment " + name
		r.attachments.forget(name)
		op, err := r.Cloud.ServiceAttachments.SetConsumers(ctx, sa, want)
		return r.started(s, doing, op, err)
	}
	if foreign := gcpcloud.ForeignProjects(sa); len(foreign) > 0 {
		// The attachment serves the cluster meanwhile: the condition stays
		// True, and the next pass waits on the rejection.
		r.attachments.forget(name)
		op, err := r.Cloud.ServiceAttachments.RejectProjects(ctx, sa, foreign)
		if err != nil {
			return outcome.FromError(err)
		}
		log.Info("rejected pending connections from projects not on the accept list", "serviceAttachment", name, "projects", foreign)
		r.Events.Warning(s.cr, hcplinkv1beta1.ConnectionNotAllowedReason, "RejectConnection", rejectedNote(name, foreign))
		r.keep(s, op)
	}
	return outcome.Ready(hcplinkv1beta1.GCPSuccessReason, readyMessage(name, s.status.ForwardingRuleName, len(want)), r.DriftInterval)
}

// unknownAttachment reports whether nothing says the object's
// attachment exists: status names none, and this process has not
// inserted one for it (made, or an existing one adopted).
func (r *Reconciler) unknownAttachment(s *scope) bool {
	if s.status.ServiceAttachmentName != "" {
		return false
	}
	_, inserted := r.created.Load(s.cr.UID)
	return !inserted
}

// readAttachment reads the object's attachment: from the fleet's shared
// listing when status says it exists and the listed copy is as it must be
// (the drift check of a healthy attachment), else by a read of its own — a
// new attachment, one the listing misses, or one to be written, whose
// write needs the fingerprint of a fresh read. nil: it does not exist.
func (r *Reconciler) readAttachment(ctx context.Context, s *scope, name string) (*compute.ServiceAttachment, error) {
	if s.status.ServiceAttachmentName == name {
		list := func(ctx context.Context) ([]*compute.ServiceAttachment, error) {
			return r.Cloud.ServiceAttachments.ListOwned(ctx, r.ManagementClusterID)
		}
		sa, ok, err := r.attachments.listed(ctx, list, r.Now(), r.listingTTL(), name)
		if err != nil {
			return nil, err
		}
		if ok && r.notOursBecause(sa, s) == "" && gcpcloud.ConnectionPolicyHolds(sa, desiredConsumers(s.hc, s.cr)) && len(gcpcloud.ForeignProjects(sa)) == 0 {
			return sa, nil
		}
	}
	return r.Cloud.ServiceAttachments.Get(ctx, name)
}

// listingTTL is how long one listing serves the fleet's drift checks: a
// little less than the shortest jittered interval (-15 %), so that each
// object's drift check sees a listing made since its last one and drift is
// repaired within one interval.
func (r *Reconciler) listingTTL() time.Duration { return r.DriftInterval * 4 / 5 }

// replaceAttachment deletes an attachment that publishes another rule
// than the router's (the router's load balancer was replaced: its address
// moved to a new rule); the next pass creates it again in front of the new
// rule, under the same name. Compute Engine does not change an
// attachment's targetService (serviceAttachments.patch in v1), and the old
// rule cannot go while an attachment targets it. Status drops the URI
// meanwhile, so that the control-plane operator waits for the new one.
func (r *Reconciler) replaceAttachment(ctx context.Context, s *scope, sa *compute.ServiceAttachment, rule string) outcome.Outcome {
	name := sa.Name
	ctrl.LoggerFrom(ctx).Info("the service attachment publishes another forwarding rule than the router's; replacing it",
		"serviceAttachment", name, "publishes", lastSegments([]string{sa.TargetService}), "router", rule)
	r.attachments.forget(name)
	op, err := r.Cloud.ServiceAttachments.Delete(ctx, name, r.ManagementClusterID)
	if err != nil {
		return outcome.FromError(err)
	}
	r.Events.Deleted(s.cr, "service attachment", name)
	s.status.ServiceAttachmentName, s.status.ServiceAttachmentURI, s.status.NATSubnets = "", "", nil
	r.keep(s, op)
	return outcome.Wait(hcplinkv1beta1.WaitingForServiceAttachmentReason, fmt.Sprintf(
		"Replacing service attachment %s: the router's address is now on forwarding rule %s, and an attachment's rule cannot change.", name, rule),
		outcome.Between(operationPollMin, operationPollMax))
}

// createAttachment takes a NAT subnetwork and starts creating the
// attachment in front of the router's rule.
func (r *Reconciler) createAttachment(ctx context.Context, s *scope, name string) outcome.Outcome {
	nat, o := r.chooseNATSubnet(ctx, s, name)
	if !o.Done() {
		return o
	}
	spec := gcpcloud.AttachmentSpec{Owner: r.owner(s), TargetService: s.rule.Link,
		Consumers: desiredConsumers(s.hc, s.cr), NATSubnets: []string{nat.SelfLink}}
	r.attachments.forget(name)
	op, err := r.Cloud.ServiceAttachments.Insert(ctx, spec)
	if err != nil {
		r.claims.release(s.cr.UID)
		r.natSubnets.drop() // the subnetwork may be gone, or taken: list afresh
		r.regionAttachments.drop()
		if gcpcloud.IsNotFound(err) {
			// The rule found for the router may be gone, its address
			// given to a rule made since (a load balancer replaced): the
			// remembered rule and the shared listing would name the old
			// one for as long as the address stays. Find it afresh.
			r.rules.Delete(s.cr.UID)
			r.routerRules.drop()
		}
		if ce, ok := cloud.AsError(err); ok && ce.Code == gcpcloud.CodeNotOurs {
			return notOurs(name, "it does not carry this cluster's hcplink marker")
		}
		return outcome.FromError(err)
	}
	if op.IsZero() {
		// Ours was there already (made before a lost status write):
		// adopted; the next pass reads it.
		r.created.Store(s.cr.UID, "")
	} else {
		ctrl.LoggerFrom(ctx).Info("creating the service attachment", "serviceAttachment", name, "natSubnet", nat.Name)
		r.Events.Created(s.cr, "service attachment", name)
		r.created.Store(s.cr.UID, name)
		if op.Target != "" {
			r.fresh.Store(s.cr.UID, freshAttachment{name: name, link: op.Target, rule: spec.TargetService, consumers: spec.Consumers})
		}
	}
	s.status.NATSubnets = []string{nat.Name}
	return r.started(s, "creating service attachment "+name, op, nil)
}

// chooseNATSubnet is the NAT subnetwork of a new attachment: the one
// spec.natSubnet names, else a free one of the management network's
// Private Service Connect subnetworks (those of --gcp-nat-subnets when
// set). A subnetwork serves one attachment only, so one taken by any
// attachment of the region, or chosen meanwhile for another object, is
// not free. The listings of the subnetworks and of the region's
// attachments are shared by the attachments created within
// natListingTTL (the claims cover what this process made since); none
// fitting in the shared ones lists both again.
func (r *Reconciler) chooseNATSubnet(ctx context.Context, s *scope, name string) (*compute.Subnetwork, outcome.Outcome) {
	given := s.cr.Spec.NATSubnet
	for fresh := false; ; fresh = true {
		attachments, listedAt, attachmentsCached, err := r.regionAttachments.getAt(ctx, r.Cloud.ServiceAttachments.ListAll, r.Now(), natListingTTL, fresh)
		if err != nil {
			return nil, outcome.FromError(err)
		}
		subnets, subnetsCached, err := r.natSubnets.get(ctx, r.Cloud.NATSubnets.List, r.Now(), natListingTTL, fresh)
		if err != nil {
			return nil, outcome.FromError(err)
		}
		cached := attachmentsCached || subnetsCached
		subnets = allowedNATSubnets(subnets, given, r.NATSubnets)
		if given != "" && len(subnets) == 0 {
			if cached {
				continue // perhaps added since the shared listing
			}
			return nil, natSubnetNotFound(given, r.Network, r.Region)
		}
		nat, err := r.claims.choose(s.cr.UID, subnets, attachments, listedAt, name)
		if err != nil {
			if cached {
				continue // perhaps one was added or freed since the shared listing
			}
			if given != "" {
				return nil, natSubnetTaken(given)
			}
			return nil, natSubnetsExhausted(len(subnets), r.Network, r.Region)
		}
		return nat, outcome.Continue()
	}
}

// attachmentName is the object's attachment: the one recorded in status,
// else the name hcplink gives it.
func (r *Reconciler) attachmentName(s *scope) string {
	if n := s.status.ServiceAttachmentName; n != "" {
		return n
	}
	if s.hc == nil {
		return ""
	}
	return gcpcloud.ServiceAttachmentName(r.owner(s))
}

// owner is whose the attachment is: this management cluster, the cluster,
// the object.
func (r *Reconciler) owner(s *scope) gcpcloud.Owner {
	o := gcpcloud.Owner{ManagementCluster: r.ManagementClusterID, Name: s.cr.Name}
	if s.hc != nil {
		o.InfraID = s.hc.Spec.InfraID
	}
	return o
}

// notOursBecause says why an attachment with the object's name is not the
// object's ("" when it is): no hcplink marker, or the marker of another
// management cluster, cluster or object.
func (r *Reconciler) notOursBecause(sa *compute.ServiceAttachment, s *scope) string {
	o, ok := gcpcloud.OwnerFromDescription(sa.Description)
	want := r.owner(s)
	switch {
	case !ok:
		return "it carries no hcplink marker"
	case o.ManagementCluster != want.ManagementCluster:
		return "it is marked for another management cluster"
	case o.Name != want.Name || (want.InfraID != "" && o.InfraID != want.InfraID):
		return "it is marked for another cluster"
	}
	return ""
}

// rejectedNote is the Event of rejected connections.
func rejectedNote(name string, projects []string) string {
	return fmt.Sprintf("Service attachment %s: rejected the pending connections of projects %v, which are not on its accept list; add a project to additionalAllowedProjects to let it in.", name, projects)
}

// freshAttachment is an attachment this process just created: its link
// (the insert's targetLink) and what it was created with.
type freshAttachment struct {
	name, link, rule string
	consumers        []gcpcloud.Consumer
}

// freshlyMade finishes the pass after the creation of the object's
// attachment without reading it: once its operation is DONE the
// attachment is what the insert asked for, so when the router's rule and
// the accept list are still those it was created with, status records it
// and the condition is Ready; ok is false otherwise (nothing created by
// this process, or something changed since: the attachment is read). A
// brand-new attachment has no connections to reject yet; the drift check
// reads it.
func (r *Reconciler) freshlyMade(ctx context.Context, s *scope, name string) (outcome.Outcome, bool) {
	v, ok := r.fresh.LoadAndDelete(s.cr.UID)
	if !ok {
		return outcome.Outcome{}, false
	}
	f := v.(freshAttachment)
	want := desiredConsumers(s.hc, s.cr)
	if f.name != name || s.status.ServiceAttachmentName != "" || !sameResource(f.rule, s.rule.Link) || !slices.Equal(f.consumers, want) {
		return outcome.Outcome{}, false
	}
	r.created.Delete(s.cr.UID)
	r.claims.made(s.cr.UID, r.Now())
	s.status.ServiceAttachmentName = name
	s.status.ServiceAttachmentURI = gcpcloud.RelativeName(f.link)
	ctrl.LoggerFrom(ctx).V(1).Info("the service attachment is made; recorded from its operation", "serviceAttachment", name)
	return outcome.Ready(hcplinkv1beta1.GCPSuccessReason, readyMessage(name, s.status.ForwardingRuleName, len(want)), r.DriftInterval), true
}

// sameResource reports whether two links or relative names name one
// resource.
func sameResource(a, b string) bool {
	return a != "" && gcpcloud.RelativeName(a) == gcpcloud.RelativeName(b)
}
