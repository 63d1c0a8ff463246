package aws

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// Output is what create made, as a HostedCluster and NodePools need it.
type Output struct {
	Region        string       `json:"region"`
	InfraID       string       `json:"infraID"`
	MachineCIDR   string       `json:"machineCIDR"`
	VPCID         string       `json:"vpcID"`
	Zones         []ZoneOutput `json:"zones"`
	Name          string       `json:"name"`
	BaseDomain    string       `json:"baseDomain"`
	PublicZoneID  string       `json:"publicZoneID"`
	PrivateZoneID string       `json:"privateZoneID"`
	LocalZoneID   string       `json:"localZoneID"`
	PublicOnly    bool         `json:"publicOnly"`
}

// ZoneOutput is one zone's subnet for the workers: the private one, or
// the public one with PublicOnly.
type ZoneOutput struct {
	Name     string `json:"name"`
	SubnetID string `json:"subnetID"`
}

// Deps are what create and destroy work with.
type Deps struct {
	Clients  Clients
	Progress Progress // nil: say nothing
	// PollInterval is how often waits read state (0: waitPoll).
	PollInterval time.Duration
	// CreateWait bounds the wait for NAT gateways (0: DefaultCreateWait).
	CreateWait time.Duration
	// DestroyGrace bounds destroy (0: DefaultDestroyGrace).
	DestroyGrace time.Duration
}

// run is one create or destroy: the options with defaults, the clients and
// who is told.
type run struct {
	opts Options
	deps Deps
	c    Clients
	say  Progress
	// deadline ends destroy's waits (the grace period).
	deadline time.Time
	// publicZoneID is the base domain's public zone, found by plan.
	publicZoneID string
}

func newRun(opts Options, deps Deps) *run {
	r := &run{opts: opts.withDefaults(), deps: deps, c: deps.Clients, say: deps.Progress}
	if r.say == nil {
		r.say = quiet{}
	}
	return r
}

// Create makes (or finds, when it exists) everything the cluster's network
// needs, in order; re-running it after any failure is safe and finishes
// the job. Nothing is changed before the options and the layout are known
// to be possible.
func Create(ctx context.Context, opts Options, deps Deps) (*Output, error) {
	r := newRun(opts, deps)
	layout, err := r.plan(ctx)
	if err != nil {
		return nil, err
	}
	return r.create(ctx, layout)
}

// plan resolves the zones, computes the layout and finds the public zone,
// with reads only: whatever would stop create is found before it changes
// anything.
func (r *run) plan(ctx context.Context) (Layout, error) {
	if err := r.opts.validateIdentity(); err != nil {
		return Layout{}, err
	}
	out, err := r.c.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		return Layout{}, fmt.Errorf("listing the availability zones of %s: %w", r.opts.Region, err)
	}
	have := map[string]bool{}
	var first string
	for _, z := range out.AvailabilityZones {
		name := awssdk.ToString(z.ZoneName)
		have[name] = true
		if first == "" || name < first {
			first = name
		}
	}
	if len(r.opts.Zones) == 0 && first != "" {
		r.opts.Zones = []string{first}
	}
	seen := map[string]bool{}
	for _, z := range r.opts.Zones {
		if !have[z] {
			return Layout{}, fmt.Errorf("zone %q is not an availability zone of %s", z, r.opts.Region)
		}
		if seen[z] {
			return Layout{}, fmt.Errorf("zone %q is given twice in --zones", z)
		}
		seen[z] = true
	}
	layout, err := r.opts.validateCreate(len(have))
	if err != nil {
		return Layout{}, err
	}
	r.publicZoneID, err = r.publicZone(ctx)
	return layout, err
}

func (r *run) create(ctx context.Context, layout Layout) (*Output, error) {
	o := r.opts
	vpcID, err := r.ensureVPC(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.ensureDHCPOptions(ctx, vpcID); err != nil {
		return nil, err
	}
	igwID, err := r.ensureInternetGateway(ctx, vpcID)
	if err != nil {
		return nil, err
	}
	net, err := r.ensureSubnets(ctx, vpcID, layout)
	if err != nil {
		return nil, err
	}
	tables, err := r.ensureRouting(ctx, vpcID, igwID, net)
	if err != nil {
		return nil, err
	}
	if err := r.ensureS3Endpoint(ctx, vpcID, tables); err != nil {
		return nil, err
	}
	zones, err := r.ensureZones(ctx, vpcID)
	if err != nil {
		return nil, err
	}
	out := &Output{Region: o.Region, InfraID: o.InfraID, MachineCIDR: layout.VPC.String(), VPCID: vpcID, Name: o.Name,
		BaseDomain: o.BaseDomain, PublicZoneID: zones.public, PrivateZoneID: zones.cluster, LocalZoneID: zones.local, PublicOnly: o.PublicOnly}
	for i, z := range o.Zones {
		id := net.public[i]
		if !o.PublicOnly {
			id = net.private[i]
		}
		out.Zones = append(out.Zones, ZoneOutput{Name: z, SubnetID: id})
	}
	return out, nil
}

// subnets are the subnet IDs by zone index.
type subnets struct {
	public, private []string
}

// cidr is a validated block as the SDK takes it.
func cidr(p netip.Prefix) *string { return awssdk.String(p.String()) }

// Timing defaults; Deps may shorten them (tests against cloudsim's fast
// delays).
func (r *run) poll() time.Duration {
	if r.deps.PollInterval > 0 {
		return r.deps.PollInterval
	}
	return waitPoll
}

func (r *run) createWait() time.Duration {
	if r.deps.CreateWait > 0 {
		return r.deps.CreateWait
	}
	return DefaultCreateWait
}

// pause waits one poll interval, or less when ctx ends.
func (r *run) pause(ctx context.Context) error { return wait(ctx, r.poll()) }

// wait waits d, or less when ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
