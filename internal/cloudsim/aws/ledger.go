package aws

import (
	"encoding/xml"
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The AWS half's part in sim.Ledger: its inventory, and the resources a
// mutating call acts on.

// inventory lists every resource the ledger follows: the EC2 network
// (VPCs, subnets, security groups), PrivateLink (endpoints, endpoint
// services), load balancers, and Route 53 zones and record sets. Callers
// hold c.mu.
func (c *Cloud) inventory() []sim.InventoryItem {
	var out []sim.InventoryItem
	for _, a := range c.accounts {
		add := func(kind, id string, tags map[string]string) {
			out = append(out, sim.InventoryItem{Cloud: "aws", Account: a.ID, Kind: kind, ID: id, Tags: tags})
		}
		for _, r := range a.Regions {
			for id := range r.EC2.VPCs {
				add("ec2:vpc", id, r.TagsOf(id))
			}
			for id := range r.EC2.Subnets {
				add("ec2:subnet", id, r.TagsOf(id))
			}
			for id := range r.EC2.SecurityGroups {
				add("ec2:security-group", id, r.TagsOf(id))
			}
			for id, ep := range r.PrivateLink.Endpoints {
				add("ec2:vpc-endpoint", id, r.TagsOf(id))
				out[len(out)-1].Deleting = ep.State == EndpointDeleting
			}
			for id := range r.PrivateLink.Services {
				add("ec2:vpc-endpoint-service", id, r.TagsOf(id))
			}
			for arn := range r.ELB.LoadBalancers {
				add("elasticloadbalancing:loadbalancer", arn, r.TagsOf(arn))
			}
		}
		for id, z := range a.Route53.HostedZones {
			add("route53:hostedzone", id, z.Tags)
			for key := range z.Records {
				add("route53:recordset", recordLedgerID(id, key), nil)
			}
		}
	}
	return out
}

func recordLedgerID(zoneID, key string) string { return zoneID + "/" + key }

// targetParams are the Query parameters that name the resource a call acts
// on (with .N or .member.N for lists). Parameters that only refer to
// another resource (the VpcId of CreateVpcEndpoint, a rule's peer group)
// are not targets.
var targetParams = map[string]bool{
	"VpcEndpointId": true, "GroupId": true, "ServiceId": true, "ResourceId": true,
	"ResourceArns": true, "LoadBalancerArn": true,
}

// targets are the existing resources call acts on.
func (call *Call) targets() []string {
	if call.Service == "route53" {
		return route53Targets(call)
	}
	var out []string
	for name, values := range call.Params {
		base, _, _ := strings.Cut(name, ".")
		if targetParams[base] {
			out = append(out, values...)
		}
	}
	return out
}

// route53Targets are a call's zone and, for a change batch, its record sets.
func route53Targets(call *Call) []string {
	zone := bareZoneID(call.PathVars["Id"])
	if zone == "" {
		zone = bareZoneID(call.PathVars["ResourceId"])
	}
	if call.Action != "ChangeResourceRecordSets" {
		if zone == "" {
			return nil
		}
		return []string{zone}
	}
	var req changeResourceRecordSetsRequest
	if xml.Unmarshal(call.Body, &req) != nil {
		return nil
	}
	var out []string
	for i, ch := range req.ChangeBatch.Changes {
		if rs, err := recordSetFromWire(i+1, ch.Action, ch.ResourceRecordSet); err == nil && rs != nil {
			out = append(out, recordLedgerID(zone, recordKey(rs.Name, rs.Type)))
		}
	}
	return out
}

// callerOf is how the ledger names a caller: its ARN.
func (call *Call) callerOf() string { return call.Principal.ARN }

// record tells the ledger about a successful mutating call. Callers hold c.mu.
func (c *Cloud) record(call *Call) {
	if c.ledger == nil || !c.ledger.On() || !sim.IsMutating(call.key()) {
		return
	}
	c.ledger.Touched("aws", call.key().String(), call.callerOf(), call.targets(), call.Now)
	c.ledger.Observe("aws", c.inventory(), call.callerOf(), call.Now)
}

// Inventory lists the resources the ledger follows, for its baseline.
func (c *Cloud) Inventory() []sim.InventoryItem {
	var out []sim.InventoryItem
	c.Inspect(func(map[string]*Account) { out = c.inventory() })
	return out
}
