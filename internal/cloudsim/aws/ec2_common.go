package aws

import (
	"encoding/binary"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"time"
)

// registerEC2 registers an EC2 operation. DryRun requests are answered as
// AWS answers a caller with permission: DryRunOperation, nothing changed.
func registerEC2(action string, h Handler) {
	registerQuery("ec2", action, func(call *Call) (any, *APIError) {
		if dry, _ := call.Bool("DryRun", false); dry {
			return nil, &APIError{Status: http.StatusPreconditionFailed, Code: "DryRunOperation",
				Message: "Request would have succeeded, but DryRun flag is set."}
		}
		return h(call)
	})
}

// ec2Return is the <return>true</return> many EC2 mutations answer with.
type ec2Return struct {
	Return bool `xml:"return"`
}

var ec2True = ec2Return{Return: true}

// ec2Kind describes one kind of EC2 resource ID: its prefix, the resource
// type DescribeTags reports, and the error codes AWS uses for it.
type ec2Kind struct {
	prefix       string
	resourceType string
	notFound     string
	malformed    string
	noun         string // as AWS names it in "The <noun> '<id>' does not exist"
}

var (
	kindEndpointService = ec2Kind{"vpce-svc-", "vpc-endpoint-service", "InvalidVpcEndpointServiceId.NotFound", "InvalidVpcEndpointServiceId.Malformed", "VpcEndpointService Id"}
	kindEndpoint        = ec2Kind{"vpce-", "vpc-endpoint", "InvalidVpcEndpointId.NotFound", "InvalidVpcEndpointId.Malformed", "VpcEndpoint Id"}
	kindVPC             = ec2Kind{"vpc-", "vpc", "InvalidVpcID.NotFound", "InvalidVpcID.Malformed", "vpc ID"}
	kindSubnet          = ec2Kind{"subnet-", "subnet", "InvalidSubnetID.NotFound", "InvalidSubnetID.Malformed", "subnet ID"}
	kindSecurityGroup   = ec2Kind{"sg-", "security-group", "InvalidGroup.NotFound", "InvalidGroupId.Malformed", "security group"}
	kindSGRule          = ec2Kind{"sgr-", "security-group-rule", "InvalidSecurityGroupRuleId.NotFound", "InvalidSecurityGroupRuleId.Malformed", "security group rule ID"}
	kindIGW             = ec2Kind{"igw-", "internet-gateway", "InvalidInternetGatewayID.NotFound", "InvalidInternetGatewayId.Malformed", "internetGateway ID"}
	kindDhcpOptions     = ec2Kind{"dopt-", "dhcp-options", "InvalidDhcpOptionID.NotFound", "InvalidDhcpOptionsId.Malformed", "dhcpOption ID"}
	kindAddress         = ec2Kind{"eipalloc-", "elastic-ip", "InvalidAllocationID.NotFound", "InvalidAllocationID.Malformed", "allocation ID"}
	kindNatGateway      = ec2Kind{"nat-", "natgateway", "NatGatewayNotFound", "NatGatewayMalformed", "NAT gateway ID"}
	kindRouteTable      = ec2Kind{"rtb-", "route-table", "InvalidRouteTableID.NotFound", "InvalidRouteTableId.Malformed", "routeTable ID"}
	kindNetworkACL      = ec2Kind{"acl-", "network-acl", "InvalidNetworkAclID.NotFound", "InvalidNetworkAclId.Malformed", "networkAcl ID"}
)

// ec2Kinds is ordered so that longer prefixes are tried first (vpce-svc-
// before vpce-).
var ec2Kinds = []ec2Kind{
	kindEndpointService, kindEndpoint, kindVPC, kindSubnet, kindSecurityGroup, kindSGRule, kindIGW,
	kindDhcpOptions, kindAddress, kindNatGateway, kindRouteTable, kindNetworkACL,
}

func kindOf(id string) (ec2Kind, bool) {
	for _, k := range ec2Kinds {
		if strings.HasPrefix(id, k.prefix) {
			return k, true
		}
	}
	return ec2Kind{}, false
}

