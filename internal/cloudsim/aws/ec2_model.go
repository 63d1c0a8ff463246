package aws

// EC2State is the EC2 networking model of one account and region.
// Owner: the EC2 networking files (ec2_*.go). Other files read VPCs,
// Subnets and SecurityGroups; only the owner changes these types' fields.
type EC2State struct {
	VPCs           map[string]*VPC           `json:"vpcs"`
	Subnets        map[string]*Subnet        `json:"subnets"`
	SecurityGroups map[string]*SecurityGroup `json:"securityGroups"`
}

func newEC2State() *EC2State {
	return &EC2State{
		VPCs:           map[string]*VPC{},
		Subnets:        map[string]*Subnet{},
		SecurityGroups: map[string]*SecurityGroup{},
	}
}

// VPC is a virtual private cloud.
type VPC struct {
	ID        string `json:"id"`
	CidrBlock string `json:"cidrBlock"`
}

// Subnet is a subnet; AvailabilityZoneID is the physical zone behind the
// owning account's zone name.
type Subnet struct {
	ID                 string `json:"id"`
	VpcID              string `json:"vpcId"`
	CidrBlock          string `json:"cidrBlock"`
	AvailabilityZone   string `json:"availabilityZone"`
	AvailabilityZoneID string `json:"availabilityZoneId"`
}

// SecurityGroup is a VPC security group.
type SecurityGroup struct {
	ID          string `json:"id"`
	VpcID       string `json:"vpcId"`
	Name        string `json:"name"`
	Description string `json:"description"`
}
