package gcp

import (
	"context"
	"slices"
	"sort"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Service attachments publish the router's internal forwarding rule to the
// customer's project over Private Service Connect
// (https://cloud.google.com/compute/docs/reference/rest/v1/serviceAttachments).
// hcplink's accept manually (ACCEPT_MANUAL): only the projects on the
// consumer accept list connect, each up to its connection limit. They take
// no labels; ownership is the description's marker (names.go), and every
// name starts with the management cluster's prefix.
//
// They reconcile connections (reconcileConnections): a change of the lists
// applies to connections already ACCEPTED or REJECTED, not only to PENDING
// ones, so a project taken off the accept list loses its access instead of
// keeping it until the attachment is deleted (the field's definition, REST
// reference above; Google's default for a new attachment is false).

// ServiceAttachmentsAPI is what the management operator does with service
// attachments.
type ServiceAttachmentsAPI interface {
	Get(ctx context.Context, name string) (*compute.ServiceAttachment, error)
	Insert(ctx context.Context, spec AttachmentSpec) (Operation, error)
	SetConsumers(ctx context.Context, current *compute.ServiceAttachment, accept []Consumer) (Operation, error)
	RejectProjects(ctx context.Context, current *compute.ServiceAttachment, projects []string) (Operation, error)
	ListOwned(ctx context.Context, managementCluster string) ([]*compute.ServiceAttachment, error)
	ListAll(ctx context.Context) ([]*compute.ServiceAttachment, error)
	Delete(ctx context.Context, name, managementCluster string) (Operation, error)
}

// ConnectionPreferenceManual accepts only the projects of the accept list.
const ConnectionPreferenceManual = "ACCEPT_MANUAL"

// Consumer is one entry of an attachment's accept list: a project (its ID
// or number) and how many endpoints it may connect.
type Consumer struct {
	Project         string
	ConnectionLimit int64
}

// DefaultConnectionLimit is how many endpoints one accepted project may
// connect: one per private router of the cluster, with room for the
// endpoint being replaced.
const DefaultConnectionLimit = 2

// AttachmentSpec is what an attachment is created with. Its name and the
// description's ownership marker come from Owner (names.go).
type AttachmentSpec struct {
	Owner Owner
	// TargetService is the router's forwarding rule (its self link).
	TargetService string
	Consumers     []Consumer
	// NATSubnets are the PSC NAT subnetworks' self links.
	NATSubnets []string
}

// ServiceAttachments is the management side's ServiceAttachmentsAPI in
// the management cluster's project and region.
type ServiceAttachments struct {
	Compute  *compute.Service
	Location Location
	Timeouts Timeouts
}

var _ ServiceAttachmentsAPI = (*ServiceAttachments)(nil)

// Get returns the attachment, nil when it does not exist.
func (s *ServiceAttachments) Get(ctx context.Context, name string) (*compute.ServiceAttachment, error) {
	ctx, cancel := s.Timeouts.call(ctx)
	defer cancel()
	sa, err := s.Compute.ServiceAttachments.Get(s.Location.Project, s.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil, nil
	}
	return sa, Wrap("reading service attachment "+name, err)
}

// Insert starts creating the attachment of spec.Owner. One of the name
// whose description marks it as the owner's is adopted (the zero
// Operation; the caller compares its settings), another refused
// (CodeNotOurs).
func (s *ServiceAttachments) Insert(ctx context.Context, spec AttachmentSpec) (Operation, error) {
	callCtx, cancel := s.Timeouts.call(ctx)
	defer cancel()
	name := ServiceAttachmentName(spec.Owner)
	sa := &compute.ServiceAttachment{
		Name: name, Description: spec.Owner.Description("The private router's service attachment"), TargetService: spec.TargetService,
		ConnectionPreference: ConnectionPreferenceManual, ConsumerAcceptLists: acceptLists(spec.Consumers),
		NatSubnets: spec.NATSubnets, ReconcileConnections: true,
	}
	doing := "creating service attachment " + name
	op, err := s.Compute.ServiceAttachments.Insert(s.Location.Project, s.Location.Region, sa).Context(callCtx).Do()
	if IsAlreadyExists(err) {
		existing, getErr := s.Get(ctx, name)
		ours := false
		if existing != nil {
			o, ok := OwnerFromDescription(existing.Description)
			ours = ok && o == spec.Owner
		}
		link := ""
		if existing != nil {
			link = existing.SelfLink
		}
		return adopt(doing, "Service attachment", name, err, getErr, existing != nil, ours, link)
	}
	return started(s.Location.Project, s.Location.Region, doing, op, err)
}

// SetConsumers makes the connection policy of the attachment read as
// current what ConnectionPolicyHolds wants: the accept list replaced,
// reconcileConnections on, and the accepted projects taken off the reject
// list (a project on both lists is rejected; other rejected projects stay).
// The patch carries current's fingerprint, so a change made meanwhile is
// not overwritten (the call answers an error IsDependency tells: read again
// and compare).
func (s *ServiceAttachments) SetConsumers(ctx context.Context, current *compute.ServiceAttachment, accept []Consumer) (Operation, error) {
	patch := &compute.ServiceAttachment{Fingerprint: current.Fingerprint, ConsumerAcceptLists: acceptLists(accept),
		ReconcileConnections: true,
		// An empty list is sent as [] so that it clears the one there.
		ForceSendFields: []string{"ConsumerAcceptLists"}}
	if patch.ConsumerAcceptLists == nil {
		patch.ConsumerAcceptLists = []*compute.ServiceAttachmentConsumerProjectLimit{}
	}
	if kept := withoutAccepted(current.ConsumerRejectLists, accept); len(kept) != len(current.ConsumerRejectLists) {
		patch.ConsumerRejectLists = kept
		if kept == nil {
			patch.ConsumerRejectLists = []string{}
		}
		patch.ForceSendFields = append(patch.ForceSendFields, "ConsumerRejectLists")
	}
	return s.patch(ctx, current.Name, "updating the accept list of service attachment "+current.Name, patch)
}

// withoutAccepted is the reject list less the projects of accept.
func withoutAccepted(reject []string, accept []Consumer) []string {
	var out []string
	for _, p := range reject {
		if !slices.ContainsFunc(accept, func(c Consumer) bool { return c.Project == p }) {
			out = append(out, p)
		}
	}
	return out
}

// RejectProjects adds projects to the reject list of the attachment read
// as current (with its fingerprint), keeping the projects rejected before:
// their pending connections become REJECTED.
func (s *ServiceAttachments) RejectProjects(ctx context.Context, current *compute.ServiceAttachment, projects []string) (Operation, error) {
	reject := slices.Clone(current.ConsumerRejectLists)
	for _, p := range projects {
		if !slices.Contains(reject, p) {
			reject = append(reject, p)
		}
	}
	patch := &compute.ServiceAttachment{Fingerprint: current.Fingerprint, ConsumerRejectLists: reject}
	return s.patch(ctx, current.Name, "rejecting consumers of service attachment "+current.Name, patch)
}

func (s *ServiceAttachments) patch(ctx context.Context, name, doing string, patch *compute.ServiceAttachment) (Operation, error) {
	ctx, cancel := s.Timeouts.call(ctx)
	defer cancel()
	op, err := s.Compute.ServiceAttachments.Patch(s.Location.Project, s.Location.Region, name, patch).Context(ctx).Do()
	return started(s.Location.Project, s.Location.Region, doing, op, err)
}

// ListOwned returns the attachments of the management cluster: its name
// prefix, and its marker in the description (a name alone could be
// anyone's).
func (s *ServiceAttachments) ListOwned(ctx context.Context, managementCluster string) ([]*compute.ServiceAttachment, error) {
	prefix := ServiceAttachmentNamePrefix(managementCluster)
	all, err := s.list(ctx, "name eq "+prefix+".*")
	if err != nil {
		return nil, err
	}
	var owned []*compute.ServiceAttachment
	for _, sa := range all {
		if o, ok := OwnerFromDescription(sa.Description); ok && o.ManagementCluster == managementCluster && strings.HasPrefix(sa.Name, prefix) {
			owned = append(owned, sa)
		}
	}
	return owned, nil
}

// ListAll returns every attachment of the region, anyone's: which NAT
// subnetworks are taken is decided over all of them.
func (s *ServiceAttachments) ListAll(ctx context.Context) ([]*compute.ServiceAttachment, error) {
	return s.list(ctx, "")
}

func (s *ServiceAttachments) list(ctx context.Context, filter string) ([]*compute.ServiceAttachment, error) {
	ctx, cancel := s.Timeouts.list(ctx)
	defer cancel()
	var out []*compute.ServiceAttachment
	call := s.Compute.ServiceAttachments.List(s.Location.Project, s.Location.Region).Context(ctx)
	if filter != "" {
		call = call.Filter(filter)
	}
	err := call.Pages(ctx, func(page *compute.ServiceAttachmentList) error {
		out = append(out, page.Items...)
		return nil
	})
	return out, Wrap("listing service attachments", err)
}

// Delete starts deleting the attachment when its description marks it as
// managementCluster's; one already gone is the zero Operation, another's is
// refused (CodeNotOurs). Google closes the connections of its endpoints.
func (s *ServiceAttachments) Delete(ctx context.Context, name, managementCluster string) (Operation, error) {
	doing := "deleting service attachment " + name
	sa, err := s.Get(ctx, name)
	if err != nil || sa == nil {
		return Operation{}, err
	}
	if o, ok := OwnerFromDescription(sa.Description); !ok || o.ManagementCluster != managementCluster {
		return Operation{}, notOurs(doing, "Service attachment", name)
	}
	ctx, cancel := s.Timeouts.call(ctx)
	defer cancel()
	op, err := s.Compute.ServiceAttachments.Delete(s.Location.Project, s.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return Operation{}, nil
	}
	return started(s.Location.Project, s.Location.Region, doing, op, err)
}

func acceptLists(consumers []Consumer) []*compute.ServiceAttachmentConsumerProjectLimit {
	var out []*compute.ServiceAttachmentConsumerProjectLimit
	for _, c := range consumers {
		limit := c.ConnectionLimit
		if limit <= 0 {
			limit = DefaultConnectionLimit
		}
		out = append(out, &compute.ServiceAttachmentConsumerProjectLimit{ProjectIdOrNum: c.Project, ConnectionLimit: limit})
	}
	return out
}

// ConsumersOf reads an attachment's accept list, sorted by project.
func ConsumersOf(sa *compute.ServiceAttachment) []Consumer {
	var out []Consumer
	for _, e := range sa.ConsumerAcceptLists {
		if e.ProjectIdOrNum != "" {
			out = append(out, Consumer{Project: e.ProjectIdOrNum, ConnectionLimit: e.ConnectionLimit})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	return out
}

// SameConsumers reports whether an attachment's accept list is want (in
// any order; a zero limit in want is DefaultConnectionLimit): the drift
// check, so that nothing is written when nothing changed.
func SameConsumers(sa *compute.ServiceAttachment, want []Consumer) bool {
	have := ConsumersOf(sa)
	normalised := make([]Consumer, 0, len(want))
	for _, c := range want {
		if c.ConnectionLimit <= 0 {
			c.ConnectionLimit = DefaultConnectionLimit
		}
		normalised = append(normalised, c)
	}
	sort.Slice(normalised, func(i, j int) bool { return normalised[i].Project < normalised[j].Project })
	return slices.Equal(have, normalised) && len(have) == len(sa.ConsumerAcceptLists) // no entry by network
}

// ConnectionPolicyHolds reports whether the attachment applies want to
// every connection: its accept list is want, it reconciles connections
// (else a project taken off the list keeps the connection it has), and no
// project of want is on its reject list (else it is rejected all the same).
// The drift check: nothing is written when it holds.
func ConnectionPolicyHolds(sa *compute.ServiceAttachment, want []Consumer) bool {
	return SameConsumers(sa, want) && sa.ReconcileConnections &&
		len(withoutAccepted(sa.ConsumerRejectLists, want)) == len(sa.ConsumerRejectLists)
}

// Connection is one consumer endpoint connected to an attachment.
type Connection struct {
	// Project is the consumer's project ID, read from the endpoint's link.
	Project string
	// Endpoint is the endpoint's relative name.
	Endpoint string
	// Status is Google's: ACCEPTED, PENDING, REJECTED, CLOSED, NEEDS_ATTENTION.
	Status string
}

// ConnectionsOf reads an attachment's connected endpoints.
func ConnectionsOf(sa *compute.ServiceAttachment) []Connection {
	var out []Connection
	for _, ce := range sa.ConnectedEndpoints {
		rel := RelativeName(ce.Endpoint)
		project := ""
		if parts := strings.Split(rel, "/"); len(parts) > 1 && parts[0] == "projects" {
			project = parts[1]
		}
		out = append(out, Connection{Project: project, Endpoint: rel, Status: ce.Status})
	}
	return out
}

// ForeignProjects are the projects to reject: those of connections Google
// left PENDING whose project is not on the accept list. An accepted
// connection is never foreign (Google matched it on the list, perhaps by
// project number, which an endpoint's link does not show), and one already
// rejected or closed needs nothing.
func ForeignProjects(sa *compute.ServiceAttachment) []string {
	accepted := map[string]bool{}
	for _, c := range ConsumersOf(sa) {
		accepted[c.Project] = true
	}
	var out []string
	for _, c := range ConnectionsOf(sa) {
		if c.Status == PSCPending && c.Project != "" && !accepted[c.Project] && !slices.Contains(out, c.Project) {
			out = append(out, c.Project)
		}
	}
	sort.Strings(out)
	return out
}
