package gcp

import (
	"context"
	"fmt"
	"sort"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloud"
)

// Private Service Connect NAT subnetworks (purpose PRIVATE_SERVICE_CONNECT)
// give a service attachment the source addresses of its consumers'
// connections. An attachment may use several, but a NAT subnetwork serves
// one attachment only
// (https://cloud.google.com/vpc/docs/about-vpc-hosted-services#psc-subnets),
// so a fleet of clusters takes one free NAT subnetwork each from the
// management cluster's pool, and says what to add when none is left.

// PurposePrivateServiceConnect is a PSC NAT subnetwork's purpose.
const PurposePrivateServiceConnect = "PRIVATE_SERVICE_CONNECT"

// NATSubnetsAPI is what the management operator does with PSC NAT
// subnetworks.
type NATSubnetsAPI interface {
	List(ctx context.Context) ([]*compute.Subnetwork, error)
}

// NATSubnets is the management side's NATSubnetsAPI, scoped to the
// management cluster's project, region and VPC network: a NAT subnetwork
// of another network is never listed (field problem 27).
type NATSubnets struct {
	Compute  *compute.Service
	Location Location
	// Network is the management cluster's VPC network (its link or
	// "projects/P/global/networks/N").
	Network  string
	Timeouts Timeouts
}

var _ NATSubnetsAPI = (*NATSubnets)(nil)

// List returns the PSC NAT subnetworks of the management network, sorted
// by name.
func (n *NATSubnets) List(ctx context.Context) ([]*compute.Subnetwork, error) {
	ctx, cancel := n.Timeouts.list(ctx)
	defer cancel()
	var out []*compute.Subnetwork
	err := n.Compute.Subnetworks.List(n.Location.Project, n.Location.Region).
		Filter(fmt.Sprintf("purpose = %q", PurposePrivateServiceConnect)).Context(ctx).
		Pages(ctx, func(page *compute.SubnetworkList) error {
			for _, s := range page.Items {
				if s.Purpose == PurposePrivateServiceConnect && sameResource(s.Network, n.Network) {
					out = append(out, s)
				}
			}
			return nil
		})
	if err != nil {
		return nil, Wrap("listing Private Service Connect NAT subnetworks", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CodeNATSubnetsExhausted is the code of the error FreeNATSubnet returns
// when every NAT subnetwork is taken.
const CodeNATSubnetsExhausted = "NATSubnetsExhausted"

// FreeNATSubnet picks, for the attachment named attachment, the NAT
// subnetwork it already uses, else the first one no attachment uses
// (attachments: every attachment of the region, anyone's). None free is
// an error that says what to add.
func FreeNATSubnet(subnets []*compute.Subnetwork, attachments []*compute.ServiceAttachment, attachment string) (*compute.Subnetwork, error) {
	usedBy := map[string]string{}
	for _, sa := range attachments {
		for _, nat := range sa.NatSubnets {
			usedBy[RelativeName(nat)] = sa.Name
		}
	}
	for _, s := range subnets {
		if usedBy[RelativeName(s.SelfLink)] == attachment {
			return s, nil
		}
	}
	for _, s := range subnets {
		if _, taken := usedBy[RelativeName(s.SelfLink)]; !taken {
			return s, nil
		}
	}
	return nil, &cloud.Error{Doing: "choosing a NAT subnetwork", Class: cloud.ClassClientError, Code: CodeNATSubnetsExhausted,
		Message: fmt.Sprintf("each of the management network's %d Private Service Connect NAT subnetworks serves another service attachment, and one serves only one: add a subnetwork of purpose %s to the management network in this region",
			len(subnets), PurposePrivateServiceConnect)}
}
