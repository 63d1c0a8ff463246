package e2egcp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/hcplink/hcplink/internal/devenv"
)

// The cloud as the administrator sees it, through Google's Go clients.

func computeClient(ctx context.Context) (*compute.Service, error) {
	return compute.NewService(ctx, option.WithEndpoint(env.GCPComputeEndpoint), option.WithTokenSource(env.GCPAdminTokens()))
}

func dnsClient(ctx context.Context) (*dns.Service, error) {
	return dns.NewService(ctx, option.WithEndpoint(env.GCPDNSEndpoint), option.WithTokenSource(env.GCPAdminTokens()))
}

func isNotFound(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusNotFound
}

// resource is a cloud resource hcplink or the load-balancer stand-in may
// have made: its kind, project and name, and what it says of itself.
type resource struct {
	kind, project, name string
	// labels and description tell whose it is.
	labels      map[string]string
	description string
	// dnsName is a zone's.
	dnsName string
}

func (r resource) String() string { return r.kind + " " + r.project + "/" + r.name }

// leftovers lists what is in either project besides devenv's fixtures
// (networks and subnetworks): forwarding rules, service attachments,
// addresses and private zones.
func leftovers(ctx context.Context) ([]resource, error) {
	c, err := computeClient(ctx)
	if err != nil {
		return nil, err
	}
	d, err := dnsClient(ctx)
	if err != nil {
		return nil, err
	}
	var out []resource
	for _, project := range []string{devenv.GCPManagementProject, devenv.GCPCustomerProject} {
		if err := c.ForwardingRules.List(project, devenv.GCPRegion).Pages(ctx, func(l *compute.ForwardingRuleList) error {
			for _, r := range l.Items {
				out = append(out, resource{kind: "forwarding rule", project: project, name: r.Name, labels: r.Labels, description: r.Description})
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if err := c.ServiceAttachments.List(project, devenv.GCPRegion).Pages(ctx, func(l *compute.ServiceAttachmentList) error {
			for _, r := range l.Items {
				out = append(out, resource{kind: "service attachment", project: project, name: r.Name, description: r.Description})
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if err := c.Addresses.List(project, devenv.GCPRegion).Pages(ctx, func(l *compute.AddressList) error {
			for _, r := range l.Items {
				out = append(out, resource{kind: "address", project: project, name: r.Name, labels: r.Labels, description: r.Description})
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if err := d.ManagedZones.List(project).Pages(ctx, func(l *dns.ManagedZonesListResponse) error {
			for _, z := range l.ManagedZones {
				out = append(out, resource{kind: "managed zone", project: project, name: z.Name, labels: z.Labels, description: z.Description, dnsName: z.DnsName})
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b resource) int { return strings.Compare(a.String(), b.String()) })
	return out, nil
}

// deleteARecord deletes an A record as the administrator, in one change,
// and waits until the zone no longer has it.
func deleteARecord(ctx context.Context, zone, fqdn string) error {
	d, err := dnsClient(ctx)
	if err != nil {
		return err
	}
	rr, err := d.ResourceRecordSets.Get(devenv.GCPCustomerProject, zone, fqdn, "A").Context(ctx).Do()
	if err != nil {
		return err
	}
	if _, err := d.Changes.Create(devenv.GCPCustomerProject, zone, &dns.Change{Deletions: []*dns.ResourceRecordSet{rr}}).Context(ctx).Do(); err != nil {
		return err
	}
	for {
		ips, err := aRecord(ctx, d, zone, fqdn)
		if err != nil || ips == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
