package e2egcp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
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

// customerProjects are the customer projects scenarios made for
// themselves (AddGCPCustomer), beside devenv's; allProjects lists them.
var customerProjects sync.Map // project ID → struct{}

// allProjects are the management project and every customer project.
func allProjects() []string {
	projects := []string{devenv.GCPManagementProject, devenv.GCPCustomerProject}
	customerProjects.Range(func(p, _ any) bool { projects = append(projects, p.(string)); return true })
	return projects
}

// leftovers lists what is in the projects besides devenv's fixtures
// (networks and subnetworks): forwarding rules, service attachments,
// addresses and private zones. A scenario reads only its own projects:
// these reads count in cloudsim's counters and rate quotas.
func leftovers(ctx context.Context, projects ...string) ([]resource, error) {
	c, err := computeClient(ctx)
	if err != nil {
		return nil, err
	}
	d, err := dnsClient(ctx)
	if err != nil {
		return nil, err
	}
	var out []resource
	for _, project := range projects {
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
		ips, err := aRecord(ctx, d, devenv.GCPCustomerProject, zone, fqdn)
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

// change is one mutation in a project's history: a Compute Engine
// operation that finished without an error.
type change struct {
	kind       string // insert, delete, patch...
	collection string // serviceAttachments, forwardingRules...
	name       string
	user       string
	at         string // insertTime, RFC 3339
}

// history is every finished, successful Compute Engine operation of the
// project's region on a resource whose name mine accepts, oldest first:
// Google's own record of who made and deleted what, read through the
// regionOperations API as an administrator would.
func history(ctx context.Context, project string, mine func(name string) bool) ([]change, error) {
	cc, err := computeClient(ctx)
	if err != nil {
		return nil, err
	}
	var out []change
	if err := cc.RegionOperations.List(project, devenv.GCPRegion).Pages(ctx, func(l *compute.OperationList) error {
		for _, op := range l.Items {
			if op.Status != "DONE" || op.Error != nil {
				continue
			}
			segs := strings.Split(rel(op.TargetLink), "/")
			if len(segs) < 2 || !mine(segs[len(segs)-1]) {
				continue
			}
			out = append(out, change{kind: op.OperationType, collection: segs[len(segs)-2], name: segs[len(segs)-1], user: op.User, at: op.InsertTime})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b change) int { return strings.Compare(a.at, b.at) })
	return out, nil
}

// mostAlive is the most resources of the collection the history ever had
// alive at once: inserts add one, deletes take one away.
func mostAlive(h []change, collection string) int {
	alive, most := 0, 0
	for _, c := range h {
		if c.collection != collection {
			continue
		}
		switch c.kind {
		case "insert":
			alive++
		case "delete":
			alive--
		}
		most = max(most, alive)
	}
	return most
}

// count is how many changes of the kind the history has on the collection.
func count(h []change, collection, kind string) int {
	n := 0
	for _, c := range h {
		if c.collection == collection && c.kind == kind {
			n++
		}
	}
	return n
}
