package diagnose

import (
	"slices"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// What diagnose may call, and nothing more: every entry is a read. A test
// (permissions_test.go) follows every SDK call of this package's code and
// fails when a table misses one or grants one no code makes, and when an
// entry is not a read; `hcplink create iam aws --diagnose` and the Azure
// custom role are rendered from these tables, and the e2e tests run
// diagnose holding exactly them.

// Permission is one action diagnose calls, and why.
type Permission struct {
	Action string
	Why    string
}

// AWSPermissions is diagnose's AWS table, sorted by action. One policy
// serves both accounts: each account's hops call only their part of it.
var AWSPermissions = []Permission{
	{"ec2:DescribeAvailabilityZones", "management: map the NLB's zone names to zone IDs"},
	{"ec2:DescribeSecurityGroups", "customer: read the endpoint's security group and its rules"},
	{"ec2:DescribeSubnets", "customer: read the zone of each of the endpoint's subnets"},
	{"ec2:DescribeVpcEndpointServiceConfigurations", "management: read the endpoint service's state, acceptance and load balancer"},
	{"ec2:DescribeVpcEndpointServicePermissions", "management: read the endpoint service's allowed principals"},
	{"ec2:DescribeVpcEndpointServices", "customer: learn the zones the service serves when the NLB cannot be read"},
	{"ec2:DescribeVpcEndpoints", "customer: read the endpoint's state, subnets, groups and DNS name"},
	{"elasticloadbalancing:DescribeLoadBalancerAttributes", "management: read whether the NLB balances across zones"},
	{"elasticloadbalancing:DescribeLoadBalancers", "management: find the router's NLB, its state and zones"},
	{"route53:GetHostedZone", "customer: read the private zone's VPC associations"},
	{"route53:ListHostedZonesByName", "customer: find the private zone when the status does not name it"},
	{"route53:ListResourceRecordSets", "customer: read the zone's SOA (negative TTL) and the api/*.apps records"},
	{"sts:GetCallerIdentity", "both: check the credentials and name the account"},
}

// AzurePermissions is diagnose's Azure table, sorted by action: the RBAC
// actions of the SDK methods diagnose calls (azurecloud.MethodActions).
var AzurePermissions = []Permission{
	{"Microsoft.Network/loadBalancers/read", "management: find the internal load balancer's frontend holding the router's address"},
	{"Microsoft.Network/networkInterfaces/read", "guest: read the private endpoint's address from its interface"},
	{"Microsoft.Network/privateDnsZones/A/read", "guest: read the api and *.apps A records"},
	{"Microsoft.Network/privateDnsZones/read", "guest: read the private DNS zone"},
	{"Microsoft.Network/privateDnsZones/virtualNetworkLinks/read", "guest: read the zone's link to the guest VNet"},
	{"Microsoft.Network/privateEndpoints/read", "guest: read the private endpoint and its connection's state"},
	{"Microsoft.Network/privateLinkServices/read", "management: read the private link service's visibility, auto-approval and frontend"},
}

// AWSActions lists, sorted, the IAM actions diagnose calls.
func AWSActions() []string { return actionsOf(AWSPermissions) }

// AzureActions lists, sorted, the RBAC actions diagnose needs.
func AzureActions() []string { return actionsOf(AzurePermissions) }

func actionsOf(table []Permission) []string {
	out := make([]string, 0, len(table))
	for _, p := range table {
		out = append(out, p.Action)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AWSPolicyName names diagnose's policy and its statement.
const AWSPolicyName = "diagnose"

// AWSPolicy is the IAM policy (JSON) of whoever runs diagnose, in the
// management and the customer account.
func AWSPolicy() string {
	return awscloud.PolicyOf(awscloud.StatementID(AWSPolicyName), AWSActions())
}

// AzureRoleName is the name of diagnose's custom role.
const AzureRoleName = "hcplink diagnose"

// AzureCustomRole is the custom role of whoever runs diagnose, assignable
// at scopes (the management subscription, the guest's resource group).
func AzureCustomRole(scopes ...string) azurecloud.RoleDefinition {
	return azurecloud.RoleDefinition{
		Name:             AzureRoleName,
		Description:      "What hcplink diagnose reads, and nothing else.",
		Actions:          AzureActions(),
		NotActions:       []string{},
		AssignableScopes: scopes,
	}
}
