package aws

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Only network load balancers are modelled: they are what endpoint services
// are built on, and all hcplink creates.

func init() {
	registerQuery("elasticloadbalancing", "CreateLoadBalancer", createLoadBalancer)
	registerQuery("elasticloadbalancing", "DescribeLoadBalancers", describeLoadBalancers)
	registerQuery("elasticloadbalancing", "DeleteLoadBalancer", deleteLoadBalancer)
	registerQuery("elasticloadbalancing", "DescribeLoadBalancerAttributes", describeLoadBalancerAttributes)
	registerQuery("elasticloadbalancing", "ModifyLoadBalancerAttributes", modifyLoadBalancerAttributes)
}

// elbLoadBalancersPerRegion is AWS's default quota of NLBs per region.
const elbLoadBalancersPerRegion = 50

// elbHostedZoneIDs are the Route 53 zones of NLB DNS names, per region.
var elbHostedZoneIDs = map[string]string{
	"us-east-1": "Z26RNL4JYFTOTI", "us-east-2": "ZLMOA37VPKANP",
	"us-west-1": "Z24FKFUX50B4VW", "us-west-2": "Z18D5FSROUN65G",
	"eu-west-1": "Z2IFOLAFXWLO4F", "eu-central-1": "Z3F0SRJ5LGBH90",
	"ap-southeast-2": "ZCT6FZBF4DROD", "ap-northeast-1": "Z31USIVHYNEOWT",
}

// regionalHostedZoneID returns a table entry, or a stable made-up zone ID for
// regions the table does not list.
func regionalHostedZoneID(table map[string]string, region string) string {
	if id, ok := table[region]; ok {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(region))
	return "Z" + strings.ToUpper(strconv.FormatUint(h.Sum64(), 36))
}

var elbNamePattern = regexp.MustCompile(`^[a-zA-Z0-9-]+$`)

func validateLoadBalancerName(name string) *APIError {
	switch {
	case len(name) > 32:
		return errBadRequest("ValidationError", "The load balancer name '%s' cannot be longer than '32' characters", name)
	case !elbNamePattern.MatchString(name):
		return errBadRequest("ValidationError", "The load balancer name '%s' can only contain alphanumeric characters and hyphens", name)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return errBadRequest("ValidationError", "The load balancer name '%s' cannot begin or end with a hyphen", name)
	case strings.HasPrefix(name, "internal-"):
		return errBadRequest("ValidationError", "The load balancer name '%s' cannot begin with 'internal-'", name)
	}
	return nil
}

// nlbAttributeDefaults are the attributes AWS reports for an NLB, with their
// defaults. Keys outside this list are InvalidConfigurationRequest.
var nlbAttributeDefaults = map[string]string{
	"access_logs.s3.enabled":            "false",
	"access_logs.s3.bucket":             "",
	"access_logs.s3.prefix":             "",
	"deletion_protection.enabled":       "false",
	"load_balancing.cross_zone.enabled": "false",
	"ipv6.deny_all_igw_traffic":         "false",
	"dns_record.client_routing_policy":  "any_availability_zone",
	"zonal_shift.config.enabled":        "false",
}

var nlbBooleanAttributes = map[string]bool{
	"access_logs.s3.enabled": true, "deletion_protection.enabled": true,
	"load_balancing.cross_zone.enabled": true, "ipv6.deny_all_igw_traffic": true,
	"zonal_shift.config.enabled": true,
}

type elbAttributeInput struct{ key, value string }

func (call *Call) elbAttributes() []elbAttributeInput {
	var out []elbAttributeInput
	for _, p := range call.Structs("Attributes.member") {
		out = append(out, elbAttributeInput{call.Str(p + ".Key"), call.Str(p + ".Value")})
	}
	return out
}

// --- XML shapes ---

type elbLoadBalancerXML struct {
	LoadBalancerArn       string      `xml:"LoadBalancerArn"`
	DNSName               string      `xml:"DNSName"`
	CanonicalHostedZoneID string      `xml:"CanonicalHostedZoneId"`
	CreatedTime           string      `xml:"CreatedTime"`
	LoadBalancerName      string      `xml:"LoadBalancerName"`
	Scheme                string      `xml:"Scheme"`
	VpcID                 string      `xml:"VpcId"`
	State                 elbStateXML `xml:"State"`
	Type                  string      `xml:"Type"`
	AvailabilityZones     []elbAZXML  `xml:"AvailabilityZones>member"`
	SecurityGroups        []string    `xml:"SecurityGroups>member,omitempty"`
	IPAddressType         string      `xml:"IpAddressType"`
}

type elbStateXML struct {
	Code   string `xml:"Code"`
	Reason string `xml:"Reason,omitempty"`
}

type elbAZXML struct {
	ZoneName string `xml:"ZoneName"`
	SubnetID string `xml:"SubnetId"`
}

type elbAttributeXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

func elbTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func loadBalancerXML(lb *LoadBalancer) elbLoadBalancerXML {
	out := elbLoadBalancerXML{
		LoadBalancerArn: lb.ARN, DNSName: lb.DNSName, CanonicalHostedZoneID: lb.CanonicalHostedZoneID,
		CreatedTime: elbTime(lb.CreatedAt), LoadBalancerName: lb.Name, Scheme: lb.Scheme, VpcID: lb.VpcID,
		State: elbStateXML{Code: lb.State}, Type: lb.Type, SecurityGroups: lb.SecurityGroupIDs,
		IPAddressType: lb.IPAddressType,
	}
	for _, z := range lb.Zones {
		out.AvailabilityZones = append(out.AvailabilityZones, elbAZXML{ZoneName: z.ZoneName, SubnetID: z.SubnetID})
	}
	return out
}

// --- CreateLoadBalancer ---

type createLoadBalancerResult struct {
	LoadBalancers []elbLoadBalancerXML `xml:"LoadBalancers>member"`
}

func createLoadBalancer(call *Call) (any, *APIError) {
	r := call.Region
	name, err := call.Required("Name")
	if err != nil {
		return nil, err
	}
	if err := validateLoadBalancerName(name); err != nil {
		return nil, err
	}
	lbType := call.Str("Type")
	if lbType == "" {
		lbType = "application" // AWS's default
	}
	if lbType != "network" {
		return nil, errBadRequest("ValidationError",
			"Load balancer type '%s' is not supported by cloudsim: only network load balancers (Type=network) are modelled", lbType)
	}
	scheme := call.Str("Scheme")
	if scheme == "" {
		scheme = "internet-facing"
	}
	if scheme != "internet-facing" && scheme != "internal" {
		return nil, errBadRequest("ValidationError", "Scheme '%s' must be one of [internet-facing, internal]", scheme)
	}
	ipType := call.Str("IpAddressType")
	if ipType == "" {
		ipType = "ipv4"
	}
	if ipType != "ipv4" && ipType != "dualstack" {
		return nil, errBadRequest("ValidationError", "IP address type '%s' must be one of [ipv4, dualstack]", ipType)
	}

	subnetIDs := call.Members("Subnets")
	var mapped []string
	for _, p := range call.Structs("SubnetMappings.member") {
		mapped = append(mapped, call.Str(p+".SubnetId"))
	}
	if len(subnetIDs) > 0 && len(mapped) > 0 {
		return nil, errBadRequest("ValidationError", "You can specify subnets or subnet mappings, not both")
	}
	if len(mapped) > 0 {
		subnetIDs = mapped
	}
	if len(subnetIDs) == 0 {
		return nil, errBadRequest("ValidationError", "At least one subnet must be specified")
	}
	zones, vpcID, err := loadBalancerZones(r, subnetIDs)
	if err != nil {
		return nil, err
	}
	if scheme == "internet-facing" && !hasInternetGateway(r, vpcID) {
		return nil, errBadRequest("InvalidSubnet", "VPC %s has no internet gateway", vpcID)
	}
	sgs := call.Members("SecurityGroups")
	for _, id := range sgs {
		sg := r.EC2.SecurityGroups[id]
		if sg == nil || sg.VpcID != vpcID {
			return nil, errBadRequest("InvalidSecurityGroup", "Security group '%s' does not exist in VPC '%s'", id, vpcID)
		}
	}

	// CreateLoadBalancer is idempotent: the same name and settings answer
	// the existing NLB; the same name with other settings is a conflict.
	for _, lb := range r.ELB.LoadBalancers {
		if lb.Deleted() || lb.Name != name {
			continue
		}
		if lb.Type == lbType && lb.Scheme == scheme && lb.IPAddressType == ipType && sameSubnets(lb.Zones, zones) {
			return createLoadBalancerResult{LoadBalancers: []elbLoadBalancerXML{loadBalancerXML(lb)}}, nil
		}
		return nil, errBadRequest("DuplicateLoadBalancerName", "A load balancer with the same name '%s' exists, but with different settings", name)
	}
	live := 0
	for _, lb := range r.ELB.LoadBalancers {
		if !lb.Deleted() {
			live++
		}
	}
	limit := elbLoadBalancersPerRegion
	if r.ELB.Quotas.NetworkLoadBalancers > 0 {
		limit = r.ELB.Quotas.NetworkLoadBalancers
	}
	if live >= limit {
		return nil, errBadRequest("TooManyLoadBalancers", "The quota of %d network load balancers per region has been reached", limit)
	}
	tags := call.MemberTags("Tags")
	if len(tags) > elbMaxTags {
		return nil, errBadRequest("TooManyTags", "A load balancer can have at most %d tags", elbMaxTags)
	}

	lb := &LoadBalancer{
		ARN:                   fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/net/%s/%s", r.Name, r.AccountID, name, randomHex(8)),
		Name:                  name,
		DNSName:               fmt.Sprintf("%s-%s.elb.%s.amazonaws.com", name, randomHex(8), r.Name),
		Scheme:                scheme,
		Type:                  lbType,
		VpcID:                 vpcID,
		State:                 "provisioning",
		Zones:                 zones,
		CreatedAt:             call.Now,
		CanonicalHostedZoneID: regionalHostedZoneID(elbHostedZoneIDs, r.Name),
		IPAddressType:         ipType,
		SecurityGroupIDs:      sgs,
		Attributes:            map[string]string{},
		ActiveAt:              call.Now.Add(call.Cloud.Delays().LoadBalancerProvisioning.D()),
	}
	if !call.Now.Before(lb.ActiveAt) {
		lb.State = "active"
	}
	r.ELB.LoadBalancers[lb.ARN] = lb
	r.SetTags(lb.ARN, tags)
	return createLoadBalancerResult{LoadBalancers: []elbLoadBalancerXML{loadBalancerXML(lb)}}, nil
}

