package aws

import "time"

// EC2State is the EC2 networking model of one account and region.
// Owner: the EC2 networking files (ec2_*.go). Other files read VPCs,
// Subnets and SecurityGroups; only the owner changes these types' fields.
type EC2State struct {
	VPCs             map[string]*VPC             `json:"vpcs"`
	Subnets          map[string]*Subnet          `json:"subnets"`
	SecurityGroups   map[string]*SecurityGroup   `json:"securityGroups"`
	InternetGateways map[string]*InternetGateway `json:"internetGateways"`
	DhcpOptions      map[string]*DhcpOptions     `json:"dhcpOptions"`
	Addresses        map[string]*ElasticIP       `json:"addresses"` // by allocation ID
	NatGateways      map[string]*NatGateway      `json:"natGateways"`
	RouteTables      map[string]*RouteTable      `json:"routeTables"`

	// Quotas override AWS's default limits for this account and region, as
	// a Service Quotas increase would; zero fields keep the defaults.
	Quotas EC2Quotas `json:"quotas"`
}

func newEC2State() *EC2State {
	return &EC2State{
		VPCs:             map[string]*VPC{},
		Subnets:          map[string]*Subnet{},
		SecurityGroups:   map[string]*SecurityGroup{},
		InternetGateways: map[string]*InternetGateway{},
		DhcpOptions:      map[string]*DhcpOptions{},
		Addresses:        map[string]*ElasticIP{},
		NatGateways:      map[string]*NatGateway{},
		RouteTables:      map[string]*RouteTable{},
	}
}

// EC2Quotas are the per-region limits the model enforces. A zero field means
// AWS's default (in brackets).
type EC2Quotas struct {
	VPCs                  int `json:"vpcs,omitempty"`                  // VPCs per region [5]
	ElasticIPs            int `json:"elasticIps,omitempty"`            // EIPs per region [5]
	InternetGateways      int `json:"internetGateways,omitempty"`      // per region [5]
	NatGatewaysPerZone    int `json:"natGatewaysPerZone,omitempty"`    // per availability zone [5]
	SubnetsPerVPC         int `json:"subnetsPerVpc,omitempty"`         // [200]
	SecurityGroupsPerVPC  int `json:"securityGroupsPerVpc,omitempty"`  // [2500]
	RulesPerSecurityGroup int `json:"rulesPerSecurityGroup,omitempty"` // per direction [60]
	RouteTablesPerVPC     int `json:"routeTablesPerVpc,omitempty"`     // [200]
	RoutesPerRouteTable   int `json:"routesPerRouteTable,omitempty"`   // non-propagated routes [50]
}

// VPC is a virtual private cloud.
type VPC struct {
	ID        string `json:"id"`
	CidrBlock string `json:"cidrBlock"`

	OwnerID                string    `json:"ownerId"`
	State                  string    `json:"state"`
	IsDefault              bool      `json:"isDefault"`
	InstanceTenancy        string    `json:"instanceTenancy"`
	CidrAssociationID      string    `json:"cidrAssociationId"`
	DhcpOptionsID          string    `json:"dhcpOptionsId"` // "default" when none is associated
	EnableDNSSupport       bool      `json:"enableDnsSupport"`
	EnableDNSHostnames     bool      `json:"enableDnsHostnames"`
	EnableNAUMetrics       bool      `json:"enableNetworkAddressUsageMetrics"`
	DefaultSecurityGroupID string    `json:"defaultSecurityGroupId"`
	DefaultNetworkACLID    string    `json:"defaultNetworkAclId"`
	CreatedAt              time.Time `json:"createdAt"`
}

// Subnet is a subnet; AvailabilityZoneID is the physical zone behind the
// owning account's zone name.
type Subnet struct {
	ID                 string `json:"id"`
	VpcID              string `json:"vpcId"`
	CidrBlock          string `json:"cidrBlock"`
	AvailabilityZone   string `json:"availabilityZone"`
	AvailabilityZoneID string `json:"availabilityZoneId"`

	OwnerID             string    `json:"ownerId"`
	State               string    `json:"state"`
	MapPublicIPOnLaunch bool      `json:"mapPublicIpOnLaunch"`
	CreatedAt           time.Time `json:"createdAt"`
	// HostsHandedOut counts private addresses given to NAT gateways, so
	// each gets a fresh one.
	HostsHandedOut int `json:"hostsHandedOut"`
}

// SecurityGroup is a VPC security group.
type SecurityGroup struct {
	ID          string `json:"id"`
	VpcID       string `json:"vpcId"`
	Name        string `json:"name"`
	Description string `json:"description"`

	OwnerID   string               `json:"ownerId"`
	IsDefault bool                 `json:"isDefault"` // the VPC's "default" group, which cannot be deleted
	Rules     []*SecurityGroupRule `json:"rules"`     // in the order they were authorized
}

