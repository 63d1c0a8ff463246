package aws

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

func init() {
	registerEC2("CreateSecurityGroup", createSecurityGroup)
	registerEC2("DescribeSecurityGroups", describeSecurityGroups)
	registerEC2("DeleteSecurityGroup", deleteSecurityGroup)
	registerEC2("AuthorizeSecurityGroupIngress", func(call *Call) (any, *APIError) { return authorizeSecurityGroup(call, false) })
	registerEC2("AuthorizeSecurityGroupEgress", func(call *Call) (any, *APIError) { return authorizeSecurityGroup(call, true) })
	registerEC2("RevokeSecurityGroupIngress", func(call *Call) (any, *APIError) { return revokeSecurityGroup(call, false) })
	registerEC2("RevokeSecurityGroupEgress", func(call *Call) (any, *APIError) { return revokeSecurityGroup(call, true) })
	registerEC2("DescribeSecurityGroupRules", describeSecurityGroupRules)
}

func (r *Region) findSGRule(id string) (*SecurityGroup, *SecurityGroupRule) {
	for _, sg := range r.EC2.SecurityGroups {
		for _, rule := range sg.Rules {
			if rule.ID == id {
				return sg, rule
			}
		}
	}
	return nil, nil
}

// forgetSecurityGroup removes a group and its rules' tags.
func (r *Region) forgetSecurityGroup(sg *SecurityGroup) {
	for _, rule := range sg.Rules {
		r.ForgetTags(rule.ID)
	}
	delete(r.EC2.SecurityGroups, sg.ID)
	r.ForgetTags(sg.ID)
}

// groupByName resolves a GroupName parameter. AWS accepts names only for
// groups in the default VPC, and cloudsim accounts have no default VPC
// unless one is marked so, which makes this AWS's answer for that case.
func (r *Region) groupByName(name string) (*SecurityGroup, *APIError) {
	var defaultVPC *VPC
	for _, v := range r.EC2.VPCs {
		if v.IsDefault {
			defaultVPC = v
		}
	}
	if defaultVPC == nil {
		return nil, errBadRequest("VPCIdNotSpecified", "No default VPC for this user. GroupName is only supported for EC2-Classic and default VPC.")
	}
	for _, sg := range r.EC2.SecurityGroups {
		if sg.VpcID == defaultVPC.ID && sg.Name == name {
			return sg, nil
		}
	}
	return nil, errNotFound("InvalidGroup.NotFound", "The security group '%s' does not exist in default VPC '%s'", name, defaultVPC.ID)
}

// groupParam resolves the GroupId (or, for the default VPC, GroupName) a
// call names.
func groupParam(call *Call) (*SecurityGroup, *APIError) {
	if id := call.Str("GroupId"); id != "" {
		return lookup(call.Region.EC2.SecurityGroups, kindSecurityGroup, id)
	}
	if name := call.Str("GroupName"); name != "" {
		return call.Region.groupByName(name)
	}
	return nil, errMissingParameter("GroupId")
}

type ipRangeXML struct {
	CidrIP      string `xml:"cidrIp"`
	Description string `xml:"description,omitempty"`
}

type ipv6RangeXML struct {
	CidrIPv6    string `xml:"cidrIpv6"`
	Description string `xml:"description,omitempty"`
}

type prefixListIDXML struct {
	PrefixListID string `xml:"prefixListId"`
	Description  string `xml:"description,omitempty"`
}

type userIDGroupPairXML struct {
	GroupID     string `xml:"groupId"`
	UserID      string `xml:"userId"`
	VpcID       string `xml:"vpcId,omitempty"`
	Description string `xml:"description,omitempty"`
}

type ipPermissionXML struct {
	IPProtocol    string               `xml:"ipProtocol"`
	FromPort      *int                 `xml:"fromPort,omitempty"`
	ToPort        *int                 `xml:"toPort,omitempty"`
	Groups        []userIDGroupPairXML `xml:"groups>item"`
	IPRanges      []ipRangeXML         `xml:"ipRanges>item"`
	IPv6Ranges    []ipv6RangeXML       `xml:"ipv6Ranges>item"`
	PrefixListIDs []prefixListIDXML    `xml:"prefixListIds>item"`
}