// loadBalancerZones resolves an NLB's subnets to its zones: each subnet must
// exist in the caller's region, all in one VPC, at most one per zone.
func loadBalancerZones(r *Region, subnetIDs []string) ([]LoadBalancerAZ, string, *APIError) {
	var zones []LoadBalancerAZ
	vpcID := ""
	seenZone := map[string]bool{}
	for _, id := range subnetIDs {
		s := r.EC2.Subnets[id]
		if s == nil {
			return nil, "", errBadRequest("SubnetNotFound", "The subnet ID '%s' is not valid", id)
		}
		if vpcID == "" {
			vpcID = s.VpcID
		} else if s.VpcID != vpcID {
			return nil, "", errBadRequest("InvalidConfigurationRequest", "All subnets of a load balancer must belong to the same VPC")
		}
		if seenZone[s.AvailabilityZoneID] {
			return nil, "", errBadRequest("InvalidConfigurationRequest", "A load balancer cannot be attached to multiple subnets in the same Availability Zone")
		}
		seenZone[s.AvailabilityZoneID] = true
		zones = append(zones, LoadBalancerAZ{SubnetID: s.ID, ZoneName: s.AvailabilityZone, ZoneID: s.AvailabilityZoneID})
	}
	sort.Slice(zones, func(i, j int) bool { return zones[i].ZoneName < zones[j].ZoneName })
	return zones, vpcID, nil
}

func hasInternetGateway(r *Region, vpcID string) bool {
	for _, igw := range r.EC2.InternetGateways {
		if igw.VpcID == vpcID {
			return true
		}
	}
	return false
}

func sameSubnets(a, b []LoadBalancerAZ) bool {
	if len(a) != len(b) {
		return false
	}
	have := map[string]bool{}
	for _, z := range a {
		have[z.SubnetID] = true
	}
	for _, z := range b {
		if !have[z.SubnetID] {
			return false
		}
	}
	return true
}

// --- DescribeLoadBalancers ---

type describeLoadBalancersResult struct {
	LoadBalancers []elbLoadBalancerXML `xml:"LoadBalancers>member"`
	NextMarker    string               `xml:"NextMarker,omitempty"`
}

func describeLoadBalancers(call *Call) (any, *APIError) {
	r := call.Region
	names, arns := call.Members("Names"), call.Members("LoadBalancerArns")
	if len(names) > 0 && len(arns) > 0 {
		return nil, errBadRequest("ValidationError", "Load balancer names and load balancer ARNs cannot be specified at the same time")
	}
	pageSize, err := call.Int("PageSize", 400)
	if err != nil {
		return nil, err
	}
	if pageSize < 1 || pageSize > 400 {
		return nil, errBadRequest("ValidationError", "Page size must be between 1 and 400")
	}
	var lbs []*LoadBalancer
	switch {
	case len(arns) > 0:
		for _, arn := range arns {
			lb := r.LoadBalancer(arn)
			if lb == nil {
				return nil, errBadRequest("LoadBalancerNotFound", "One or more load balancers not found")
			}
			lbs = append(lbs, lb)
		}
	case len(names) > 0:
		var missing []string
		for _, name := range names {
			lb := r.loadBalancerByName(name)
			if lb == nil {
				missing = append(missing, name)
				continue
			}
			lbs = append(lbs, lb)
		}
		if len(missing) > 0 {
			return nil, errBadRequest("LoadBalancerNotFound", "Load balancers '[%s]' not found", strings.Join(missing, ", "))
		}
	default:
		for _, lb := range r.ELB.LoadBalancers {
			if !lb.Deleted() {
				lbs = append(lbs, lb)
			}
		}
	}
	page, next, err := Paginate(lbs, func(lb *LoadBalancer) string { return lb.Name }, call.Str("Marker"), pageSize, 400)
	if err != nil {
		return nil, errBadRequest("ValidationError", "The marker '%s' is not valid", call.Str("Marker"))
	}
	out := describeLoadBalancersResult{NextMarker: next}
	for _, lb := range page {
		out.LoadBalancers = append(out.LoadBalancers, loadBalancerXML(lb))
	}
	return out, nil
}

