package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/dns/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// gcpThing is one resource as a Compute Engine or Cloud DNS listing shows
// it.
type gcpThing struct {
	kind, project, name string
	selfLink            string
	labels              map[string]string
	// description carries the ownership marker of the resources that take
	// no labels (service attachments, NAT subnetworks).
	description string
	// address is a forwarding rule's IP: the load balancer's rule of the
	// router Service has no label of hcplink's, its address is the mark.
	address string
}

// gcpMarks are what makes a resource the cluster's: its infra ID's label
// or description marker, a link the tour saw it use, a name hcplink gives
// only to this cluster, or the router's address on a forwarding rule of
// the management project.
type gcpMarks struct {
	infraID           string
	links             []string
	names             []string
	routerIP          string
	managementProject string
}

// gcpLeftovers lists, sorted, the things that carry one of the cluster's
// marks.
func gcpLeftovers(things []gcpThing, marks gcpMarks) []string {
	var left []string
	for _, th := range things {
		if marks.holds(th) {
			left = append(left, fmt.Sprintf("%s %s (project %s)", th.kind, th.name, th.project))
		}
	}
	slices.Sort(left)
	return left
}

func (m gcpMarks) holds(th gcpThing) bool {
	if _, labelled := th.labels[gcpcloud.ClusterLabelKey(m.infraID)]; labelled {
		return true
	}
	if owner, ok := gcpcloud.OwnerFromDescription(th.description); ok && owner.InfraID == m.infraID {
		return true
	}
	if m.routerIP != "" && th.address == m.routerIP && th.project == m.managementProject {
		return true
	}
	link := resourcePath(th.selfLink)
	return slices.ContainsFunc(m.links, func(l string) bool { return l != "" && resourcePath(l) == link }) ||
		containsFold(m.names, th.name)
}

// resourcePath is a Google resource link from its "projects/" on: a full
// URL, a relative link and a resource name of one resource compare equal.
func resourcePath(link string) string {
	if i := strings.Index(link, "projects/"); i >= 0 {
		return link[i:]
	}
	return link
}

// gcpScope is where the cluster's resources can be: the management and
// the customer project, in the cluster's region.
type gcpScope struct {
	managementProject, customerProject, region string
}

// listGCP lists, in both projects, every kind of resource the cluster has
// — forwarding rules (the router's internal one, the PSC endpoint),
// service attachments, subnetworks (PSC NAT ones among them), addresses
// and private zones — over the Compute Engine and Cloud DNS APIs, as
// gcloud would.
func listGCP(ctx context.Context, computeAPI *compute.Service, dnsAPI *dns.Service, scope gcpScope) ([]gcpThing, error) {
	var things []gcpThing
	for _, project := range []string{scope.managementProject, scope.customerProject} {
		rules, err := listForwardingRules(ctx, computeAPI, project, scope.region)
		if err != nil {
			return nil, err
		}
		things = append(things, rules...)
		err = computeAPI.ServiceAttachments.List(project, scope.region).Pages(ctx, func(page *compute.ServiceAttachmentList) error {
			for _, a := range page.Items {
				things = append(things, gcpThing{kind: "service attachment", project: project, name: a.Name, selfLink: a.SelfLink, description: a.Description})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing the service attachments of %s: %w", project, err)
		}
		err = computeAPI.Subnetworks.List(project, scope.region).Pages(ctx, func(page *compute.SubnetworkList) error {
			for _, s := range page.Items {
				things = append(things, gcpThing{kind: "subnetwork", project: project, name: s.Name, selfLink: s.SelfLink, description: s.Description})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing the subnetworks of %s: %w", project, err)
		}
		err = computeAPI.Addresses.List(project, scope.region).Pages(ctx, func(page *compute.AddressList) error {
			for _, a := range page.Items {
				things = append(things, gcpThing{kind: "address", project: project, name: a.Name, selfLink: a.SelfLink, labels: a.Labels, description: a.Description})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing the addresses of %s: %w", project, err)
		}
		err = dnsAPI.ManagedZones.List(project).Pages(ctx, func(page *dns.ManagedZonesListResponse) error {
			for _, z := range page.ManagedZones {
				things = append(things, gcpThing{kind: "private zone", project: project, name: z.Name, labels: z.Labels, description: z.Description})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing the managed zones of %s: %w", project, err)
		}
	}
	return things, nil
}

func listForwardingRules(ctx context.Context, computeAPI *compute.Service, project, region string) ([]gcpThing, error) {
	var things []gcpThing
	err := computeAPI.ForwardingRules.List(project, region).Pages(ctx, func(page *compute.ForwardingRuleList) error {
		for _, r := range page.Items {
			kind := "forwarding rule"
			if r.Target != "" && strings.Contains(r.Target, "/serviceAttachments/") {
				kind = "Private Service Connect endpoint"
			}
			things = append(things, gcpThing{kind: kind, project: project, name: r.Name, selfLink: r.SelfLink, labels: r.Labels,
				description: r.Description, address: r.IPAddress})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the forwarding rules of %s: %w", project, err)
	}
	return things, nil
}
