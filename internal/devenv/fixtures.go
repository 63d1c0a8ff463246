package devenv

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

// The two accounts of the local cloud. The access key ID is the account
// number (cloudsim's rule); any secret works.
const (
	ManagementAccount = "111111111111"
	CustomerAccount   = "222222222222"
	// SecondCustomerAccount is another customer with its own VPC, so that a
	// test can make one customer's cloud slow (cloudsim scopes faults by
	// account) while another's clusters converge.
	SecondCustomerAccount = "444444444444"
	Region                = "us-east-1"

	// oidcHost issues the service-account tokens the kubelet stand-in mints;
	// the customer account trusts it, as it would trust a real cluster's
	// issuer.
	oidcHost = "oidc.devenv.hcplink.local"
	// tokenAudience is the audience STS expects in web-identity tokens.
	tokenAudience = awscloud.ServiceAccountTokenAudience
)

// zoneCount is how many availability zones the management VPC and every
// customer network span.
const zoneCount = 3

// ManagementNetwork is the management cluster's VPC, where the router
// Services' load balancers live.
type ManagementNetwork struct {
	VPCID          string
	PrivateSubnets []string // one per zone, for internal load balancers
	PublicSubnets  []string // one per zone, for internet-facing load balancers
}

// CustomerNetwork is the customer's VPC, where the workers run.
type CustomerNetwork struct {
	Account      string
	VPCID        string
	CIDR         string
	Zones        []string // zone names, in the customer account's naming
	SubnetByAZ   map[string]string
	OIDCProvider string // ARN of the identity provider trusted for CPO roles
}

// seedManagement creates the management VPC, its internet gateway and a
// private and a public subnet per zone. It is not customer infrastructure
// (`hcplink create infra aws` makes none of it), so devenv makes it itself.
func seedManagement(ctx context.Context, mgmt aws.Config) (ManagementNetwork, error) {
	var m ManagementNetwork
	vpc, err := createVPC(ctx, ec2.NewFromConfig(mgmt), "devenv-management", "10.0.0.0/16")
	if err != nil {
		return m, fmt.Errorf("management VPC: %w", err)
	}
	m.VPCID = vpc
	// Internet-facing load balancers (the public router) need a gateway.
	if err := attachInternetGateway(ctx, ec2.NewFromConfig(mgmt), vpc, "devenv-management-igw"); err != nil {
		return m, err
	}
	zones, err := zoneNames(ctx, ec2.NewFromConfig(mgmt))
	if err != nil {
		return m, err
	}
	for i, zone := range zones {
		private, err := createSubnet(ctx, ec2.NewFromConfig(mgmt), vpc, zone, fmt.Sprintf("10.0.%d.0/20", 128+16*i),
			"devenv-management-private-"+zone, map[string]string{"kubernetes.io/role/internal-elb": "1"})
		if err != nil {
			return m, err
		}
		public, err := createSubnet(ctx, ec2.NewFromConfig(mgmt), vpc, zone, fmt.Sprintf("10.0.%d.0/20", 16*i),
			"devenv-management-public-"+zone, map[string]string{"kubernetes.io/role/elb": "1"})
		if err != nil {
			return m, err
		}
		m.PrivateSubnets = append(m.PrivateSubnets, private)
		m.PublicSubnets = append(m.PublicSubnets, public)
	}
	return m, nil
}

func zoneNames(ctx context.Context, client *ec2.Client) ([]string, error) {
	out, err := client.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		return nil, fmt.Errorf("listing availability zones: %w", err)
	}
	var names []string
	for _, z := range out.AvailabilityZones {
		names = append(names, aws.ToString(z.ZoneName))
	}
	if len(names) < zoneCount {
		return nil, fmt.Errorf("region has %d zones, devenv needs %d", len(names), zoneCount)
	}
	return names[:zoneCount], nil
}

func nameTags(resourceType ec2types.ResourceType, name string, extra map[string]string) []ec2types.TagSpecification {
	tags := []ec2types.Tag{{Key: aws.String("Name"), Value: aws.String(name)}}
	for k, v := range extra {
		tags = append(tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	return []ec2types.TagSpecification{{ResourceType: resourceType, Tags: tags}}
}

func createVPC(ctx context.Context, client *ec2.Client, name, cidr string) (string, error) {
	out, err := client.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(cidr), TagSpecifications: nameTags(ec2types.ResourceTypeVpc, name, nil)})
	if err != nil {
		return "", err
	}
	id := aws.ToString(out.Vpc.VpcId)
	for _, attr := range []*ec2.ModifyVpcAttributeInput{
		{VpcId: &id, EnableDnsSupport: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}},
		{VpcId: &id, EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}},
	} {
		if _, err := client.ModifyVpcAttribute(ctx, attr); err != nil {
			return "", fmt.Errorf("enabling DNS on %s: %w", id, err)
		}
	}
	return id, nil
}