func (r *Region) loadBalancerByName(name string) *LoadBalancer {
	for _, lb := range r.ELB.LoadBalancers {
		if !lb.Deleted() && lb.Name == name {
			return lb
		}
	}
	return nil
}

// --- DeleteLoadBalancer ---

type elbEmptyResult struct{}

func deleteLoadBalancer(call *Call) (any, *APIError) {
	r := call.Region
	arn, err := call.Required("LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	lb := r.LoadBalancer(arn)
	if lb == nil {
		// AWS: deleting a load balancer that does not exist succeeds.
		return elbEmptyResult{}, nil
	}
	if lb.DeletionProtection {
		return nil, errBadRequest("OperationNotPermitted", "Load balancer '%s' cannot be deleted because deletion protection is enabled", arn)
	}
	for _, svc := range r.PrivateLink.Services {
		if contains(svc.LoadBalancerARNs, arn) {
			return nil, errBadRequest("ResourceInUse", "Load balancer '%s' cannot be deleted because it is currently associated with another service", arn)
		}
	}
	gone := call.Now.Add(call.Cloud.Delays().LoadBalancerDeleting.D())
	lb.GoneAt = &gone
	advanceLoadBalancers(r, call.Now)
	return elbEmptyResult{}, nil
}

// --- Attributes ---

type loadBalancerAttributesResult struct {
	Attributes []elbAttributeXML `xml:"Attributes>member"`
}

func attributesOf(lb *LoadBalancer) []elbAttributeXML {
	keys := make([]string, 0, len(nlbAttributeDefaults))
	for k := range nlbAttributeDefaults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]elbAttributeXML, 0, len(keys))
	for _, k := range keys {
		v := nlbAttributeDefaults[k]
		if set, ok := lb.Attributes[k]; ok {
			v = set
		}
		switch k {
		case "load_balancing.cross_zone.enabled":
			v = strconv.FormatBool(lb.CrossZone)
		case "deletion_protection.enabled":
			v = strconv.FormatBool(lb.DeletionProtection)
		}
		out = append(out, elbAttributeXML{Key: k, Value: v})
	}
	return out
}

func describeLoadBalancerAttributes(call *Call) (any, *APIError) {
	arn, err := call.Required("LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	lb := call.Region.LoadBalancer(arn)
	if lb == nil {
		return nil, errBadRequest("LoadBalancerNotFound", "Load balancer '%s' not found", arn)
	}
	return loadBalancerAttributesResult{Attributes: attributesOf(lb)}, nil
}

func modifyLoadBalancerAttributes(call *Call) (any, *APIError) {
	arn, err := call.Required("LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	lb := call.Region.LoadBalancer(arn)
	if lb == nil {
		return nil, errBadRequest("LoadBalancerNotFound", "Load balancer '%s' not found", arn)
	}
	attrs := call.elbAttributes()
	if len(attrs) == 0 {
		return nil, errMissingParameter("Attributes")
	}
	// Validate everything before changing anything: AWS applies all or none.
	for _, a := range attrs {
		if _, known := nlbAttributeDefaults[a.key]; !known {
			return nil, errBadRequest("InvalidConfigurationRequest", "Key %s not valid", a.key)
		}
		if nlbBooleanAttributes[a.key] && a.value != "true" && a.value != "false" {
			return nil, errBadRequest("InvalidConfigurationRequest", "Value %s for key %s is not valid: expected true or false", a.value, a.key)
		}
		if a.key == "dns_record.client_routing_policy" {
			switch a.value {
			case "any_availability_zone", "availability_zone_affinity", "partial_availability_zone_affinity":
			default:
				return nil, errBadRequest("InvalidConfigurationRequest", "Value %s for key %s is not valid", a.value, a.key)
			}
		}
	}
	for _, a := range attrs {
		switch a.key {
		case "load_balancing.cross_zone.enabled":
			lb.CrossZone = a.value == "true"
		case "deletion_protection.enabled":
			lb.DeletionProtection = a.value == "true"
		default:
			if lb.Attributes == nil {
				lb.Attributes = map[string]string{}
			}
			lb.Attributes[a.key] = a.value
		}
	}
	return loadBalancerAttributesResult{Attributes: attributesOf(lb)}, nil
}