type securityGroupXML struct {
	OwnerID       string            `xml:"ownerId"`
	GroupID       string            `xml:"groupId"`
	GroupName     string            `xml:"groupName"`
	Description   string            `xml:"groupDescription"`
	VpcID         string            `xml:"vpcId"`
	ARN           string            `xml:"securityGroupArn"`
	IPPermissions []ipPermissionXML `xml:"ipPermissions>item"`
	Egress        []ipPermissionXML `xml:"ipPermissionsEgress>item"`
	Tags          []ec2Tag          `xml:"tagSet>item"`
}

// hasPorts reports whether a protocol's rules carry ports (or ICMP type
// and code) in the IpPermission view.
func hasPorts(protocol string) bool {
	return protocol == "tcp" || protocol == "udp" || protocol == "icmp" || protocol == "icmpv6"
}

// permissions groups rules the way DescribeSecurityGroups shows them: one
// IpPermission per protocol and port range, listing every peer.
func (r *Region) permissions(sg *SecurityGroup, egress bool) []ipPermissionXML {
	var out []ipPermissionXML
	index := map[string]int{}
	for _, rule := range sg.Rules {
		if rule.Egress != egress {
			continue
		}
		key := fmt.Sprintf("%s/%d/%d", rule.Protocol, rule.FromPort, rule.ToPort)
		i, ok := index[key]
		if !ok {
			p := ipPermissionXML{IPProtocol: rule.Protocol}
			if hasPorts(rule.Protocol) {
				from, to := rule.FromPort, rule.ToPort
				p.FromPort, p.ToPort = &from, &to
			}
			out = append(out, p)
			i = len(out) - 1
			index[key] = i
		}
		p := &out[i]
		switch {
		case rule.CidrIPv4 != "":
			p.IPRanges = append(p.IPRanges, ipRangeXML{rule.CidrIPv4, rule.Description})
		case rule.CidrIPv6 != "":
			p.IPv6Ranges = append(p.IPv6Ranges, ipv6RangeXML{rule.CidrIPv6, rule.Description})
		case rule.PrefixListID != "":
			p.PrefixListIDs = append(p.PrefixListIDs, prefixListIDXML{rule.PrefixListID, rule.Description})
		case rule.ReferencedGroupID != "":
			pair := userIDGroupPairXML{GroupID: rule.ReferencedGroupID, UserID: r.AccountID, Description: rule.Description}
			if ref := r.EC2.SecurityGroups[rule.ReferencedGroupID]; ref != nil && ref.VpcID != sg.VpcID {
				pair.VpcID = ref.VpcID
			}
			p.Groups = append(p.Groups, pair)
		}
	}
	return out
}

func (r *Region) securityGroupXML(sg *SecurityGroup) securityGroupXML {
	return securityGroupXML{OwnerID: sg.OwnerID, GroupID: sg.ID, GroupName: sg.Name, Description: sg.Description,
		VpcID: sg.VpcID, ARN: r.ec2ARN("security-group", sg.ID), IPPermissions: r.permissions(sg, false),
		Egress: r.permissions(sg, true), Tags: r.tagSet(sg.ID)}
}

type createSecurityGroupResult struct {
	GroupID string   `xml:"groupId"`
	ARN     string   `xml:"securityGroupArn"`
	Tags    []ec2Tag `xml:"tagSet>item"`
}

