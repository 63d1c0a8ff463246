package gcp

import (
	"context"

	"google.golang.org/api/compute/v1"
)

// The customer's subnetwork that a private cluster names: read once per
// change of the cluster's settings, before anything is made for it, to
// find a subnet that does not exist in the cluster's project and region or
// belongs to another network than the cluster's
// (https://cloud.google.com/compute/docs/reference/rest/v1/subnetworks/get).

// SubnetworksAPI is what the control-plane operator reads of the
// customer's subnetworks.
type SubnetworksAPI interface {
	Get(ctx context.Context, name string) (*compute.Subnetwork, error)
}

// Subnetworks is the control-plane side's SubnetworksAPI in the customer's
// project and region.
type Subnetworks struct {
	Compute  *compute.Service
	Location Location
	Timeouts Timeouts
}

var _ SubnetworksAPI = (*Subnetworks)(nil)

// Get returns the subnetwork, nil when it does not exist in the project
// and region.
func (s *Subnetworks) Get(ctx context.Context, name string) (*compute.Subnetwork, error) {
	ctx, cancel := s.Timeouts.call(ctx)
	defer cancel()
	sub, err := s.Compute.Subnetworks.Get(s.Location.Project, s.Location.Region, name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil, nil
	}
	return sub, Wrap("reading subnetwork "+name, err)
}
