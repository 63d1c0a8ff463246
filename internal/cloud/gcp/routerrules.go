package gcp

import (
	"context"
	"fmt"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloud"
)

// RouterRulesAPI finds the internal forwarding rule the cloud provider made
// for the router Service's internal load balancer: what a service
// attachment publishes.
type RouterRulesAPI interface {
	FindByIP(ctx context.Context, ip string) (*compute.ForwardingRule, error)
	ListInternal(ctx context.Context) ([]*compute.ForwardingRule, error)
}

// RouterRules is the management side's RouterRulesAPI, scoped to the
// management cluster's project, region and VPC network: a rule of another
// management cluster's network, even with the same address, is never
// found (field problem 27).
type RouterRules struct {
	Compute  *compute.Service
	Location Location
	// Network is the management cluster's VPC network (its link or
	// "projects/P/global/networks/N").
	Network  string
	Timeouts Timeouts
}

var _ RouterRulesAPI = (*RouterRules)(nil)

// FindByIP returns the INTERNAL forwarding rule holding ip in the
// management network, nil when there is none (the cloud provider has not
// made it yet). Two such rules are an error: the address is ambiguous.
func (r *RouterRules) FindByIP(ctx context.Context, ip string) (*compute.ForwardingRule, error) {
	rules, err := r.list(ctx, fmt.Sprintf("IPAddress = %q", ip))
	if err != nil {
		return nil, err
	}
	return RuleByIP(rules, ip)
}

// ListInternal returns every INTERNAL forwarding rule of the management
// network: one listing that finds the router rules of a fleet.
func (r *RouterRules) ListInternal(ctx context.Context) ([]*compute.ForwardingRule, error) {
	return r.list(ctx, `loadBalancingScheme = "INTERNAL"`)
}

func (r *RouterRules) list(ctx context.Context, filter string) ([]*compute.ForwardingRule, error) {
	ctx, cancel := r.Timeouts.list(ctx)
	defer cancel()
	var out []*compute.ForwardingRule
	err := r.Compute.ForwardingRules.List(r.Location.Project, r.Location.Region).
		Filter(filter).Context(ctx).
		Pages(ctx, func(page *compute.ForwardingRuleList) error {
			for _, fr := range page.Items {
				if fr.LoadBalancingScheme == "INTERNAL" && sameResource(fr.Network, r.Network) {
					out = append(out, fr)
				}
			}
			return nil
		})
	if err != nil {
		return nil, Wrap("listing forwarding rules", err)
	}
	return out, nil
}

// RuleByIP is the INTERNAL rule of rules (the management network's) that
// holds ip, nil when none does; two are an error: the address is
// ambiguous.
func RuleByIP(rules []*compute.ForwardingRule, ip string) (*compute.ForwardingRule, error) {
	var found []*compute.ForwardingRule
	for _, fr := range rules {
		if fr.IPAddress == ip && fr.LoadBalancingScheme == "INTERNAL" {
			found = append(found, fr)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	return nil, &cloud.Error{Doing: "finding the router's forwarding rule", Class: cloud.ClassInvalidInput, Code: "AmbiguousForwardingRule",
		Message: fmt.Sprintf("%d internal forwarding rules of the management network hold the router's address %s (%s and %s); one must", len(found), ip, found[0].Name, found[1].Name)}
}
