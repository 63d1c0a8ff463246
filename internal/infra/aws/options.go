// Package awsinfra creates and destroys the network a private hosted
// cluster's workers live in, in the customer's AWS account: the VPC and its
// subnets, gateways and route tables, the S3 gateway endpoint and the
// private hosted zones. Everything is tagged for the infra ID and found again
// by those tags, so re-running create is always safe and destroy removes
// exactly what is tagged, whoever made it.
package aws

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Defaults of the create flags.
const (
	DefaultRegion  = "us-east-1"
	DefaultVPCCIDR = "10.0.0.0/16"
)

// Options say what to create or destroy.
type Options struct {
	// InfraID names and tags every resource; it must be unique per cluster.
	InfraID string
	// Name is the cluster's name: the private zones are <Name>.<BaseDomain>
	// and <Name>.hypershift.local. Defaults to InfraID.
	Name string
	// BaseDomain has a public hosted zone in the account.
	BaseDomain string
	Region     string
	// Zones are availability-zone names; empty means the region's first.
	Zones   []string
	VPCCIDR string
	// SingleNATGateway makes one NAT gateway (in the first zone) serve
	// every private subnet, to save its cost.
	SingleNATGateway bool
	// PublicOnly makes public subnets only: no NAT gateways, no private
	// subnets or route tables.
	PublicOnly bool
	// AdditionalTags go on every resource (the ownership tags win a clash).
	AdditionalTags map[string]string
}

// withDefaults fills in what the user left out.
func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = o.InfraID
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	if o.VPCCIDR == "" {
		o.VPCCIDR = DefaultVPCCIDR
	}
	return o
}

// validateIdentity checks what both create and destroy need.
func (o Options) validateIdentity() error {
	var problems []string
	if o.InfraID == "" {
		problems = append(problems, "--infra-id is required")
	} else if len(o.InfraID) > 40 || strings.ContainsAny(o.InfraID, " /.") {
		problems = append(problems, fmt.Sprintf("--infra-id %q must be at most 40 characters without spaces, dots or slashes (it starts every resource's name)", o.InfraID))
	}
	if o.BaseDomain == "" {
		problems = append(problems, "--base-domain is required")
	}
	for k := range o.AdditionalTags {
		if k == "Name" || strings.HasPrefix(k, "kubernetes.io/cluster/") || strings.HasPrefix(k, "hcplink.io/") {
			problems = append(problems, fmt.Sprintf("--additional-tags may not set %q: hcplink owns that key", k))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// validateCreate checks the create options and computes the layout, before
// any call is made.
func (o Options) validateCreate(regionZones int) (Layout, error) {
	if err := o.validateIdentity(); err != nil {
		return Layout{}, err
	}
	prefix, err := netip.ParsePrefix(o.VPCCIDR)
	if err != nil {
		return Layout{}, fmt.Errorf("--vpc-cidr %q is not a CIDR block: %w", o.VPCCIDR, err)
	}
	return ComputeLayout(prefix, len(o.Zones), regionZones)
}

// Timing of create and destroy.
const (
	// waitPoll is how often a wait on a NAT gateway or an endpoint reads its
	// state: they take a minute or two on AWS; a read every few seconds
	// costs little and ends the wait soon after.
	waitPoll = 3 * time.Second
	// destroyPassInterval separates destroy passes: what a pass could not
	// delete waits on something else (a NAT gateway's interfaces, an
	// endpoint) that needs seconds to go.
	destroyPassInterval = 5 * time.Second
	// DefaultDestroyGrace bounds destroy: NAT gateways take up to a few
	// minutes to delete; anything still there after this is reported.
	DefaultDestroyGrace = 20 * time.Minute
	// DefaultCreateWait bounds the wait for NAT gateways to become available.
	DefaultCreateWait = 10 * time.Minute
)