// SecurityGroupRule is one rule: a protocol and port range towards one peer
// (an IPv4 or IPv6 CIDR, a prefix list or another security group).
type SecurityGroupRule struct {
	ID                string `json:"id"`
	GroupID           string `json:"groupId"`
	Egress            bool   `json:"egress"`
	Protocol          string `json:"protocol"` // tcp, udp, icmp, icmpv6, -1 or a protocol number
	FromPort          int    `json:"fromPort"` // -1 when the protocol has no ports
	ToPort            int    `json:"toPort"`
	CidrIPv4          string `json:"cidrIpv4,omitempty"`
	CidrIPv6          string `json:"cidrIpv6,omitempty"`
	PrefixListID      string `json:"prefixListId,omitempty"`
	ReferencedGroupID string `json:"referencedGroupId,omitempty"`
	Description       string `json:"description,omitempty"`
}

// InternetGateway is an internet gateway, attached to at most one VPC.
type InternetGateway struct {
	ID      string `json:"id"`
	OwnerID string `json:"ownerId"`
	VpcID   string `json:"vpcId,omitempty"` // the attached VPC
}

// DhcpOptions is a DHCP options set.
type DhcpOptions struct {
	ID             string              `json:"id"`
	OwnerID        string              `json:"ownerId"`
	Configurations []DhcpConfiguration `json:"configurations"`
}

// DhcpConfiguration is one DHCP option and its values.
type DhcpConfiguration struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// ElasticIP is an allocated Elastic IP address. NatGatewayID names the NAT
// gateway holding it, if any; a held address cannot be released.
type ElasticIP struct {
	AllocationID       string    `json:"allocationId"`
	PublicIP           string    `json:"publicIp"`
	Domain             string    `json:"domain"`
	NetworkBorderGroup string    `json:"networkBorderGroup"`
	AssociationID      string    `json:"associationId,omitempty"`
	NetworkInterfaceID string    `json:"networkInterfaceId,omitempty"`
	PrivateIP          string    `json:"privateIp,omitempty"`
	NatGatewayID       string    `json:"natGatewayId,omitempty"`
	AllocatedAt        time.Time `json:"allocatedAt"`
}

// NatGateway is a NAT gateway. Its state moves pending → available (or
// failed) at ReadyAt, and deleting → deleted at DeletedAt; a deleted or
// failed gateway stays visible until GoneAt, as on AWS.
type NatGateway struct {
	ID                 string    `json:"id"`
	SubnetID           string    `json:"subnetId"`
	VpcID              string    `json:"vpcId"`
	ConnectivityType   string    `json:"connectivityType"` // public | private
	State              string    `json:"state"`            // pending | available | failed | deleting | deleted
	AllocationID       string    `json:"allocationId,omitempty"`
	PublicIP           string    `json:"publicIp,omitempty"`
	AssociationID      string    `json:"associationId,omitempty"`
	PrivateIP          string    `json:"privateIp"`
	NetworkInterfaceID string    `json:"networkInterfaceId"`
	FailureCode        string    `json:"failureCode,omitempty"` // set at create when it will fail
	FailureMessage     string    `json:"failureMessage,omitempty"`
	CreatedAt          time.Time `json:"createdAt"`
	ReadyAt            time.Time `json:"readyAt"`
	DeleteRequestedAt  time.Time `json:"deleteRequestedAt,omitempty"`
	DeletedAt          time.Time `json:"deletedAt,omitempty"`
	GoneAt             time.Time `json:"goneAt,omitempty"`
}

// RouteTable is a VPC route table and its associations.
type RouteTable struct {
	ID           string                   `json:"id"`
	VpcID        string                   `json:"vpcId"`
	OwnerID      string                   `json:"ownerId"`
	Routes       []*Route                 `json:"routes"`
	Associations []*RouteTableAssociation `json:"associations"`
}

// Route is one static route; the local route has GatewayID "local".
type Route struct {
	DestinationCidrBlock string `json:"destinationCidrBlock"`
	GatewayID            string `json:"gatewayId,omitempty"`
	NatGatewayID         string `json:"natGatewayId,omitempty"`
	Origin               string `json:"origin"` // CreateRouteTable | CreateRoute
}

// RouteTableAssociation ties a route table to a subnet, to a gateway (edge
// association) or, when Main, makes it the VPC's main table.
type RouteTableAssociation struct {
	ID        string `json:"id"`
	Main      bool   `json:"main"`
	SubnetID  string `json:"subnetId,omitempty"`
	GatewayID string `json:"gatewayId,omitempty"`
}
