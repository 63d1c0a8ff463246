package aws

import (
	"encoding/json"
	"slices"
	"strings"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// The AWS permissions each operator and diagnose need, in one table
// generated from nothing but what the code calls: a test
// (permissions_test.go) follows every call of the SDK interfaces in sdk.go
// from each operator's packages and fails when the table grants an action
// the code does not call or misses one it does; diagnose's test
// (internal/diagnose/permissions_test.go) does the same for its rows and
// holds them to reads. The README's policy and devenv's role are rendered
// from this table, so a customer grants exactly what hcplink uses.

// Component is an hcplink process that calls AWS with its own credentials.
type Component string

const (
	// ControlPlaneOperator runs per hosted cluster with a role in the
	// customer's account (VPC endpoint, security group, private zone).
	ControlPlaneOperator Component = "control-plane-operator"
	// ManagementOperator runs once per management cluster with the
	// provider's credentials (endpoint services in front of its NLBs).
	ManagementOperator Component = "management-operator"
	// Diagnose is whoever runs hcplink diagnose, in the management and the
	// customer account: it only reads. One policy serves both accounts:
	// each account's hops call only their part of it.
	Diagnose Component = "diagnose"
	// Worker is the instance profile of the customer's worker nodes: the
	// kubelet's cloud provider reads its own instance and region. No hcplink
	// code runs with it, so the code-following test does not cover it.
	Worker Component = "worker"
)

// Permission is one IAM action a component calls, and why.
type Permission struct {
	Component Component
	Action    string
	Why       string
}

// Permissions is the table. Keep it sorted by component, then action.
var Permissions = []Permission{
	{ControlPlaneOperator, "ec2:AuthorizeSecurityGroupIngress", "open the endpoint's security group to the machine network CIDRs"},
	{ControlPlaneOperator, "ec2:CreateSecurityGroup", "create the security group of each VPC endpoint"},
	{ControlPlaneOperator, "ec2:CreateTags", "tag the endpoint and its security group at creation (ownership, resourceTags) and when tags change"},
	{ControlPlaneOperator, "ec2:CreateVpcEndpoint", "create the interface VPC endpoint to the cluster's endpoint service"},
	{ControlPlaneOperator, "ec2:DeleteSecurityGroup", "remove the endpoint's security group at deletion and in the sweep"},
	{ControlPlaneOperator, "ec2:DeleteTags", "remove resourceTags the cluster no longer has"},
	{ControlPlaneOperator, "ec2:DeleteVpcEndpoints", "remove the endpoint at deletion, when replaced, and in the sweep"},
	{ControlPlaneOperator, "ec2:DescribeAvailabilityZones", "map the customer's zone names to zone IDs, which are the same in every account"},
	{ControlPlaneOperator, "ec2:DescribeSecurityGroups", "find the endpoint's security group again by its tags and compare its rules"},
	{ControlPlaneOperator, "ec2:DescribeSubnets", "read the NodePools' subnets and their zones"},
	{ControlPlaneOperator, "ec2:DescribeVpcEndpointServices", "learn which zones the endpoint service serves"},
	{ControlPlaneOperator, "ec2:DescribeVpcEndpoints", "read the endpoint's state and DNS names; adopt it by tags after a restart"},
	{ControlPlaneOperator, "ec2:ModifyVpcEndpoint", "follow NodePool subnet and security-group changes"},
	{ControlPlaneOperator, "ec2:RevokeSecurityGroupIngress", "drop rules for removed CIDRs; empty the group before deleting it"},
	{ControlPlaneOperator, "route53:ChangeResourceRecordSets", "write and delete the api and *.apps CNAME records"},
	{ControlPlaneOperator, "route53:GetHostedZone", "confirm the cached private zone ID still names the cluster's zone"},
	{ControlPlaneOperator, "route53:ListHostedZonesByName", "find the <name>.hypershift.local private zone"},
	{ControlPlaneOperator, "route53:ListResourceRecordSets", "compare the records before writing (no blind UPSERT)"},
	{ControlPlaneOperator, "sts:GetCallerIdentity", "check that the role can be assumed (ValidCloudCredentials)"},

	{Diagnose, "ec2:DescribeAvailabilityZones", "management: map the NLB's zone names to zone IDs"},
	{Diagnose, "ec2:DescribeSecurityGroups", "customer: read the endpoint's security group and its rules"},
	{Diagnose, "ec2:DescribeSubnets", "customer: read the zone of each of the endpoint's subnets"},
	{Diagnose, "ec2:DescribeVpcEndpointServiceConfigurations", "management: read the endpoint service's state, acceptance and load balancer"},
	{Diagnose, "ec2:DescribeVpcEndpointServicePermissions", "management: read the endpoint service's allowed principals"},
	{Diagnose, "ec2:DescribeVpcEndpointServices", "customer: learn the zones the service serves when the NLB cannot be read"},
	{Diagnose, "ec2:DescribeVpcEndpoints", "customer: read the endpoint's state, subnets, groups and DNS name"},
	{Diagnose, "elasticloadbalancing:DescribeLoadBalancerAttributes", "management: read whether the NLB balances across zones"},
	{Diagnose, "elasticloadbalancing:DescribeLoadBalancers", "management: find the router's NLB, its state and zones"},
	{Diagnose, "route53:GetHostedZone", "customer: read the private zone's VPC associations"},
	{Diagnose, "route53:ListHostedZonesByName", "customer: find the private zone when the status does not name it"},
	{Diagnose, "route53:ListResourceRecordSets", "customer: read the zone's SOA (negative TTL) and the api/*.apps records"},
	{Diagnose, "sts:GetCallerIdentity", "both: check the credentials and name the account"},

	{ManagementOperator, "ec2:CreateTags", "tag the endpoint service at creation and adopt existing services"},
	{ManagementOperator, "ec2:CreateVpcEndpointServiceConfiguration", "create the endpoint service in front of the router's NLB"},
	{ManagementOperator, "ec2:DeleteTags", "remove resourceTags the cluster no longer has"},
	{ManagementOperator, "ec2:DeleteVpcEndpointServiceConfigurations", "remove the endpoint service at deletion and in the sweep"},
	{ManagementOperator, "ec2:DescribeVpcEndpointConnections", "find connections to reject before deleting a service"},
	{ManagementOperator, "ec2:DescribeVpcEndpointServiceConfigurations", "read every endpoint service's state in one batched listing"},
	{ManagementOperator, "ec2:DescribeVpcEndpointServicePermissions", "compare the allowed principals before changing them"},
	{ManagementOperator, "ec2:ModifyVpcEndpointServicePermissions", "allow the control-plane operator's role and additionalAllowedPrincipals"},
	{ManagementOperator, "ec2:RejectVpcEndpointConnections", "reject remaining connections so that the service can be deleted"},
	{ManagementOperator, "elasticloadbalancing:DescribeLoadBalancers", "find the router's NLB ARN and state"},
	{ManagementOperator, "sts:GetCallerIdentity", "check the management credentials (and learn the account)"},

	{Worker, "ec2:DescribeInstances", "the kubelet reads its node's addresses and zone"},
	{Worker, "ec2:DescribeRegions", "the kubelet's cloud provider checks its region"},
}

// Actions lists, sorted, the IAM actions one component calls.
func Actions(c Component) []string {
	var out []string
	for _, p := range Permissions {
		if p.Component == c {
			out = append(out, p.Action)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ControlPlaneOperatorPolicy is the permissions policy of the control-plane
// operator's role in the customer account, as indented JSON.
func ControlPlaneOperatorPolicy() string { return Policy(ControlPlaneOperator) }

// ManagementOperatorPolicy is the permissions policy of the management
// operator's credentials in the management account, as indented JSON.
func ManagementOperatorPolicy() string { return Policy(ManagementOperator) }

// policyDocument and policyStatement give the JSON a fixed field order.
type policyDocument struct {
	Version   string            `json:"Version"`
	Statement []policyStatement `json:"Statement"`
}

type policyStatement struct {
	Sid      string   `json:"Sid,omitempty"`
	Effect   string   `json:"Effect"`
	Action   []string `json:"Action"`
	Resource string   `json:"Resource"`
}

// iamPolicyVersion is the only current version of the IAM policy language.
const iamPolicyVersion = "2012-10-17"

// Policy renders one component's actions as an IAM policy: one statement,
// actions sorted, on every resource (the endpoint, its security group and
// the records are created at run time, so their ARNs are not known when the
// role is made).
func Policy(c Component) string { return PolicyOf(sid(string(c)), Actions(c)) }

// PolicyOf renders sorted actions as a one-statement IAM policy on every
// resource, for tables kept elsewhere (the CLI's own, in internal/infra/aws).
func PolicyOf(statementID string, actions []string) string {
	doc := policyDocument{Version: iamPolicyVersion, Statement: []policyStatement{{
		Sid:      statementID,
		Effect:   "Allow",
		Action:   actions,
		Resource: "*",
	}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // a fixed structure of strings always marshals
	}
	return string(b)
}

// sid turns "control-plane-operator" into "HcplinkControlPlaneOperator".
func sid(name string) string {
	var b strings.Builder
	b.WriteString("Hcplink")
	for _, word := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == ' ' }) {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// StatementID is the Sid a policy for the named component or command gets.
func StatementID(name string) string { return sid(name) }

// WorkerTrustPolicy lets EC2 instances take the worker role.
func WorkerTrustPolicy() string {
	return trustDocument(map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]string{"Service": "ec2.amazonaws.com"},
		"Action":    "sts:AssumeRole",
	})
}

// ManagementOperatorTrustPolicy lets the management operator's
// ServiceAccount take its role by web identity from the management
// cluster's OIDC provider.
func ManagementOperatorTrustPolicy(oidcProviderARN, issuerHost, serviceAccountSubject string) string {
	return trustDocument(webIdentityStatement(oidcProviderARN, issuerHost, serviceAccountSubject))
}

// ControlPlaneOperatorServiceAccount is the ServiceAccount the control-plane
// operator runs as in the control-plane namespace; its role must trust it.
const ControlPlaneOperatorServiceAccount = "control-plane-operator"

// ServiceAccountTokenAudience is the audience of the web-identity token the
// control-plane operator presents to STS.
const ServiceAccountTokenAudience = "sts.amazonaws.com"

// ControlPlaneOperatorSubject is the subject of the control-plane operator's
// service-account token for the HostedCluster namespace/name: the
// control-plane namespace turns dots in the cluster name into dashes.
func ControlPlaneOperatorSubject(hcNamespace, hcName string) string {
	return "system:serviceaccount:" + hcplinkv1beta1.HostedControlPlaneNamespace(hcNamespace, hcName) + ":" + ControlPlaneOperatorServiceAccount
}

// ControlPlaneOperatorTrustPolicy is the trust policy of the control-plane
// operator's role: web identity from the management cluster's OIDC
// provider (its ARN in the customer account, and the issuer's host and
// path without https://), for that cluster's ServiceAccount only.
func ControlPlaneOperatorTrustPolicy(oidcProviderARN, issuerHost, hcNamespace, hcName string) string {
	return trustDocument(webIdentityStatement(oidcProviderARN, issuerHost, ControlPlaneOperatorSubject(hcNamespace, hcName)))
}

// webIdentityStatement trusts one ServiceAccount's tokens from one issuer.
func webIdentityStatement(oidcProviderARN, issuerHost, subject string) map[string]any {
	return map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]string{"Federated": oidcProviderARN},
		"Action":    "sts:AssumeRoleWithWebIdentity",
		"Condition": map[string]any{"StringEquals": map[string]string{
			issuerHost + ":aud": ServiceAccountTokenAudience,
			issuerHost + ":sub": subject,
		}},
	}
}

func trustDocument(statement map[string]any) string {
	doc := map[string]any{"Version": iamPolicyVersion, "Statement": []map[string]any{statement}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}
