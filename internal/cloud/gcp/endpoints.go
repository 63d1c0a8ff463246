package gcp

import (
	"context"

	"google.golang.org/api/compute/v1"
)

// PSC endpoints: a forwarding rule in the customer's VPC network whose
// target is the service attachment and whose IP is a reserved internal
// address (https://cloud.google.com/vpc/docs/configure-private-service-connect-services).
// Its pscConnectionStatus says whether the producer accepted it.

// PSC connection statuses of an endpoint.
const (
	PSCAccepted       = "ACCEPTED"
	PSCPending        = "PENDING"
	PSCRejected       = "REJECTED"
	PSCClosed         = "CLOSED"
	PSCNeedsAttention = "NEEDS_ATTENTION"
)

// EndpointsAPI is what the control-plane operator does with PSC endpoints.
type EndpointsAPI interface {
	Get(ctx context.Context, name string) (*compute.ForwardingRule, error)
	Insert(ctx context.Context, spec EndpointSpec) (Operation, error)
	Delete(ctx context.Context, name string, owner Owner) (Operation, error)
}

// EndpointSpec is what an endpoint is created with; its name and labels
// come from Owner (names.go).
type EndpointSpec struct {
	Owner Owner
	// Network is the customer's VPC network (link or relative name).
	Network string
	// Address is the reserved internal address (its link).
	Address string
	// Target is the service attachment (its link, in the management project).
	Target string
}

// Endpoints is the control-plane side's EndpointsAPI in the customer's
// project and region.
type Endpoints struct {
	Compute  *compute.Service
	Location Location
	Timeouts Timeouts
}

var _ EndpointsAPI = (*Endpoints)(nil)

// Get returns the endpoint, nil when it does not exist.
func (e *Endpoints) Get(ctx context.Context, name string) (*compute.ForwardingRule, error) {
	ctx, cancel := e.Timeouts.call(ctx)
	defer cancel()
	fr, err := e.Compute.ForwardingRules.Get(e.Location.Project, e.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil, nil
	}
	return fr, Wrap("reading endpoint "+name, err)
}

// Insert starts creating the endpoint of spec.Owner. One of the name with
// the owner's labels is adopted (the zero Operation), one without them
// refused (CodeNotOurs); the caller compares its target.
func (e *Endpoints) Insert(ctx context.Context, spec EndpointSpec) (Operation, error) {
	name := EndpointName(spec.Owner)
	doing := "creating endpoint " + name
	callCtx, cancel := e.Timeouts.call(ctx)
	defer cancel()
	fr := &compute.ForwardingRule{Name: name, Network: spec.Network, IPAddress: spec.Address, Target: spec.Target, Labels: spec.Owner.Labels()}
	op, err := e.Compute.ForwardingRules.Insert(e.Location.Project, e.Location.Region, fr).Context(callCtx).Do()
	if IsAlreadyExists(err) {
		existing, getErr := e.Get(ctx, name)
		link := ""
		if existing != nil {
			link = existing.SelfLink
		}
		return adopt(doing, "Forwarding rule", name, err, getErr, existing != nil, existing != nil && spec.Owner.OwnsLabels(existing.Labels), link)
	}
	return started(e.Location.Project, e.Location.Region, doing, op, err)
}

// Delete starts deleting the endpoint when it carries owner's labels; one
// already gone is the zero Operation, another's is refused (CodeNotOurs).
func (e *Endpoints) Delete(ctx context.Context, name string, owner Owner) (Operation, error) {
	fr, err := e.Get(ctx, name)
	if err != nil || fr == nil {
		return Operation{}, err
	}
	if !owner.OwnsLabels(fr.Labels) {
		return Operation{}, notOurs("deleting endpoint "+name, "Forwarding rule", name)
	}
	ctx, cancel := e.Timeouts.call(ctx)
	defer cancel()
	op, err := e.Compute.ForwardingRules.Delete(e.Location.Project, e.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return Operation{}, nil
	}
	return started(e.Location.Project, e.Location.Region, "deleting endpoint "+name, op, err)
}
