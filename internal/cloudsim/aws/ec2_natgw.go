package aws

import (
	"net/netip"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func init() {
	registerEC2("CreateNatGateway", createNatGateway)
	registerEC2("DescribeNatGateways", describeNatGateways)
	registerEC2("DeleteNatGateway", deleteNatGateway)
	registerAdvancer(advanceNatGateways)
}

// natGatewayVisibleAfterEnd is how long AWS keeps listing a deleted or
// failed NAT gateway before it disappears.
const natGatewayVisibleAfterEnd = time.Hour

// holdsAddress reports whether the gateway occupies a private address (and
// its Elastic IP): from creation until it is deleted, unless it failed.
func (g *NatGateway) holdsAddress() bool {
	return g.FailureCode == "" && g.State != "deleted" && g.State != "failed"
}

type natGatewayAddressXML struct {
	AllocationID       string `xml:"allocationId,omitempty"`
	NetworkInterfaceID string `xml:"networkInterfaceId,omitempty"`
	PrivateIP          string `xml:"privateIp,omitempty"`
	PublicIP           string `xml:"publicIp,omitempty"`
	AssociationID      string `xml:"associationId,omitempty"`
	IsPrimary          bool   `xml:"isPrimary"`
	Status             string `xml:"status"`
}

type natGatewayXML struct {
	ID               string                 `xml:"natGatewayId"`
	SubnetID         string                 `xml:"subnetId"`
	VpcID            string                 `xml:"vpcId"`
	State            string                 `xml:"state"`
	ConnectivityType string                 `xml:"connectivityType"`
	CreateTime       string                 `xml:"createTime"`
	DeleteTime       string                 `xml:"deleteTime,omitempty"`
	FailureCode      string                 `xml:"failureCode,omitempty"`
	FailureMessage   string                 `xml:"failureMessage,omitempty"`
	Addresses        []natGatewayAddressXML `xml:"natGatewayAddressSet>item"`
	Tags             []ec2Tag               `xml:"tagSet>item"`
}

var natAddressStatus = map[string]string{
	"pending": "associating", "available": "succeeded", "deleting": "disassociating", "deleted": "succeeded", "failed": "failed",
}

func (r *Region) natGatewayXML(g *NatGateway) natGatewayXML {
	out := natGatewayXML{ID: g.ID, SubnetID: g.SubnetID, VpcID: g.VpcID, State: g.State, ConnectivityType: g.ConnectivityType,
		CreateTime: ec2Time(g.CreatedAt), Tags: r.tagSet(g.ID)}
	if g.State == "failed" || (g.State == "deleted" && g.FailureCode != "") {
		out.FailureCode, out.FailureMessage = g.FailureCode, g.FailureMessage
	}
	if g.State == "deleted" {
		out.DeleteTime = ec2Time(g.DeletedAt)
	}
	out.Addresses = []natGatewayAddressXML{{AllocationID: g.AllocationID, NetworkInterfaceID: g.NetworkInterfaceID,
		PrivateIP: g.PrivateIP, PublicIP: g.PublicIP, AssociationID: g.AssociationID, IsPrimary: true,
		Status: natAddressStatus[g.State]}}
	return out
}

type createNatGatewayResult struct {
	ClientToken string        `xml:"clientToken,omitempty"`
	NatGateway  natGatewayXML `xml:"natGateway"`
}

// createNatGateway starts a gateway in state pending. Problems AWS only
// finds while provisioning (the Elastic IP already in use, no internet
// gateway on the VPC, a full subnet) are not errors here either: the
// gateway goes to failed with AWS's failure code.
func createNatGateway(call *Call) (any, *APIError) {
	r := call.Region
	token := call.Str("ClientToken")
	fingerprint := call.Fingerprint()
	if id, found, err := r.IdempotentLookup("CreateNatGateway", token, fingerprint); err != nil {
		return nil, err
	} else if g := r.EC2.NatGateways[id]; found && g != nil {
		return createNatGatewayResult{ClientToken: token, NatGateway: r.natGatewayXML(g)}, nil
	}

	subnetID, err := call.Required("SubnetId")
	if err != nil {
		return nil, err
	}
	s, err := lookup(r.EC2.Subnets, kindSubnet, subnetID)
	if err != nil {
		return nil, err
	}
	connectivity := call.Str("ConnectivityType")
	if connectivity == "" {
		connectivity = "public"
	}
	allocationID := call.Str("AllocationId")
	var addr *ElasticIP
	switch connectivity {
	case "public":
		if allocationID == "" {
			return nil, errMissingParameter("AllocationId")
		}
		if addr, err = lookup(r.EC2.Addresses, kindAddress, allocationID); err != nil {
			return nil, err
		}
	case "private":
		if allocationID != "" {
			return nil, errBadRequest("InvalidParameterCombination", "A private NAT gateway cannot have an Elastic IP address (AllocationId)")
		}
	default:
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter connectivityType is invalid.", connectivity)
	}
	tags, err := createTags(call, "natgateway")
	if err != nil {
		return nil, err
	}
	inZone := 0
	for _, other := range r.EC2.NatGateways {
		if other.holdsAddress() && r.EC2.Subnets[other.SubnetID] != nil &&
			r.EC2.Subnets[other.SubnetID].AvailabilityZone == s.AvailabilityZone {
			inZone++
		}
	}
	if inZone >= quota(r.EC2.Quotas.NatGatewaysPerZone, 5) {
		return nil, errLimit("NatGatewayLimitExceeded", "NAT gateways")
	}

	g := &NatGateway{ID: r.newEC2ID(kindNatGateway), SubnetID: s.ID, VpcID: s.VpcID, ConnectivityType: connectivity,
		State: "pending", AllocationID: allocationID, CreatedAt: call.Now,
		ReadyAt: call.Now.Add(call.Cloud.Delays().NatGatewayPending.D())}
	switch {
	case addr != nil && addr.AssociationID != "":
		g.FailureCode, g.FailureMessage = "Resource.AlreadyAssociated", "Elastic IP address ["+addr.AllocationID+"] is already associated"
	case addr != nil && r.internetGatewayOf(s.VpcID) == nil:
		g.FailureCode, g.FailureMessage = "Gateway.NotAttached", "Network "+s.VpcID+" has no Internet gateway attached"
	case r.availableAddresses(s) == 0:
		g.FailureCode, g.FailureMessage = "InsufficientFreeAddressesInSubnet", "Subnet has insufficient free addresses to create this NAT gateway"
	default:
		if rule := injectedProvisioningFailure(call); rule != nil {
			g.FailureCode, g.FailureMessage = rule.Code, rule.Message
		}
	}
	if addr != nil {
		g.PublicIP = addr.PublicIP
	}
	if g.FailureCode == "" {
		s.HostsHandedOut++
		prefix, _ := netip.ParsePrefix(s.CidrBlock)
		// .0 is the network, .1–.3 are reserved by AWS.
		g.PrivateIP = hostAddress(prefix, 3+s.HostsHandedOut)
		g.NetworkInterfaceID = NewID("eni")
		if addr != nil {
			g.AssociationID = NewID("eipassoc")
			addr.AssociationID, addr.NetworkInterfaceID, addr.PrivateIP, addr.NatGatewayID =
				g.AssociationID, g.NetworkInterfaceID, g.PrivateIP, g.ID
		}
	}
	r.EC2.NatGateways[g.ID] = g
	r.SetTags(g.ID, tags)
	r.RememberToken("CreateNatGateway", token, fingerprint, g.ID)
	return createNatGatewayResult{ClientToken: token, NatGateway: r.natGatewayXML(g)}, nil
}

// NatGatewayProvisioning is the operation an error rule names to make a
// NAT gateway fail while it provisions, as AWS's own failures do: the
// create succeeds, the gateway goes from pending to failed with the rule's
// code and message, and holds no address. Only rules naming it fire.
const NatGatewayProvisioning = "NatGatewayProvisioning"

func injectedProvisioningFailure(call *Call) *sim.ErrorRule {
	if call.Cloud.faults == nil || !namesProvisioning(call.Cloud.faults.Get().Errors) {
		return nil // no draw from the faults' counters or random source for other rules
	}
	d := call.Cloud.faults.Decide(sim.Call{Account: call.Principal.Account, Region: call.RegionID,
		Key: sim.CallKey{Service: "ec2", Operation: NatGatewayProvisioning}})
	if d.Error == nil || d.Error.Operation != NatGatewayProvisioning {
		return nil
	}
	return d.Error
}

func namesProvisioning(rules []sim.ErrorRule) bool {
	for _, r := range rules {
		if r.Operation == NatGatewayProvisioning {
			return true
		}
	}
	return false
}

// advanceNatGateways moves gateways along pending → available | failed and
// deleting → deleted, releases a deleted gateway's Elastic IP, and drops
// gateways an hour after they ended.
func advanceNatGateways(r *Region, now time.Time) {
	for id, g := range r.EC2.NatGateways {
		if g.State == "pending" && !now.Before(g.ReadyAt) {
			if g.FailureCode != "" {
				g.State, g.GoneAt = "failed", g.ReadyAt.Add(natGatewayVisibleAfterEnd)
			} else {
				g.State = "available"
			}
		}
		if g.State == "deleting" && !now.Before(g.DeletedAt) {
			g.State, g.GoneAt = "deleted", g.DeletedAt.Add(natGatewayVisibleAfterEnd)
			if a := r.EC2.Addresses[g.AllocationID]; a != nil && a.NatGatewayID == g.ID {
				a.AssociationID, a.NetworkInterfaceID, a.PrivateIP, a.NatGatewayID = "", "", "", ""
			}
			g.AssociationID = ""
		}
		if (g.State == "deleted" || g.State == "failed") && !now.Before(g.GoneAt) {
			delete(r.EC2.NatGateways, id)
			r.ForgetTags(id)
		}
	}
}

type describeNatGatewaysResult struct {
	NatGateways []natGatewayXML `xml:"natGatewaySet>item"`
	NextToken   string          `xml:"nextToken,omitempty"`
}

func describeNatGateways(call *Call) (any, *APIError) {
	r := call.Region
	var gws []*NatGateway
	if ids := call.List("NatGatewayId"); len(ids) > 0 {
		var err *APIError
		if gws, err = lookupAll(r.EC2.NatGateways, kindNatGateway, ids); err != nil {
			return nil, err
		}
	} else {
		for _, g := range r.EC2.NatGateways {
			gws = append(gws, g)
		}
	}
	filters := call.Filters()
	var matched []*NatGateway
	for _, g := range gws {
		ok, err := matchFields(filters, r.TagsOf(g.ID), map[string][]string{
			"nat-gateway-id": {g.ID}, "state": {g.State}, "subnet-id": {g.SubnetID}, "vpc-id": {g.VpcID},
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, g)
		}
	}
	page, next, err := ec2Page(call, matched, func(g *NatGateway) string { return g.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeNatGatewaysResult{NextToken: next}
	for _, g := range page {
		out.NatGateways = append(out.NatGateways, r.natGatewayXML(g))
	}
	return out, nil
}

type deleteNatGatewayResult struct {
	NatGatewayID string `xml:"natGatewayId"`
}

// deleteNatGateway starts the deletion; repeating it while the gateway is
// deleting or deleted is harmless, as on AWS.
func deleteNatGateway(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("NatGatewayId")
	if err != nil {
		return nil, err
	}
	g, err := lookup(r.EC2.NatGateways, kindNatGateway, id)
	if err != nil {
		return nil, err
	}
	if g.State != "deleting" && g.State != "deleted" {
		if g.State == "failed" {
			// A failed gateway holds nothing; it is simply gone sooner.
			g.State, g.DeletedAt = "deleted", call.Now
			g.GoneAt = call.Now.Add(natGatewayVisibleAfterEnd)
		} else {
			g.State, g.DeleteRequestedAt = "deleting", call.Now
			g.DeletedAt = call.Now.Add(call.Cloud.Delays().NatGatewayDeleting.D())
		}
		// With a zero deletion delay the gateway is deleted before this returns.
		advanceNatGateways(r, call.Now)
	}
	return deleteNatGatewayResult{NatGatewayID: id}, nil
}