// wellFormed reports whether id is the prefix and 8 or 17 hex digits, the
// two lengths AWS has used.
func (k ec2Kind) wellFormed(id string) bool {
	rest, ok := strings.CutPrefix(id, k.prefix)
	if !ok || (len(rest) != 8 && len(rest) != 17) {
		return false
	}
	for _, c := range rest {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func (k ec2Kind) errNotFound(id string) *APIError {
	if k == kindNatGateway {
		return errNotFound(k.notFound, "NAT gateway %s was not found", id)
	}
	return errNotFound(k.notFound, "The %s '%s' does not exist", k.noun, id)
}

func (k ec2Kind) errMalformed(id string) *APIError {
	return errBadRequest(k.malformed, "Invalid id: \"%s\" (expecting \"%s...\")", id, k.prefix)
}

// lookup finds a resource by ID with AWS's errors: Malformed for an ID of
// the wrong shape, NotFound for one that does not exist.
func lookup[T any](m map[string]*T, k ec2Kind, id string) (*T, *APIError) {
	if v, ok := m[id]; ok {
		return v, nil
	}
	if !k.wellFormed(id) {
		return nil, k.errMalformed(id)
	}
	return nil, k.errNotFound(id)
}

// lookupAll resolves a list of IDs (VpcId.N and the like); any unknown one
// fails the whole request, as on AWS.
func lookupAll[T any](m map[string]*T, k ec2Kind, ids []string) ([]*T, *APIError) {
	out := make([]*T, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		v, err := lookup(m, k, id)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// resourceExists checks any taggable EC2 resource ID of this region,
// including the VPC endpoints and endpoint services of the PrivateLink model.
func (r *Region) resourceExists(id string) (ec2Kind, *APIError) {
	k, ok := kindOf(id)
	if !ok {
		return ec2Kind{}, errBadRequest("InvalidID", "The ID '%s' is not valid", id)
	}
	if !k.wellFormed(id) {
		return k, k.errMalformed(id)
	}
	found := false
	switch k {
	case kindVPC:
		found = r.EC2.VPCs[id] != nil
	case kindSubnet:
		found = r.EC2.Subnets[id] != nil
	case kindSecurityGroup:
		found = r.EC2.SecurityGroups[id] != nil
	case kindSGRule:
		_, rule := r.findSGRule(id)
		found = rule != nil
	case kindIGW:
		found = r.EC2.InternetGateways[id] != nil
	case kindDhcpOptions:
		found = r.EC2.DhcpOptions[id] != nil
	case kindAddress:
		found = r.EC2.Addresses[id] != nil
	case kindNatGateway:
		found = r.EC2.NatGateways[id] != nil
	case kindRouteTable:
		found = r.EC2.RouteTables[id] != nil
	case kindNetworkACL:
		for _, v := range r.EC2.VPCs {
			found = found || v.DefaultNetworkACLID == id
		}
	case kindEndpoint:
		found = r.PrivateLink.Endpoints[id] != nil
	case kindEndpointService:
		found = r.PrivateLink.Services[id] != nil
	}
	if !found {
		return k, k.errNotFound(id)
	}
	return k, nil
}

// newEC2ID returns a fresh ID of a kind that no resource here uses yet.
func (r *Region) newEC2ID(k ec2Kind) string {
	for {
		id := NewID(strings.TrimSuffix(k.prefix, "-"))
		if _, err := r.resourceExists(id); err != nil {
			return id
		}
	}
}

func (r *Region) ec2ARN(resourceType, id string) string {
	return "arn:aws:ec2:" + r.Name + ":" + r.AccountID + ":" + resourceType + "/" + id
}

// ec2Tag is one item of a tagSet.
type ec2Tag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

// tagSet returns a resource's tags as EC2 lists them, sorted by key.
func (r *Region) tagSet(id string) []ec2Tag {
	tags := r.TagsOf(id)
	out := make([]ec2Tag, 0, len(tags))
	for k, v := range tags {
		out = append(out, ec2Tag{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

const maxTagsPerResource = 50

// validateTagKeys applies AWS's rules on tag keys and values.
func validateTags(tags map[string]string) *APIError {
	for k, v := range tags {
		switch {
		case k == "":
			return errBadRequest("InvalidParameterValue", "Tag key cannot be empty")
		case len(k) > 128:
			return errBadRequest("InvalidParameterValue", "Tag key exceeds the maximum length of 128 characters")
		case len(v) > 256:
			return errBadRequest("InvalidParameterValue", "Tag value exceeds the maximum length of 256 characters")
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return errBadRequest("InvalidParameterValue", "Tag keys starting with 'aws:' are reserved for internal use")
		}
	}
	return nil
}

// checkTagLimit refuses tags that would take a resource past 50.
func (r *Region) checkTagLimit(id string, adding map[string]string) *APIError {
	n := len(r.TagsOf(id))
	for k := range adding {
		if _, had := r.TagsOf(id)[k]; !had {
			n++
		}
	}
	if n > maxTagsPerResource {
		return errBadRequest("TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
	}
	return nil
}

// createTags reads a create call's TagSpecification.N for resourceType,
// refusing specifications for other resource types and invalid tags.
func createTags(call *Call, resourceType string) (map[string]string, *APIError) {
	for _, p := range call.Structs("TagSpecification") {
		if rt := call.Str(p + ".ResourceType"); rt != "" && rt != resourceType {
			return nil, errBadRequest("InvalidParameterValue", "'%s' is not a valid taggable resource type for this operation.", rt)
		}
	}
	tags := call.TagSpecifications(resourceType)
	if err := validateTags(tags); err != nil {
		return nil, err
	}
	if len(tags) > maxTagsPerResource {
		return nil, errBadRequest("TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
	}
	return tags, nil
}

// ec2Page returns one page of a Describe answer. Without MaxResults AWS
// returns everything; with it, the value must lie in [lo, hi].
func ec2Page[T any](call *Call, items []T, key func(T) string, lo, hi int) ([]T, string, *APIError) {
	maxResults, err := call.Int("MaxResults", 0)
	if err != nil {
		return nil, "", err
	}
	if call.Str("MaxResults") != "" && (maxResults < lo || maxResults > hi) {
		return nil, "", errBadRequest("InvalidParameterValue",
			"Value ( %d ) for parameter maxResults is invalid. Expecting a value between %d and %d.", maxResults, lo, hi)
	}
	all := max(len(items), 1)
	if maxResults == 0 {
		maxResults = all
	}
	return Paginate(items, key, call.Str("NextToken"), maxResults, all)
}

// matchFields applies Filter.N to one resource whose filterable fields are
// listed in fields; a filter name not there is InvalidParameterValue.
func matchFields(filters []Filter, tags map[string]string, fields map[string][]string) (bool, *APIError) {
	return MatchFilters(filters, tags, func(name string) ([]string, bool) {
		v, ok := fields[name]
		return v, ok
	})
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func ec2Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// parseIPv4CIDR accepts only a canonical IPv4 CIDR (no host bits set), as
// EC2 does for VPC, subnet and route destinations.
func parseIPv4CIDR(s string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() || p.Masked() != p {
		return netip.Prefix{}, false
	}
	return p, true
}

// cidrWithin reports whether inner lies entirely inside outer.
func cidrWithin(outer, inner netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// hostAddress returns the n-th address of an IPv4 prefix.
func hostAddress(p netip.Prefix, n int) string {
	b := p.Addr().As4()
	v := binary.BigEndian.Uint32(b[:]) + uint32(n)
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b).String()
}

// quota returns an overridden limit or AWS's default.
func quota(override, def int) int {
	if override > 0 {
		return override
	}
	return def
}

func errLimit(code, what string) *APIError {
	return errBadRequest(code, "The maximum number of %s has been reached.", what)
}

func errDependency(noun, id string) *APIError {
	return errBadRequest("DependencyViolation", "The %s '%s' has dependencies and cannot be deleted.", noun, id)
}

// sortedByKey sorts items in place by key and returns them.
func sortedByKey[T any](items []T, key func(T) string) []T {
	sort.Slice(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	return items
}
