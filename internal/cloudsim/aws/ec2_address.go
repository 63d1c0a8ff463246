package aws

import (
	"fmt"
	"math/rand/v2"
)

func init() {
	registerEC2("AllocateAddress", allocateAddress)
	registerEC2("DescribeAddresses", describeAddresses)
	registerEC2("ReleaseAddress", releaseAddress)
}

type addressXML struct {
	AllocationID            string   `xml:"allocationId"`
	PublicIP                string   `xml:"publicIp"`
	Domain                  string   `xml:"domain"`
	PublicIpv4Pool          string   `xml:"publicIpv4Pool"`
	NetworkBorderGroup      string   `xml:"networkBorderGroup"`
	AssociationID           string   `xml:"associationId,omitempty"`
	NetworkInterfaceID      string   `xml:"networkInterfaceId,omitempty"`
	NetworkInterfaceOwnerID string   `xml:"networkInterfaceOwnerId,omitempty"`
	PrivateIPAddress        string   `xml:"privateIpAddress,omitempty"`
	Tags                    []ec2Tag `xml:"tagSet>item"`
}

func (r *Region) addressXML(a *ElasticIP) addressXML {
	out := addressXML{AllocationID: a.AllocationID, PublicIP: a.PublicIP, Domain: a.Domain, PublicIpv4Pool: "amazon",
		NetworkBorderGroup: a.NetworkBorderGroup, AssociationID: a.AssociationID, NetworkInterfaceID: a.NetworkInterfaceID,
		PrivateIPAddress: a.PrivateIP, Tags: r.tagSet(a.AllocationID)}
	if a.NetworkInterfaceID != "" {
		out.NetworkInterfaceOwnerID = r.AccountID
	}
	return out
}

type allocateAddressResult struct {
	PublicIP           string `xml:"publicIp"`
	AllocationID       string `xml:"allocationId"`
	Domain             string `xml:"domain"`
	PublicIpv4Pool     string `xml:"publicIpv4Pool"`
	NetworkBorderGroup string `xml:"networkBorderGroup"`
}

func allocateAddress(call *Call) (any, *APIError) {
	r := call.Region
	if d := call.Str("Domain"); d != "" && d != "vpc" {
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter domain is invalid. Only 'vpc' addresses exist since EC2-Classic was retired.", d)
	}
	if call.Str("Address") != "" || call.Str("IpamPoolId") != "" || call.Str("CustomerOwnedIpv4Pool") != "" {
		return nil, errBadRequest("UnsupportedOperation", "cloudsim allocates Elastic IPs from Amazon's pool only")
	}
	tags, err := createTags(call, "elastic-ip")
	if err != nil {
		return nil, err
	}
	if len(r.EC2.Addresses) >= quota(r.EC2.Quotas.ElasticIPs, 5) {
		return nil, errLimit("AddressLimitExceeded", "addresses")
	}
	a := &ElasticIP{AllocationID: r.newEC2ID(kindAddress), PublicIP: call.Cloud.freePublicIP(r.Name), Domain: "vpc",
		NetworkBorderGroup: r.Name, AllocatedAt: call.Now}
	r.EC2.Addresses[a.AllocationID] = a
	r.SetTags(a.AllocationID, tags)
	return allocateAddressResult{PublicIP: a.PublicIP, AllocationID: a.AllocationID, Domain: a.Domain,
		PublicIpv4Pool: "amazon", NetworkBorderGroup: a.NetworkBorderGroup}, nil
}

// freePublicIP picks an address no account holds in the region. Callers
// hold the cloud's lock.
func (c *Cloud) freePublicIP(region string) string {
	for {
		ip := fmt.Sprintf("3.%d.%d.%d", 208+rand.IntN(32), rand.IntN(256), 1+rand.IntN(254))
		taken := false
		for _, acct := range c.accounts {
			if r := acct.Regions[region]; r != nil {
				for _, a := range r.EC2.Addresses {
					taken = taken || a.PublicIP == ip
				}
			}
		}
		if !taken {
			return ip
		}
	}
}

type describeAddressesResult struct {
	Addresses []addressXML `xml:"addressesSet>item"`
}

// describeAddresses is not paginated on AWS.
func describeAddresses(call *Call) (any, *APIError) {
	r := call.Region
	var addrs []*ElasticIP
	ids, ips := call.List("AllocationId"), call.List("PublicIp")
	if len(ids) > 0 {
		var err *APIError
		if addrs, err = lookupAll(r.EC2.Addresses, kindAddress, ids); err != nil {
			return nil, err
		}
	} else {
		for _, a := range r.EC2.Addresses {
			addrs = append(addrs, a)
		}
	}
	for _, ip := range ips {
		if r.addressByIP(ip) == nil {
			return nil, errNotFound("InvalidAddress.NotFound", "Address '%s' not found.", ip)
		}
	}
	filters := call.Filters()
	var out describeAddressesResult
	for _, a := range sortedByKey(addrs, func(a *ElasticIP) string { return a.AllocationID }) {
		if len(ips) > 0 && !contains(ips, a.PublicIP) {
			continue
		}
		var ifaceOwner string
		if a.NetworkInterfaceID != "" {
			ifaceOwner = r.AccountID
		}
		ok, err := matchFields(filters, r.TagsOf(a.AllocationID), map[string][]string{
			"allocation-id":              {a.AllocationID},
			"association-id":             nonEmpty(a.AssociationID),
			"domain":                     {a.Domain},
			"public-ip":                  {a.PublicIP},
			"network-border-group":       {a.NetworkBorderGroup},
			"network-interface-id":       nonEmpty(a.NetworkInterfaceID),
			"network-interface-owner-id": nonEmpty(ifaceOwner),
			"private-ip-address":         nonEmpty(a.PrivateIP),
			"instance-id":                nil,
		})
		if err != nil {
			return nil, err
		}
		if ok {
			out.Addresses = append(out.Addresses, r.addressXML(a))
		}
	}
	return out, nil
}

func (r *Region) addressByIP(ip string) *ElasticIP {
	for _, a := range r.EC2.Addresses {
		if a.PublicIP == ip {
			return a
		}
	}
	return nil
}

// releaseAddress refuses while a NAT gateway holds the address.
func releaseAddress(call *Call) (any, *APIError) {
	r := call.Region
	id := call.Str("AllocationId")
	if id == "" {
		if call.Str("PublicIp") != "" {
			return nil, errBadRequest("InvalidParameterValue", "You must specify an allocation id when releasing a VPC elastic IP address")
		}
		return nil, errMissingParameter("AllocationId")
	}
	a, err := lookup(r.EC2.Addresses, kindAddress, id)
	if err != nil {
		return nil, err
	}
	if a.AssociationID != "" {
		return nil, errBadRequest("InvalidIPAddress.InUse", "Address %s is in use.", a.PublicIP)
	}
	delete(r.EC2.Addresses, id)
	r.ForgetTags(id)
	return ec2True, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
