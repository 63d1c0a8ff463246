package gcp

import (
	"context"

	"google.golang.org/api/compute/v1"
)

// Internal addresses: the PSC endpoint's IP, reserved in the customer's
// subnetwork (https://cloud.google.com/compute/docs/reference/rest/v1/addresses).
// An address in use by an endpoint cannot be deleted: delete the endpoint
// first.

// AddressesAPI is what the control-plane operator does with addresses.
type AddressesAPI interface {
	Get(ctx context.Context, name string) (*compute.Address, error)
	Reserve(ctx context.Context, owner Owner, subnetwork string) (Operation, error)
	Delete(ctx context.Context, name string, owner Owner) (Operation, error)
}

// Addresses is the control-plane side's AddressesAPI in the customer's
// project and region.
type Addresses struct {
	Compute  *compute.Service
	Location Location
	Timeouts Timeouts
}

var _ AddressesAPI = (*Addresses)(nil)

// Get returns the address, nil when it does not exist.
func (a *Addresses) Get(ctx context.Context, name string) (*compute.Address, error) {
	ctx, cancel := a.Timeouts.call(ctx)
	defer cancel()
	addr, err := a.Compute.Addresses.Get(a.Location.Project, a.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil, nil
	}
	return addr, Wrap("reading address "+name, err)
}

// Reserve starts reserving owner's endpoint address (EndpointAddressName,
// owner's labels) in subnetwork (its link or relative name); Google picks
// the IP. An address of the name with owner's labels is adopted (the zero
// Operation: an earlier pass made it); one without them is refused
// (CodeNotOurs); one still being made is a dependency error.
func (a *Addresses) Reserve(ctx context.Context, owner Owner, subnetwork string) (Operation, error) {
	name := EndpointAddressName(owner)
	doing := "reserving address " + name
	callCtx, cancel := a.Timeouts.call(ctx)
	defer cancel()
	addr := &compute.Address{Name: name, AddressType: "INTERNAL", Subnetwork: subnetwork, Labels: owner.Labels()}
	op, err := a.Compute.Addresses.Insert(a.Location.Project, a.Location.Region, addr).Context(callCtx).Do()
	if IsAlreadyExists(err) {
		existing, getErr := a.Get(ctx, name)
		link := ""
		if existing != nil {
			link = existing.SelfLink
		}
		return adopt(doing, "Address", name, err, getErr, existing != nil, existing != nil && owner.OwnsLabels(existing.Labels), link)
	}
	return started(a.Location.Project, a.Location.Region, doing, op, err)
}

// Delete starts releasing the address when it carries owner's labels; one
// already gone is the zero Operation, another's is refused (CodeNotOurs).
func (a *Addresses) Delete(ctx context.Context, name string, owner Owner) (Operation, error) {
	addr, err := a.Get(ctx, name)
	if err != nil || addr == nil {
		return Operation{}, err
	}
	if !owner.OwnsLabels(addr.Labels) {
		return Operation{}, notOurs("releasing address "+name, "Address", name)
	}
	ctx, cancel := a.Timeouts.call(ctx)
	defer cancel()
	op, err := a.Compute.Addresses.Delete(a.Location.Project, a.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return Operation{}, nil
	}
	return started(a.Location.Project, a.Location.Region, "releasing address "+name, op, err)
}