func attachInternetGateway(ctx context.Context, client *ec2.Client, vpc, name string) error {
	out, err := client.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{TagSpecifications: nameTags(ec2types.ResourceTypeInternetGateway, name, nil)})
	if err != nil {
		return fmt.Errorf("internet gateway %s: %w", name, err)
	}
	if _, err := client.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: out.InternetGateway.InternetGatewayId, VpcId: &vpc}); err != nil {
		return fmt.Errorf("attaching internet gateway %s: %w", name, err)
	}
	return nil
}

func createSubnet(ctx context.Context, client *ec2.Client, vpc, zone, cidr, name string, tags map[string]string) (string, error) {
	out, err := client.CreateSubnet(ctx, &ec2.CreateSubnetInput{
		VpcId: &vpc, AvailabilityZone: &zone, CidrBlock: &cidr,
		TagSpecifications: nameTags(ec2types.ResourceTypeSubnet, name, tags),
	})
	if err != nil {
		return "", fmt.Errorf("subnet %s: %w", name, err)
	}
	return aws.ToString(out.Subnet.SubnetId), nil
}

// AWSClusterFixture is what the customer prepares for one private cluster
// before creating it: the control-plane operator's role and the private zone.
type AWSClusterFixture struct {
	ControlPlaneOperatorRoleARN string
	PrivateZoneID               string
}

// PrepareAWSCluster creates, in the customer account, what a private AWS
// cluster needs before it is created: the control-plane operator's IAM role
// (trusting the devenv issuer for the CPO's service account in the
// cluster's control-plane namespace) and the <name>.hypershift.local private
// zone on the customer VPC, as `hcplink create infra aws` makes it (tagged
// for infraID). It is idempotent.
func (e *Env) PrepareAWSCluster(ctx context.Context, namespace, name, infraID string) (AWSClusterFixture, error) {
	return e.PrepareAWSClusterIn(ctx, e.Customer, e.CustomerAWS, namespace, name, infraID)
}

// PrepareAWSClusterIn is PrepareAWSCluster in a given customer's account
// (e.Customer with e.CustomerAWS, or e.SecondCustomer with
// e.SecondCustomerAWS). The role is made by internal/infra/awsiam, as
// `hcplink create iam aws` makes it: the permissions table's policy, trusting
// only the cluster's control-plane-operator ServiceAccount.
func (e *Env) PrepareAWSClusterIn(ctx context.Context, customer CustomerNetwork, cfg aws.Config, namespace, name, infraID string) (AWSClusterFixture, error) {
	var f AWSClusterFixture
	var err error
	if f.PrivateZoneID, err = clusterZone(ctx, customer, cfg, name, infraID); err != nil {
		return f, err
	}

	// The role is exactly what `hcplink create iam aws` makes, so every
	// scenario runs the control-plane operator under the CLI's policy.
	f.ControlPlaneOperatorRoleARN, err = awsiam.EnsureControlPlaneOperatorRole(ctx, iam.NewFromConfig(cfg), nil,
		awsiam.Options{InfraID: infraID, IssuerURL: "https://" + oidcHost, Namespace: namespace, Name: name}, customer.OIDCProvider)
	if err != nil {
		return f, err
	}
	return f, nil
}

// clusterZone is the cluster's <name>.hypershift.local zone on the customer
// VPC, made by internal/infra/aws as `hcplink create infra aws` makes it.
// When the customer already put its own zone of that name on the VPC (a
// scenario does, after deleting the one devenv made), Route 53 refuses a
// second one and that zone is the cluster's.
func clusterZone(ctx context.Context, customer CustomerNetwork, cfg aws.Config, name, infraID string) (string, error) {
	id, err := awsinfra.EnsureLocalZone(ctx, awsinfra.Options{InfraID: infraID, Name: name, Region: Region},
		awsinfra.Deps{Clients: awsinfra.NewClients(cfg, Region)}, customer.VPCID)
	if awscloud.ErrorCode(err) != awscloud.CodeConflictingDomainExists {
		return id, err
	}
	zoneName := awscloud.PrivateZoneName(name)
	id, err = awscloud.Records{Route53: route53.NewFromConfig(cfg)}.FindPrivateZone(ctx, zoneName, customer.VPCID)
	if err == nil && id == "" {
		err = fmt.Errorf("route 53 says VPC %s has a zone %s, but none is listed", customer.VPCID, zoneName)
	}
	return id, err
}

// APIServerByRoute publishes a cluster's API server by Route at host, as
// a private cluster on either cloud may.
func APIServerByRoute(host string) []hcplinkv1beta1.ServicePublishingStrategyMapping {
	return []hcplinkv1beta1.ServicePublishingStrategyMapping{{
		Service: hcplinkv1beta1.APIServer,
		ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
			Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: host},
		},
	}}
}
