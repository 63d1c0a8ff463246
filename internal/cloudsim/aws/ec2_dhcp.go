package aws

func init() {
	registerEC2("CreateDhcpOptions", createDhcpOptions)
	registerEC2("AssociateDhcpOptions", associateDhcpOptions)
	registerEC2("DescribeDhcpOptions", describeDhcpOptions)
	registerEC2("DeleteDhcpOptions", deleteDhcpOptions)
}

var dhcpOptionKeys = map[string]bool{
	"domain-name": true, "domain-name-servers": true, "ntp-servers": true, "netbios-name-servers": true,
	"netbios-node-type": true, "ipv6-address-preferred-lease-time": true,
}

type dhcpValueXML struct {
	Value string `xml:"value"`
}

type dhcpConfigurationXML struct {
	Key    string         `xml:"key"`
	Values []dhcpValueXML `xml:"valueSet>item"`
}

type dhcpOptionsXML struct {
	ID             string                 `xml:"dhcpOptionsId"`
	OwnerID        string                 `xml:"ownerId"`
	Configurations []dhcpConfigurationXML `xml:"dhcpConfigurationSet>item"`
	Tags           []ec2Tag               `xml:"tagSet>item"`
}

func (r *Region) dhcpOptionsXML(d *DhcpOptions) dhcpOptionsXML {
	out := dhcpOptionsXML{ID: d.ID, OwnerID: d.OwnerID, Tags: r.tagSet(d.ID)}
	for _, c := range d.Configurations {
		x := dhcpConfigurationXML{Key: c.Key}
		for _, v := range c.Values {
			x.Values = append(x.Values, dhcpValueXML{v})
		}
		out.Configurations = append(out.Configurations, x)
	}
	return out
}

type createDhcpOptionsResult struct {
	DhcpOptions dhcpOptionsXML `xml:"dhcpOptions"`
}

func createDhcpOptions(call *Call) (any, *APIError) {
	r := call.Region
	var configs []DhcpConfiguration
	seen := map[string]bool{}
	for _, p := range call.Structs("DhcpConfiguration") {
		key := call.Str(p + ".Key")
		if !dhcpOptionKeys[key] {
			return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter name is invalid. Unknown DHCP option", key)
		}
		if seen[key] {
			return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter name is invalid. Duplicate DHCP option", key)
		}
		seen[key] = true
		values := call.List(p + ".Value")
		if len(values) == 0 {
			return nil, errBadRequest("InvalidParameterValue", "Value for DHCP option %s must be specified", key)
		}
		configs = append(configs, DhcpConfiguration{Key: key, Values: values})
	}
	if len(configs) == 0 {
		return nil, errMissingParameter("DhcpConfiguration")
	}
	tags, err := createTags(call, "dhcp-options")
	if err != nil {
		return nil, err
	}
	d := &DhcpOptions{ID: r.newEC2ID(kindDhcpOptions), OwnerID: r.AccountID, Configurations: configs}
	r.EC2.DhcpOptions[d.ID] = d
	r.SetTags(d.ID, tags)
	return createDhcpOptionsResult{DhcpOptions: r.dhcpOptionsXML(d)}, nil
}

// associateDhcpOptions sets a VPC's options; "default" means none.
func associateDhcpOptions(call *Call) (any, *APIError) {
	r := call.Region
	optsID, err := call.Required("DhcpOptionsId")
	if err != nil {
		return nil, err
	}
	vpcID, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	v, err := lookup(r.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, err
	}
	if optsID != "default" {
		if _, err := lookup(r.EC2.DhcpOptions, kindDhcpOptions, optsID); err != nil {
			return nil, err
		}
	}
	v.DhcpOptionsID = optsID
	return ec2True, nil
}

type describeDhcpOptionsResult struct {
	DhcpOptions []dhcpOptionsXML `xml:"dhcpOptionsSet>item"`
	NextToken   string           `xml:"nextToken,omitempty"`
}

func describeDhcpOptions(call *Call) (any, *APIError) {
	r := call.Region
	var sets []*DhcpOptions
	if ids := call.List("DhcpOptionsId"); len(ids) > 0 {
		var err *APIError
		if sets, err = lookupAll(r.EC2.DhcpOptions, kindDhcpOptions, ids); err != nil {
			return nil, err
		}
	} else {
		for _, d := range r.EC2.DhcpOptions {
			sets = append(sets, d)
		}
	}
	filters := call.Filters()
	var matched []*DhcpOptions
	for _, d := range sets {
		var keys, values []string
		for _, c := range d.Configurations {
			keys = append(keys, c.Key)
			values = append(values, c.Values...)
		}
		ok, err := matchFields(filters, r.TagsOf(d.ID), map[string][]string{
			"dhcp-options-id": {d.ID}, "key": keys, "value": values, "owner-id": {d.OwnerID},
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, d)
		}
	}
	page, next, err := ec2Page(call, matched, func(d *DhcpOptions) string { return d.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeDhcpOptionsResult{NextToken: next}
	for _, d := range page {
		out.DhcpOptions = append(out.DhcpOptions, r.dhcpOptionsXML(d))
	}
	return out, nil
}

func deleteDhcpOptions(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("DhcpOptionsId")
	if err != nil {
		return nil, err
	}
	if _, err := lookup(r.EC2.DhcpOptions, kindDhcpOptions, id); err != nil {
		return nil, err
	}
	for _, v := range r.EC2.VPCs {
		if v.DhcpOptionsID == id {
			return nil, errDependency("dhcpOptions", id)
		}
	}
	delete(r.EC2.DhcpOptions, id)
	r.ForgetTags(id)
	return ec2True, nil
}
