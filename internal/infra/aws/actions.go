package aws

import "slices"

// Command is a CLI command that calls AWS with the user's credentials.
type Command string

const (
	CreateInfra  Command = "create infra aws"
	DestroyInfra Command = "destroy infra aws"
)

// Permission is one IAM action a command calls, and why. One entry per
// SDK call; `hcplink create iam aws --cli` renders the CLI's policy from
// this table, and TestActionsTableIsExact keeps it equal to what create
// and destroy really call against cloudsim.
type Permission struct {
	Command Command
	Action  string
	Why     string
}

// Permissions is the table, by command, then action.
var Permissions = []Permission{
	{CreateInfra, "ec2:AllocateAddress", "allocate each NAT gateway's Elastic IP"},
	{CreateInfra, "ec2:AssociateDhcpOptions", "give the VPC its DHCP options"},
	{CreateInfra, "ec2:AssociateRouteTable", "associate each subnet with its route table"},
	{CreateInfra, "ec2:AttachInternetGateway", "attach the internet gateway to the VPC"},
	{CreateInfra, "ec2:CreateDhcpOptions", "create the DHCP options (domain name, AmazonProvidedDNS)"},
	{CreateInfra, "ec2:CreateInternetGateway", "create the internet gateway"},
	{CreateInfra, "ec2:CreateNatGateway", "create a NAT gateway per zone (or one)"},
	{CreateInfra, "ec2:CreateRoute", "add the default routes (internet gateway, NAT gateways)"},
	{CreateInfra, "ec2:CreateRouteTable", "create each zone's private route table"},
	{CreateInfra, "ec2:CreateSubnet", "create the public and private subnets"},
	{CreateInfra, "ec2:CreateTags", "tag resources at creation (AWS checks it for TagSpecifications) and name the VPC's main route table"},
	{CreateInfra, "ec2:CreateVpc", "create the VPC"},
	{CreateInfra, "ec2:CreateVpcEndpoint", "create the S3 gateway endpoint"},
	{CreateInfra, "ec2:DescribeAddresses", "find the Elastic IPs again by their tags (a failed NAT gateway's successor reuses its address)"},
	{CreateInfra, "ec2:DescribeAvailabilityZones", "check the zones and lay the subnets out before changing anything"},
	{CreateInfra, "ec2:DescribeDhcpOptions", "find the DHCP options again by their tags"},
	{CreateInfra, "ec2:DescribeInternetGateways", "find the internet gateway again and see its attachment"},
	{CreateInfra, "ec2:DescribeNatGateways", "find the NAT gateways again and wait until they are available"},
	{CreateInfra, "ec2:DescribeRouteTables", "find the route tables, their routes and associations"},
	{CreateInfra, "ec2:DescribeSubnets", "find the subnets again by their tags"},
	{CreateInfra, "ec2:DescribeVpcAttribute", "compare the DNS attributes before setting them"},
	{CreateInfra, "ec2:DescribeVpcEndpoints", "find the S3 endpoint again and compare its route tables"},
	{CreateInfra, "ec2:DescribeVpcs", "find the VPC again by its tags; Route 53 also checks it for private zones on the VPC"},
	{CreateInfra, "ec2:ModifyVpcAttribute", "turn on DNS support and DNS hostnames"},
	{CreateInfra, "ec2:ModifyVpcEndpoint", "add new zones' route tables to the S3 endpoint"},
	{CreateInfra, "route53:AssociateVPCWithHostedZone", "put a private zone of this infra ID that is not on the VPC onto it"},
	{CreateInfra, "route53:ChangeResourceRecordSets", "set the private zones' SOA negative-caching TTL to 60 s"},
	{CreateInfra, "route53:ChangeTagsForResource", "tag a new private zone for the infra ID"},
	{CreateInfra, "route53:CreateHostedZone", "create the two private zones on the VPC"},
	{CreateInfra, "route53:GetHostedZone", "see which VPCs an existing private zone is on"},
	{CreateInfra, "route53:ListHostedZonesByName", "find the public zone and the private zones by name"},
	{CreateInfra, "route53:ListResourceRecordSets", "read the SOA before changing it"},
	{CreateInfra, "route53:ListTagsForResources", "reuse a private zone only when it carries this infra ID's tags"},

	{DestroyInfra, "ec2:DeleteDhcpOptions", "delete the DHCP options"},
	{DestroyInfra, "ec2:DeleteInternetGateway", "delete the internet gateway"},
	{DestroyInfra, "ec2:DeleteNatGateway", "delete the NAT gateways (a failed one too)"},
	{DestroyInfra, "ec2:DeleteRouteTable", "delete the private route tables"},
	{DestroyInfra, "ec2:DeleteSecurityGroup", "delete security groups tagged for the cluster (the control-plane operator's, if left)"},
	{DestroyInfra, "ec2:DeleteSubnet", "delete the subnets"},
	{DestroyInfra, "ec2:DeleteVpc", "delete the VPC"},
	{DestroyInfra, "ec2:DeleteVpcEndpoints", "delete the S3 endpoint and any endpoint tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeAddresses", "find the Elastic IPs tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeDhcpOptions", "find the DHCP options tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeInternetGateways", "find the internet gateways tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeNatGateways", "find the NAT gateways and wait until they are deleted"},
	{DestroyInfra, "ec2:DescribeRouteTables", "find the route tables and their associations"},
	{DestroyInfra, "ec2:DescribeSecurityGroups", "find security groups tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeSubnets", "find the subnets tagged for the cluster"},
	{DestroyInfra, "ec2:DescribeVpcEndpoints", "find endpoints tagged for the cluster and wait until they are gone"},
	{DestroyInfra, "ec2:DescribeVpcs", "find the VPCs tagged for the cluster"},
	{DestroyInfra, "ec2:DetachInternetGateway", "detach the internet gateway before deleting it"},
	{DestroyInfra, "ec2:DisassociateRouteTable", "free the subnets from the route tables"},
	{DestroyInfra, "ec2:ReleaseAddress", "release the Elastic IPs (including one a failed NAT gateway left unused)"},
	{DestroyInfra, "ec2:RevokeSecurityGroupIngress", "empty a security group before deleting it"},
	{DestroyInfra, "elasticloadbalancing:DeleteLoadBalancer", "delete load balancers tagged for the cluster (a guest cluster's Services made them in the VPC)"},
	{DestroyInfra, "elasticloadbalancing:DescribeLoadBalancers", "list the region's load balancers"},
	{DestroyInfra, "elasticloadbalancing:DescribeTags", "delete only load balancers tagged for the cluster"},
	{DestroyInfra, "route53:ChangeResourceRecordSets", "delete a private zone's records before the zone"},
	{DestroyInfra, "route53:DeleteHostedZone", "delete the private zones tagged for the infra ID"},
	{DestroyInfra, "route53:ListHostedZonesByName", "find the private zones by name"},
	{DestroyInfra, "route53:ListResourceRecordSets", "list a private zone's records to delete them"},
	{DestroyInfra, "route53:ListTagsForResources", "delete only zones carrying this infra ID's tags"},
}

// Actions lists, sorted and without repeats, the IAM actions of the
// commands given (none: every command).
func Actions(commands ...Command) []string {
	var out []string
	for _, p := range Permissions {
		if len(commands) == 0 || slices.Contains(commands, p.Command) {
			out = append(out, p.Action)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