func createSecurityGroup(call *Call) (any, *APIError) {
	r := call.Region
	name, err := call.Required("GroupName")
	if err != nil {
		return nil, err
	}
	description, err := call.Required("GroupDescription")
	if err != nil {
		return nil, err
	}
	vpcID := call.Str("VpcId")
	if vpcID == "" {
		return nil, errBadRequest("VPCIdNotSpecified", "No default VPC for this user")
	}
	switch {
	case len(name) > 255:
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter groupName is invalid. Group names must be at most 255 characters.", name)
	case len(description) > 255:
		return nil, errBadRequest("InvalidParameterValue", "Value for parameter groupDescription is invalid. Descriptions must be at most 255 characters.")
	case strings.HasPrefix(strings.ToLower(name), "sg-"):
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter groupName is invalid. Group names may not be in the format sg-*.", name)
	case name == "default":
		return nil, errBadRequest("InvalidGroup.Reserved", "The security group 'default' is reserved")
	}
	v, err := lookup(r.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, err
	}
	inVPC := 0
	for _, sg := range r.EC2.SecurityGroups {
		if sg.VpcID != v.ID {
			continue
		}
		inVPC++
		if sg.Name == name {
			return nil, errBadRequest("InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, v.ID)
		}
	}
	tags, err := createTags(call, "security-group")
	if err != nil {
		return nil, err
	}
	if inVPC >= quota(r.EC2.Quotas.SecurityGroupsPerVPC, 2500) {
		return nil, errLimit("SecurityGroupLimitExceeded", "security groups")
	}
	sg := &SecurityGroup{ID: r.newEC2ID(kindSecurityGroup), VpcID: v.ID, Name: name, Description: description, OwnerID: r.AccountID}
	sg.Rules = []*SecurityGroupRule{{ID: r.newEC2ID(kindSGRule), GroupID: sg.ID, Egress: true, Protocol: "-1",
		FromPort: -1, ToPort: -1, CidrIPv4: "0.0.0.0/0"}}
	r.EC2.SecurityGroups[sg.ID] = sg
	call.noteCreated(sg.ID)
	r.SetTags(sg.ID, tags)
	return createSecurityGroupResult{GroupID: sg.ID, ARN: r.ec2ARN("security-group", sg.ID), Tags: r.tagSet(sg.ID)}, nil
}

type describeSecurityGroupsResult struct {
	SecurityGroups []securityGroupXML `xml:"securityGroupInfo>item"`
	NextToken      string             `xml:"nextToken,omitempty"`
}

func describeSecurityGroups(call *Call) (any, *APIError) {
	r := call.Region
	var groups []*SecurityGroup
	ids, names := call.List("GroupId"), call.List("GroupName")
	live := readView(call, r.EC2.SecurityGroups)
	if len(ids) > 0 {
		var err *APIError
		if groups, err = lookupAll(live, kindSecurityGroup, ids); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		sg, err := r.groupByName(name)
		if err != nil {
			return nil, err
		}
		if !contains(ids, sg.ID) {
			groups = append(groups, sg)
		}
	}
	if len(ids) == 0 && len(names) == 0 {
		for _, sg := range live {
			groups = append(groups, sg)
		}
	}
	filters := call.Filters()
	var matched []*SecurityGroup
	for _, sg := range groups {
		fields := map[string][]string{
			"vpc-id": {sg.VpcID}, "group-id": {sg.ID}, "group-name": {sg.Name}, "description": {sg.Description},
			"owner-id": {sg.OwnerID},
		}
		for _, dir := range []string{"ip-permission.", "egress.ip-permission."} {
			for _, f := range []string{"cidr", "ipv6-cidr", "prefix-list-id", "group-id", "group-name", "protocol", "from-port", "to-port", "user-id"} {
				fields[dir+f] = nil
			}
		}
		for _, rule := range sg.Rules {
			dir := "ip-permission."
			if rule.Egress {
				dir = "egress.ip-permission."
			}
			add := func(f, v string) {
				if v != "" {
					fields[dir+f] = append(fields[dir+f], v)
				}
			}
			add("cidr", rule.CidrIPv4)
			add("ipv6-cidr", rule.CidrIPv6)
			add("prefix-list-id", rule.PrefixListID)
			add("group-id", rule.ReferencedGroupID)
			if ref := r.EC2.SecurityGroups[rule.ReferencedGroupID]; ref != nil {
				add("group-name", ref.Name)
				add("user-id", r.AccountID)
			}
			add("protocol", rule.Protocol)
			add("from-port", strconv.Itoa(rule.FromPort))
			add("to-port", strconv.Itoa(rule.ToPort))
		}
		ok, err := matchFields(filters, r.readTags(sg.ID), fields)
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, sg)
		}
	}
	page, next, err := ec2Page(call, matched, func(sg *SecurityGroup) string { return sg.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeSecurityGroupsResult{NextToken: next}
	for _, sg := range page {
		out.SecurityGroups = append(out.SecurityGroups, r.securityGroupXML(sg))
	}
	return out, nil
}

type deleteSecurityGroupResult struct {
	Return  bool   `xml:"return"`
	GroupID string `xml:"groupId"`
}

// deleteSecurityGroup refuses the default group, and any group a VPC
// endpoint or load balancer still uses (endpoint deletion is asynchronous,
// so callers meet this while an endpoint is deleting) or another group's
// rule references.
func deleteSecurityGroup(call *Call) (any, *APIError) {
	r := call.Region
	sg, err := groupParam(call)
	if err != nil {
		return nil, err
	}
	if sg.IsDefault {
		return nil, errBadRequest("CannotDelete", "the specified group: \"%s\" name: \"default\" cannot be deleted by a user", sg.ID)
	}
	dependent := len(r.EndpointsUsing(sg.ID)) > 0
	for _, lb := range r.ELB.LoadBalancers {
		dependent = dependent || contains(lb.SecurityGroupIDs, sg.ID)
	}
	for _, other := range r.EC2.SecurityGroups {
		for _, rule := range other.Rules {
			dependent = dependent || (other != sg && rule.ReferencedGroupID == sg.ID)
		}
	}
	if dependent {
		return nil, errBadRequest("DependencyViolation", "resource %s has a dependent object", sg.ID)
	}
	call.noteDeleted(sg.ID, sg)
	r.forgetSecurityGroup(sg)
	return deleteSecurityGroupResult{Return: true, GroupID: sg.ID}, nil
}

// normalizeProtocol maps names and numbers to the form AWS stores: tcp,
// udp, icmp, icmpv6 by name, -1 for all, other protocols by number.
func normalizeProtocol(p string) (string, bool) {
	switch strings.ToLower(p) {
	case "tcp", "6":
		return "tcp", true
	case "udp", "17":
		return "udp", true
	case "icmp", "1":
		return "icmp", true
	case "icmpv6", "58":
		return "icmpv6", true
	case "-1", "all":
		return "-1", true
	}
	if n, err := strconv.Atoi(p); err == nil && n >= 0 && n <= 255 {
		return strconv.Itoa(n), true
	}
	return "", false
}

// permissionParams is one IpPermissions.N (or the legacy top-level
// IpProtocol/FromPort/ToPort/CidrIp form) of a request.
type permissionParams struct {
	prefix string // "IpPermissions.N." or "" for the legacy form
	call   *Call
}

func (p permissionParams) str(name string) string { return p.call.Str(p.prefix + name) }

// requestedRules reads the rules an Authorize/Revoke call names, each
// a protocol and port range towards one peer, checked as AWS checks them.
func requestedRules(call *Call, sg *SecurityGroup, egress bool) ([]*SecurityGroupRule, *APIError) {
	var perms []permissionParams
	for _, p := range call.Structs("IpPermissions") {
		perms = append(perms, permissionParams{prefix: p + ".", call: call})
	}
	if call.Str("IpProtocol") != "" || call.Str("CidrIp") != "" || call.Str("SourceSecurityGroupName") != "" {
		perms = append(perms, permissionParams{call: call})
	}
	if len(perms) == 0 {
		return nil, errMissingParameter("IpPermissions")
	}
	var rules []*SecurityGroupRule
	for _, p := range perms {
		raw := p.str("IpProtocol")
		if raw == "" {
			return nil, errMissingParameter("IpProtocol")
		}
		protocol, ok := normalizeProtocol(raw)
		if !ok {
			return nil, errBadRequest("InvalidParameterValue", "Invalid value '%s' for IP protocol. Unknown protocol.", raw)
		}
		from, to, err := portRange(protocol, p.str("FromPort"), p.str("ToPort"))
		if err != nil {
			return nil, err
		}
		base := SecurityGroupRule{GroupID: sg.ID, Egress: egress, Protocol: protocol, FromPort: from, ToPort: to}
		peers, err := requestedPeers(call, sg, p)
		if err != nil {
			return nil, err
		}
		for _, peer := range peers {
			rule := base
			rule.CidrIPv4, rule.CidrIPv6, rule.PrefixListID = peer.CidrIPv4, peer.CidrIPv6, peer.PrefixListID
			rule.ReferencedGroupID, rule.Description = peer.ReferencedGroupID, peer.Description
			rules = append(rules, &rule)
		}
	}
	return rules, nil
}

func portRange(protocol, fromStr, toStr string) (int, int, *APIError) {
	if !hasPorts(protocol) {
		return -1, -1, nil
	}
	parse := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	from, okFrom := parse(fromStr)
	to, okTo := parse(toStr)
	if protocol == "icmp" || protocol == "icmpv6" {
		// ICMP rules carry a type (FromPort) and code (ToPort); -1 is any.
		if !okFrom {
			from = -1
		}
		if !okTo {
			to = -1
		}
		if from < -1 || from > 255 || to < -1 || to > 255 {
			return 0, 0, errBadRequest("InvalidParameterValue", "Invalid value for ICMP type or code (%s, %s)", fromStr, toStr)
		}
		return from, to, nil
	}
	if !okFrom || !okTo {
		return 0, 0, errBadRequest("InvalidParameterValue", "Invalid value 'null' for portRange. Must specify both from and to ports with TCP/UDP.")
	}
	if from < 0 || to > 65535 || from > to {
		return 0, 0, errBadRequest("InvalidParameterValue", "Invalid TCP/UDP port range (%d, %d)", from, to)
	}
	return from, to, nil
}

// requestedPeers reads a permission's IpRanges, Ipv6Ranges, PrefixListIds
// and Groups (or the legacy CidrIp / SourceSecurityGroupName).
func requestedPeers(call *Call, sg *SecurityGroup, p permissionParams) ([]SecurityGroupRule, *APIError) {
	r := call.Region
	var peers []SecurityGroupRule
	checkDescription := func(d string) *APIError {
		if len(d) > 255 {
			return errBadRequest("InvalidParameterValue", "Invalid rule description. Descriptions must be at most 255 characters.")
		}
		return nil
	}
	cidrs := []struct{ prefix, cidr string }{}
	if p.prefix == "" {
		if c := call.Str("CidrIp"); c != "" {
			cidrs = append(cidrs, struct{ prefix, cidr string }{"", c})
		}
	}
	for _, ip := range call.Structs(p.prefix + "IpRanges") {
		cidrs = append(cidrs, struct{ prefix, cidr string }{ip + ".", call.Str(ip + ".CidrIp")})
	}
	for _, c := range cidrs {
		prefix, err := netip.ParsePrefix(c.cidr)
		if err != nil || !prefix.Addr().Is4() || prefix.Masked() != prefix {
			return nil, errBadRequest("InvalidParameterValue", "CIDR block %s is malformed", c.cidr)
		}
		desc := ""
		if c.prefix != "" {
			desc = call.Str(c.prefix + "Description")
		}
		if err := checkDescription(desc); err != nil {
			return nil, err
		}
		peers = append(peers, SecurityGroupRule{CidrIPv4: c.cidr, Description: desc})
	}
	for _, ip := range call.Structs(p.prefix + "Ipv6Ranges") {
		c := call.Str(ip + ".CidrIpv6")
		prefix, err := netip.ParsePrefix(c)
		if err != nil || !prefix.Addr().Is6() || prefix.Masked() != prefix {
			return nil, errBadRequest("InvalidParameterValue", "CIDR block %s is malformed", c)
		}
		desc := call.Str(ip + ".Description")
		if err := checkDescription(desc); err != nil {
			return nil, err
		}
		peers = append(peers, SecurityGroupRule{CidrIPv6: c, Description: desc})
	}
	for _, pl := range call.Structs(p.prefix + "PrefixListIds") {
		id := call.Str(pl + ".PrefixListId")
		if !strings.HasPrefix(id, "pl-") {
			return nil, errBadRequest("InvalidPrefixListId.Malformed", "Invalid id: \"%s\" (expecting \"pl-...\")", id)
		}
		desc := call.Str(pl + ".Description")
		if err := checkDescription(desc); err != nil {
			return nil, err
		}
		peers = append(peers, SecurityGroupRule{PrefixListID: id, Description: desc})
	}
	groupRefs := []struct{ id, name, desc string }{}
	if p.prefix == "" {
		if n := call.Str("SourceSecurityGroupName"); n != "" {
			groupRefs = append(groupRefs, struct{ id, name, desc string }{"", n, ""})
		}
	}
	for _, g := range call.Structs(p.prefix + "Groups") {
		groupRefs = append(groupRefs, struct{ id, name, desc string }{call.Str(g + ".GroupId"), call.Str(g + ".GroupName"), call.Str(g + ".Description")})
	}
	for _, g := range groupRefs {
		var ref *SecurityGroup
		var err *APIError
		switch {
		case g.id != "":
			ref, err = lookup(r.EC2.SecurityGroups, kindSecurityGroup, g.id)
		case g.name != "":
			// A group of the same VPC may be named; AWS resolves it there.
			for _, other := range r.EC2.SecurityGroups {
				if other.VpcID == sg.VpcID && other.Name == g.name {
					ref = other
				}
			}
			if ref == nil {
				err = errNotFound("InvalidGroup.NotFound", "The security group '%s' does not exist in VPC '%s'", g.name, sg.VpcID)
			}
		default:
			err = errMissingParameter("GroupId")
		}
		if err != nil {
			return nil, err
		}
		if ref.VpcID != sg.VpcID {
			return nil, errBadRequest("InvalidParameterValue", "You have specified two resources that belong to different networks.")
		}
		if err := checkDescription(g.desc); err != nil {
			return nil, err
		}
		peers = append(peers, SecurityGroupRule{ReferencedGroupID: ref.ID, Description: g.desc})
	}
	if len(peers) == 0 {
		return nil, errBadRequest("MissingParameter", "The request must contain at least one of ipRanges, ipv6Ranges, prefixListIds or groups")
	}
	return peers, nil
}

// sameRule compares everything but the ID and description, as AWS does
// when it looks for duplicates and for rules to revoke.
func sameRule(a, b *SecurityGroupRule) bool {
	return a.Egress == b.Egress && a.Protocol == b.Protocol && a.FromPort == b.FromPort && a.ToPort == b.ToPort &&
		a.CidrIPv4 == b.CidrIPv4 && a.CidrIPv6 == b.CidrIPv6 && a.PrefixListID == b.PrefixListID &&
		a.ReferencedGroupID == b.ReferencedGroupID
}

// describeRule renders a rule as AWS's duplicate message does.
func describeRule(rule *SecurityGroupRule) string {
	peer := rule.CidrIPv4 + rule.CidrIPv6 + rule.PrefixListID + rule.ReferencedGroupID
	proto := strings.ToUpper(rule.Protocol)
	if rule.Protocol == "-1" {
		proto = "ALL"
	}
	return fmt.Sprintf("peer: %s, %s, from port: %d, to port: %d, ALLOW", peer, proto, rule.FromPort, rule.ToPort)
}

type referencedGroupXML struct {
	GroupID string `xml:"groupId"`
	UserID  string `xml:"userId"`
}

type securityGroupRuleXML struct {
	ID              string              `xml:"securityGroupRuleId"`
	GroupID         string              `xml:"groupId"`
	GroupOwnerID    string              `xml:"groupOwnerId"`
	IsEgress        bool                `xml:"isEgress"`
	IPProtocol      string              `xml:"ipProtocol"`
	FromPort        int                 `xml:"fromPort"`
	ToPort          int                 `xml:"toPort"`
	CidrIPv4        string              `xml:"cidrIpv4,omitempty"`
	CidrIPv6        string              `xml:"cidrIpv6,omitempty"`
	PrefixListID    string              `xml:"prefixListId,omitempty"`
	ReferencedGroup *referencedGroupXML `xml:"referencedGroupInfo,omitempty"`
	Description     string              `xml:"description,omitempty"`
	ARN             string              `xml:"securityGroupRuleArn"`
	Tags            []ec2Tag            `xml:"tagSet>item"`
}

func (r *Region) securityGroupRuleXML(rule *SecurityGroupRule) securityGroupRuleXML {
	out := securityGroupRuleXML{ID: rule.ID, GroupID: rule.GroupID, GroupOwnerID: r.AccountID, IsEgress: rule.Egress,
		IPProtocol: rule.Protocol, FromPort: rule.FromPort, ToPort: rule.ToPort, CidrIPv4: rule.CidrIPv4,
		CidrIPv6: rule.CidrIPv6, PrefixListID: rule.PrefixListID, Description: rule.Description,
		ARN: r.ec2ARN("security-group-rule", rule.ID), Tags: r.tagSet(rule.ID)}
	if rule.ReferencedGroupID != "" {
		out.ReferencedGroup = &referencedGroupXML{GroupID: rule.ReferencedGroupID, UserID: r.AccountID}
	}
	return out
}

type authorizeResult struct {
	Return bool                   `xml:"return"`
	Rules  []securityGroupRuleXML `xml:"securityGroupRuleSet>item"`
}

// authorizeSecurityGroup adds rules atomically: one duplicate (of an
// existing rule or within the request) fails the whole call.
func authorizeSecurityGroup(call *Call, egress bool) (any, *APIError) {
	r := call.Region
	sg, err := groupParam(call)
	if err != nil {
		return nil, err
	}
	rules, err := requestedRules(call, sg, egress)
	if err != nil {
		return nil, err
	}
	tags, err := createTags(call, "security-group-rule")
	if err != nil {
		return nil, err
	}
	for i, rule := range rules {
		for _, existing := range append(append([]*SecurityGroupRule{}, sg.Rules...), rules[:i]...) {
			if sameRule(existing, rule) {
				return nil, errBadRequest("InvalidPermission.Duplicate", "the specified rule \"%s\" already exists", describeRule(rule))
			}
		}
	}
	inDirection := len(rules)
	for _, rule := range sg.Rules {
		if rule.Egress == egress {
			inDirection++
		}
	}
	if inDirection > quota(r.EC2.Quotas.RulesPerSecurityGroup, 60) {
		return nil, errBadRequest("RulesPerSecurityGroupLimitExceeded", "The maximum number of rules per security group has been reached.")
	}
	out := authorizeResult{Return: true}
	for _, rule := range rules {
		rule.ID = r.newEC2ID(kindSGRule)
		sg.Rules = append(sg.Rules, rule)
		r.SetTags(rule.ID, tags)
		out.Rules = append(out.Rules, r.securityGroupRuleXML(rule))
	}
	return out, nil
}

type revokedRuleXML struct {
	ID                string `xml:"securityGroupRuleId"`
	GroupID           string `xml:"groupId"`
	IsEgress          bool   `xml:"isEgress"`
	IPProtocol        string `xml:"ipProtocol"`
	FromPort          int    `xml:"fromPort"`
	ToPort            int    `xml:"toPort"`
	CidrIPv4          string `xml:"cidrIpv4,omitempty"`
	CidrIPv6          string `xml:"cidrIpv6,omitempty"`
	PrefixListID      string `xml:"prefixListId,omitempty"`
	ReferencedGroupID string `xml:"referencedGroupId,omitempty"`
	Description       string `xml:"description,omitempty"`
}

type revokeResult struct {
	Return bool             `xml:"return"`
	Rules  []revokedRuleXML `xml:"revokedSecurityGroupRuleSet>item"`
}

// revokeSecurityGroup removes rules named by SecurityGroupRuleId.N or by
// IpPermissions; a rule that does not exist fails the whole call.
func revokeSecurityGroup(call *Call, egress bool) (any, *APIError) {
	r := call.Region
	sg, err := groupParam(call)
	if err != nil {
		return nil, err
	}
	var doomed []*SecurityGroupRule
	if ids := call.List("SecurityGroupRuleId"); len(ids) > 0 {
		for _, id := range ids {
			var found *SecurityGroupRule
			for _, rule := range sg.Rules {
				if rule.ID == id && rule.Egress == egress {
					found = rule
				}
			}
			if found == nil {
				return nil, kindSGRule.errNotFound(id)
			}
			doomed = append(doomed, found)
		}
	} else {
		wanted, err := requestedRules(call, sg, egress)
		if err != nil {
			return nil, err
		}
		for _, w := range wanted {
			var found *SecurityGroupRule
			for _, rule := range sg.Rules {
				if sameRule(rule, w) {
					found = rule
				}
			}
			if found == nil {
				return nil, errBadRequest("InvalidPermission.NotFound", "The specified rule does not exist in this security group.")
			}
			doomed = append(doomed, found)
		}
	}
	out := revokeResult{Return: true}
	kept := sg.Rules[:0]
	for _, rule := range sg.Rules {
		if contains(ruleIDs(doomed), rule.ID) {
			r.ForgetTags(rule.ID)
			out.Rules = append(out.Rules, revokedRuleXML{ID: rule.ID, GroupID: sg.ID, IsEgress: rule.Egress,
				IPProtocol: rule.Protocol, FromPort: rule.FromPort, ToPort: rule.ToPort, CidrIPv4: rule.CidrIPv4,
				CidrIPv6: rule.CidrIPv6, PrefixListID: rule.PrefixListID, ReferencedGroupID: rule.ReferencedGroupID,
				Description: rule.Description})
			continue
		}
		kept = append(kept, rule)
	}
	sg.Rules = kept
	return out, nil
}

func ruleIDs(rules []*SecurityGroupRule) []string {
	ids := make([]string, len(rules))
	for i, rule := range rules {
		ids[i] = rule.ID
	}
	return ids
}

type describeSecurityGroupRulesResult struct {
	Rules     []securityGroupRuleXML `xml:"securityGroupRuleSet>item"`
	NextToken string                 `xml:"nextToken,omitempty"`
}

func describeSecurityGroupRules(call *Call) (any, *APIError) {
	r := call.Region
	ids := call.List("SecurityGroupRuleId")
	for _, id := range ids {
		if !kindSGRule.wellFormed(id) {
			return nil, kindSGRule.errMalformed(id)
		}
		if _, rule := r.findSGRule(id); rule == nil {
			return nil, kindSGRule.errNotFound(id)
		}
	}
	filters := call.Filters()
	var matched []*SecurityGroupRule
	for _, sg := range r.EC2.SecurityGroups {
		for _, rule := range sg.Rules {
			if len(ids) > 0 && !contains(ids, rule.ID) {
				continue
			}
			ok, err := matchFields(filters, r.TagsOf(rule.ID), map[string][]string{
				"group-id": {rule.GroupID}, "security-group-rule-id": {rule.ID},
			})
			if err != nil {
				return nil, err
			}
			if ok {
				matched = append(matched, rule)
			}
		}
	}
	page, next, err := ec2Page(call, matched, func(rule *SecurityGroupRule) string { return rule.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeSecurityGroupRulesResult{NextToken: next}
	for _, rule := range page {
		out.Rules = append(out.Rules, r.securityGroupRuleXML(rule))
	}
	return out, nil
}
