package awscorpus

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/corpus"
)

// awsFixture is what the AWS cases point at besides the healthy cluster.
type awsFixture struct {
	// otherVPCSubnet is a subnet of another VPC of the customer's account.
	otherVPCSubnet string
	// secondCustomerSubnet is a subnet of another customer's account.
	secondCustomerSubnet string
}

// TestAWSCorpus runs the AWS bad-input corpus beside a healthy private
// cluster on an AWS devenv.
func TestAWSCorpus(t *testing.T) {
	t.Parallel()
	env := corpus.Env()
	ctx := context.Background()
	l := &corpus.Lane{Env: env, Namespace: corpus.CreateNamespace(t, env, "corpus-aws"), CloudState: env.Cloud.AWS.Snapshot,
		OwnedMarkers: func(infraID, name string) []string {
			return []string{awscloud.SecurityGroupName(infraID, ""), "api." + name + ".hypershift.local"}
		}}
	l.ValidCluster = func(c *corpus.Run) *hcv1.HostedCluster { return awsPrivateCluster(env, c.Namespace, c.Name, c.InfraID) }
	l.ValidNodePool = func(c *corpus.Run, cluster string) *hcv1.NodePool {
		return awsNodePool(c.Namespace, c.Name, cluster, env.Customer.SubnetByAZ[env.Customer.Zones[0]])
	}

	// The healthy cluster: private, two NodePools, a clusterID (so that
	// changing it can be tried).
	healthyInfraID := "corpus-healthy-" + corpus.RandomSuffix(5)
	prepared, err := env.PrepareAWSCluster(ctx, l.Namespace, "healthy", healthyInfraID)
	if err != nil {
		t.Fatalf("preparing the healthy cluster's customer side: %v", err)
	}
	l.Healthy = awsPrivateCluster(env, l.Namespace, "healthy", healthyInfraID)
	l.Healthy.Spec.ClusterID = "6d3f1a2b-9c8e-4f7a-b6d5-0e1f2a3b4c5d"
	l.Healthy.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = prepared.ControlPlaneOperatorRoleARN
	if err := env.Client.Create(ctx, l.Healthy); err != nil {
		t.Fatalf("creating the healthy cluster: %v", err)
	}
	for i, zone := range env.Customer.Zones[:2] {
		np := awsNodePool(l.Namespace, fmt.Sprintf("healthy-np%d", i+1), "healthy", env.Customer.SubnetByAZ[zone])
		if err := env.Client.Create(ctx, np); err != nil {
			t.Fatalf("creating the healthy cluster's NodePool: %v", err)
		}
	}
	// The target: another private cluster, which the NodePool cases give
	// subnets it cannot use, one case at a time.
	targetInfraID := "corpus-target-" + corpus.RandomSuffix(5)
	if prepared, err = env.PrepareAWSCluster(ctx, l.Namespace, "target", targetInfraID); err != nil {
		t.Fatalf("preparing the target cluster's customer side: %v", err)
	}
	beforeTarget, err := env.Cloud.AWS.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	l.Target = awsPrivateCluster(env, l.Namespace, "target", targetInfraID)
	l.Target.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = prepared.ControlPlaneOperatorRoleARN
	if err := env.Client.Create(ctx, l.Target); err != nil {
		t.Fatalf("creating the target cluster: %v", err)
	}
	if err := env.Client.Create(ctx, awsNodePool(l.Namespace, "target-np1", "target", env.Customer.SubnetByAZ[env.Customer.Zones[0]])); err != nil {
		t.Fatalf("creating the target cluster's NodePool: %v", err)
	}
	fx := prepareAWSFixture(t, env)
	l.PrivateLinkConditions = []string{hcv1.AWSEndpointAvailableCondition, hcv1.AWSEndpointServiceAvailableCondition}
	l.WaitAvailable(t, l.Healthy)
	l.WaitAvailable(t, l.Target)
	l.Corpus(t, awsCases(env, fx), awsTargetCases(env, fx))
	t.Run("HostedCluster deleted while its NodePools remain", func(t *testing.T) {
		l.DeleteTargetLeavingNodePools(t, targetInfraID, beforeTarget)
	})
}

// awsTargetCases give the target cluster NodePools in subnets it cannot
// use; they run one at a time, as each one's answer is the target's
// condition.
func awsTargetCases(env *devenv.Env, fx awsFixture) []corpus.Case {
	const endpoint = hcv1.AWSEndpointAvailableCondition
	return cases([]corpusCase{
		{"NodePool in a subnet of another VPC", corpus.OnTarget(fx.otherVPCSubnet),
			corpus.Condition(endpoint, hcv1.SubnetNotInVPCReason, fx.otherVPCSubnet)},
		{"NodePool in a subnet that does not exist", corpus.OnTarget("subnet-0123456789abcdef0"),
			corpus.Condition(endpoint, hcv1.SubnetNotFoundReason, "subnet-0123456789abcdef0")},
		{"NodePool in a subnet of another account", corpus.OnTarget(fx.secondCustomerSubnet),
			corpus.Condition(endpoint, hcv1.SubnetNotFoundReason, fx.secondCustomerSubnet)},
		{"NodePool in the subnet of another NodePool", corpus.OnTarget(env.Customer.SubnetByAZ[env.Customer.Zones[0]]),
			corpus.AcceptedAs(endpoint)},
	})
}

// prepareAWSFixture makes, in the customer's account, what the cases name:
// another VPC with a subnet.
func prepareAWSFixture(t *testing.T, env *devenv.Env) awsFixture {
	t.Helper()
	ctx := context.Background()
	customer := ec2.NewFromConfig(env.CustomerAWS)
	var fx awsFixture
	vpc, err := customer.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.200.0.0/16")})
	if err != nil {
		t.Fatalf("creating another VPC: %v", err)
	}
	sn, err := customer.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String("10.200.0.0/24"),
		AvailabilityZone: aws.String(env.Customer.Zones[0])})
	if err != nil {
		t.Fatalf("creating a subnet of another VPC: %v", err)
	}
	fx.otherVPCSubnet = aws.ToString(sn.Subnet.SubnetId)
	fx.secondCustomerSubnet = env.SecondCustomer.SubnetByAZ[env.SecondCustomer.Zones[0]]
	return fx
}

// awsPrivateCluster is a Private AWS cluster the API server and the
// operator accept; the role it names need not exist.
func awsPrivateCluster(env *devenv.Env, namespace, name, infraID string) *hcv1.HostedCluster {
	return &hcv1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.HostedClusterSpec{
			InfraID:    infraID,
			DNS:        hcv1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcv1.ClusterNetworking{MachineNetwork: []hcv1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}}},
			Services:   corpus.RouteServices(name),
			Platform: hcv1.PlatformSpec{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcv1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcv1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
				RolesRef:            &hcv1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::" + devenv.CustomerAccount + ":role/" + infraID + "-control-plane-operator"},
				ResourceTags:        []hcv1.AWSResourceTag{{Key: "team", Value: "corpus"}},
			}},
		},
	}
}

func awsNodePool(namespace, name, cluster, subnet string) *hcv1.NodePool {
	return &hcv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcv1.NodePoolSpec{ClusterName: cluster, Platform: hcv1.NodePoolPlatform{Type: hcv1.AWSPlatform,
			AWS: &hcv1.AWSNodePoolPlatform{Subnet: &hcv1.AWSSubnetReference{ID: subnet}}}},
	}
}

// awsCluster is a CreateCluster whose change needs only the cluster.
func awsCluster(change func(a *hcv1.AWSPlatformSpec)) corpus.Act {
	return corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { change(hc.Spec.Platform.AWS) })
}

func cluster(change func(hc *hcv1.HostedCluster)) corpus.Act {
	return corpus.CreateCluster(func(_ *corpus.Run, hc *hcv1.HostedCluster) { change(hc) })
}

func healthyAWS(change func(a *hcv1.AWSPlatformSpec)) corpus.Act {
	return corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { change(hc.Spec.Platform.AWS) })
}

func principals(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("arn:aws:iam::%012d:root", i+1)
	}
	return out
}

func awsTags(n int) []hcv1.AWSResourceTag {
	out := make([]hcv1.AWSResourceTag, n)
	for i := range out {
		out[i] = hcv1.AWSResourceTag{Key: fmt.Sprintf("k%d", i), Value: "v"}
	}
	return out
}

// awsCases is the AWS corpus.
func awsCases(env *devenv.Env, fx awsFixture) []corpus.Case {
	long := strings.Repeat
	const roleField = "spec.platform.aws.rolesRef.controlPlaneOperatorARN"
	npSubnet := func(subnet string) func(*corpus.Run, *hcv1.NodePool) {
		return func(_ *corpus.Run, np *hcv1.NodePool) { np.Spec.Platform.AWS.Subnet.ID = subnet }
	}
	return cases([]corpusCase{
		// Names and identifiers.
		{"infraID in capitals", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = "Corpus_1" }),
			corpus.Refused("spec.infraID", "lowercase letters, digits and hyphens")},
		{"infraID of 64 characters", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.InfraID = long("a", 64) }),
			corpus.Refused("spec.infraID", "Too long")},
		{"clusterID that is not a UUID", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = long("z", 36) }),
			corpus.Refused("spec.clusterID", "must be a UUID")},
		{"pausedUntil that is neither true nor a time", cluster(func(hc *hcv1.HostedCluster) { p := "tomorrow"; hc.Spec.PausedUntil = &p }),
			corpus.Refused("spec.pausedUntil", "RFC3339")},
		{"baseDomain with an underscore", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.DNS.BaseDomain = "my_domain.example" }),
			corpus.Refused("spec.dns.baseDomain", "lowercase DNS name")},
		{"name and namespace too long for a namespace", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) { hc.Name = c.Name + long("x", 60) }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.NamespaceNameTooLongReason, "shorten the HostedCluster's name")},

		// Networks.
		{"no machine network", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Networking.MachineNetwork = []hcv1.MachineNetworkEntry{} }),
			corpus.Refused("spec.networking.machineNetwork", "at least 1 items")},
		{"machine network with host bits", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Networking.MachineNetwork[0].CIDR = "10.1.0.1/16" }),
			corpus.Refused("spec.networking.machineNetwork[0].cidr", "no host bits")},
		{"machine network that is not a CIDR", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Networking.MachineNetwork[0].CIDR = "10.1.0.0/33" }),
			corpus.Refused("spec.networking.machineNetwork[0].cidr", "CIDR notation")},
		{"17 machine networks", cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = nil
			for i := range 17 {
				hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hcv1.MachineNetworkEntry{CIDR: fmt.Sprintf("10.%d.0.0/16", i)})
			}
		}), corpus.Refused("spec.networking.machineNetwork", "Too many")},
		{"the same machine network twice", cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = append(hc.Spec.Networking.MachineNetwork, hc.Spec.Networking.MachineNetwork[0])
		}), corpus.Refused("spec.networking.machineNetwork", "lists a CIDR twice")},

		// Services.
		{"services without APIServer", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Services = hc.Spec.Services[1:] }),
			corpus.Refused("spec.services", "must include an entry for APIServer")},
		{"Konnectivity by load balancer", cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[2].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing}
		}), corpus.Refused("spec.services[2].servicePublishingStrategy.type", "must be Route")},
		{"APIServer by Route without a hostname", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Services[0].ServicePublishingStrategy.Route = nil }),
			corpus.Refused("spec.services[0].servicePublishingStrategy.route", "route.hostname is required")},
		{"private APIServer by node port", cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Services[0].ServicePublishingStrategy = hcv1.ServicePublishingStrategy{Type: hcv1.NodePortPublishing}
		}), corpus.Refused("spec.services", "NodePort has no private path")},

		// Platform.
		{"unknown platform", cluster(func(hc *hcv1.HostedCluster) { hc.Spec.Platform.Type = "IBMCloud" }),
			corpus.Refused("spec.platform.type", "Unsupported value")},
		{"AWS platform with azure set", cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.Azure = &hcv1.AzurePlatformSpec{SubscriptionID: azureGuestSubscriptionForAWS, ResourceGroupName: "rg", Location: "eastus",
				VnetID: azureVNetForAWS, SubnetID: azureVNetForAWS + "/subnets/workers"}
		}), corpus.Refused("spec.platform.azure", "must not be set when platform.type is AWS")},
		{"region that is not a region name", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.Region = "us-east" }),
			corpus.Refused("spec.platform.aws.region", "AWS region name")},
		{"region of 33 characters", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.Region = "us-" + long("a", 28) + "-1" }),
			corpus.Refused("spec.platform.aws.region", "Too long")},
		{"unknown region", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.Region = "xx-nowhere-9" }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.PlatformRegionMismatchReason, "must be in the operator's region")},
		{"region other than the operator's", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.Region = "eu-west-1" }),
			corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.PlatformRegionMismatchReason, "eu-west-1")},
		{"unknown endpointAccess", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.EndpointAccess = "Internal" }),
			corpus.Refused("spec.platform.aws.endpointAccess", "Unsupported value")},
		{"private without rolesRef", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.RolesRef = nil }),
			corpus.Refused("spec.platform.aws.rolesRef", "is required when endpointAccess is PublicAndPrivate or Private")},
		{"private without cloudProviderConfig", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.CloudProviderConfig = nil }),
			corpus.Refused("spec.platform.aws.cloudProviderConfig", "cloudProviderConfig.vpc is required")},
		{"VPC ID that is not one", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.CloudProviderConfig.VPC = "vpc-123" }),
			corpus.Refused("spec.platform.aws.cloudProviderConfig.vpc", "must be a VPC ID")},
		{"default subnet ID that is not one", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.CloudProviderConfig.Subnet = &hcv1.AWSSubnetReference{ID: "subnet-0123456789abcdefg"}
		}), corpus.Refused("spec.platform.aws.cloudProviderConfig.subnet.id", "must be a subnet ID")},
		{"zone that is not a zone name", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.CloudProviderConfig.Zone = "US East 1a" }),
			corpus.Refused("spec.platform.aws.cloudProviderConfig.zone", "availability zone name")},

		// Role ARNs.
		{"role ARN of a user", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::222222222222:user/alice"
		}),
			corpus.Refused(roleField, "must be an IAM role ARN")},
		{"role ARN with an 11-digit account", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::22222222222:role/cpo"
		}),
			corpus.Refused(roleField, "must be an IAM role ARN")},
		{"role ARN that is not an ARN", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.RolesRef.ControlPlaneOperatorARN = "control-plane-operator" }),
			corpus.Refused(roleField, "must be an IAM role ARN")},
		{"role ARN of the China partition", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = "arn:aws-cn:iam::222222222222:role/cpo"
		}),
			corpus.Refused(roleField, "must be in the region's partition")},
		{"role ARN of the commercial partition in GovCloud", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.Region = "us-gov-west-1" }),
			corpus.Refused(roleField, "must be in the region's partition")},
		{"role ARN of an unknown partition", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = "arn:aws-moon:iam::222222222222:role/cpo"
		}),
			corpus.Refused(roleField, "must be in the region's partition")},
		{"role ARN of a name AWS refuses", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::222222222222:role/cpo role"
		}),
			corpus.Refused(roleField, "must be an IAM role ARN")},

		// Tags.
		{"tag key starting with aws:", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags[0].Key = "aws:createdBy" }),
			corpus.Refused("spec.platform.aws.resourceTags[0].key", "must not start with aws:")},
		{"tag key reserved by hcplink", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags[0].Key = "hcplink.io/owner" }),
			corpus.Refused("spec.platform.aws.resourceTags[0].key", "hcplink sets those tags itself")},
		{"tag value of 257 characters", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags[0].Value = long("v", 257) }),
			corpus.Refused("spec.platform.aws.resourceTags[0].value", "Too long")},
		{"tag value with a character AWS refuses", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags[0].Value = "a#b" }),
			corpus.Refused("spec.platform.aws.resourceTags[0].value", "may contain only letters, digits")},
		{"26 tags", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags = awsTags(26) }),
			corpus.Refused("spec.platform.aws.resourceTags", "Too many")},
		{"a tag key twice", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.ResourceTags = append(a.ResourceTags, a.ResourceTags[0]) }),
			corpus.Refused("spec.platform.aws.resourceTags[1]", "Duplicate value")},

		// Additional allowed principals.
		{"any principal", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.AdditionalAllowedPrincipals = []string{"*"} }),
			corpus.Refused("spec.platform.aws.additionalAllowedPrincipals[0]", "would let any AWS account connect")},
		{"principal that is an account number", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.AdditionalAllowedPrincipals = []string{"123456789012"} }),
			corpus.Refused("spec.platform.aws.additionalAllowedPrincipals[0]", "must be IAM principal ARNs")},
		{"principal of a group", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.AdditionalAllowedPrincipals = []string{"arn:aws:iam::123456789012:group/admins"}
		}), corpus.Refused("spec.platform.aws.additionalAllowedPrincipals[0]", "must be IAM principal ARNs")},
		{"a principal twice", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.AdditionalAllowedPrincipals = []string{"arn:aws:iam::123456789012:root", "arn:aws:iam::123456789012:root"}
		}), corpus.Refused("spec.platform.aws.additionalAllowedPrincipals[1]", "Duplicate value")},
		{"51 principals", awsCluster(func(a *hcv1.AWSPlatformSpec) { a.AdditionalAllowedPrincipals = principals(51) }),
			corpus.Refused("spec.platform.aws.additionalAllowedPrincipals", "Too many")},
		{"principal of another partition", awsCluster(func(a *hcv1.AWSPlatformSpec) {
			a.AdditionalAllowedPrincipals = []string{"arn:aws-cn:iam::123456789012:root"}
		}), corpus.Refused("spec.platform.aws.additionalAllowedPrincipals", "region's partition")},

		// Changes to the healthy cluster that are not allowed.
		{"infraID changed", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { hc.Spec.InfraID += "-2" }),
			corpus.Refused("spec.infraID", "infraID is immutable")},
		{"clusterID changed", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = "7e4a2b3c-0d9f-4a8b-97e6-1f2a3b4c5d6e" }),
			corpus.Refused("spec.clusterID", "clusterID is immutable")},
		{"clusterID removed", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { hc.Spec.ClusterID = "" }),
			corpus.Refused("spec.clusterID", "clusterID is immutable")},
		{"baseDomain changed", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) { hc.Spec.DNS.BaseDomain = "other.example" }),
			corpus.Refused("spec.dns.baseDomain", "baseDomain is immutable")},
		{"platform changed to Azure", corpus.UpdateHealthy(func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AzurePlatform, Azure: &hcv1.AzurePlatformSpec{SubscriptionID: azureGuestSubscriptionForAWS,
				ResourceGroupName: "rg", Location: "eastus", VnetID: azureVNetForAWS, SubnetID: azureVNetForAWS + "/subnets/workers"}}
		}), corpus.Refused("spec.platform.type", "platform.type is immutable")},
		{"region changed", healthyAWS(func(a *hcv1.AWSPlatformSpec) { a.Region = "us-west-2" }),
			corpus.Refused("spec.platform.aws.region", "region is immutable")},
		{"VPC changed", healthyAWS(func(a *hcv1.AWSPlatformSpec) { a.CloudProviderConfig.VPC = "vpc-0fedcba9876543210" }),
			corpus.Refused("spec.platform.aws.cloudProviderConfig.vpc", "vpc is immutable")},
		{"VPC removed", healthyAWS(func(a *hcv1.AWSPlatformSpec) { a.CloudProviderConfig = nil }),
			corpus.Refused("spec.platform.aws.cloudProviderConfig", "is required")},
		{"Private to Public", healthyAWS(func(a *hcv1.AWSPlatformSpec) { a.EndpointAccess = hcv1.AWSEndpointAccessPublic }),
			corpus.Refused("spec.platform.aws.endpointAccess", "can change only between PublicAndPrivate and Private")},
		{"role ARN changed to another partition", healthyAWS(func(a *hcv1.AWSPlatformSpec) {
			a.RolesRef.ControlPlaneOperatorARN = strings.Replace(a.RolesRef.ControlPlaneOperatorARN, "arn:aws:", "arn:aws-us-gov:", 1)
		}), corpus.Refused(roleField, "must be in the region's partition")},
		// Paused, so that the operator makes nothing for the Public cluster.
		{"Public cluster made Private", corpus.ThenUpdate(cluster(func(hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPublic
			paused := "true"
			hc.Spec.PausedUntil = &paused
		}), func(_ *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcv1.AWSEndpointAccessPrivate
		}),
			corpus.Refused("spec.platform.aws.endpointAccess", "can change only between PublicAndPrivate and Private")},

		// NodePools.
		{"NodePool subnet ID that is not one", corpus.CreateNodePool(nil, npSubnet("subnet-XYZ")),
			corpus.Refused("spec.platform.aws.subnet.id", "must be a subnet ID")},
		{"NodePool cluster name that is not a name", corpus.CreateNodePool(func(*corpus.Run) string { return "Healthy_Cluster" }, nil),
			corpus.Refused("spec.clusterName", "must be the name of a HostedCluster")},
		{"NodePool with azure on AWS", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform.Azure = &hcv1.AzureNodePoolPlatform{SubnetID: azureVNetForAWS + "/subnets/workers"}
		}), corpus.Refused("spec.platform.azure", "must not be set when platform.type is AWS")},
		{"NodePool of a cluster that does not exist", corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil),
			corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.HostedClusterNotFoundReason, "no-such-cluster")},
		{"Azure NodePool of an AWS cluster", corpus.CreateNodePool(nil, func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AzurePlatform, Azure: &hcv1.AzureNodePoolPlatform{SubnetID: azureVNetForAWS + "/subnets/workers"}}
		}), corpus.Condition(hcv1.NodePoolValidConfigurationCondition, hcv1.PlatformMismatchReason, "must be on its cluster's platform")},
		{"NodePool cluster changed", corpus.ThenUpdate(corpus.CreateNodePool(nil, nil), func(_ *corpus.Run, np *hcv1.NodePool) { np.Spec.ClusterName = "other" }),
			corpus.Refused("spec.clusterName", "clusterName is immutable")},
		{"NodePool platform changed", corpus.ThenUpdate(corpus.CreateNodePool(func(*corpus.Run) string { return "no-such-cluster" }, nil), func(_ *corpus.Run, np *hcv1.NodePool) {
			np.Spec.Platform = hcv1.NodePoolPlatform{Type: hcv1.AzurePlatform, Azure: &hcv1.AzureNodePoolPlatform{SubnetID: azureVNetForAWS + "/subnets/workers"}}
		}), corpus.Refused("spec.platform.type", "platform.type is immutable")},

		// Clusters on another cloud than the operator serves.
		{"Azure private cluster on the AWS operator", corpus.CreateCluster(func(c *corpus.Run, hc *hcv1.HostedCluster) {
			hc.Spec.Platform = hcv1.PlatformSpec{Type: hcv1.AzurePlatform, Azure: &hcv1.AzurePlatformSpec{
				SubscriptionID: azureGuestSubscriptionForAWS, ResourceGroupName: "rg", Location: "eastus",
				VnetID: azureVNetForAWS, SubnetID: azureVNetForAWS + "/subnets/workers",
				Topology: hcv1.AzureTopologyPrivate, Private: &hcv1.AzurePrivateSpec{Type: hcv1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcv1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}}
		}), corpus.Condition(hcv1.ValidConfigurationCondition, hcv1.UnsupportedPrivatePlatformReason, "--private-platform=Azure")},
	})
}

// An Azure network for AWS cases that set Azure fields; nothing reaches it.
const (
	azureGuestSubscriptionForAWS = "5f2c3a9e-7d1b-4c6a-9e8f-0a1b2c3d4e5f"
	azureVNetForAWS              = "/subscriptions/" + azureGuestSubscriptionForAWS + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"
)

// corpusCase is a corpus.Case, written in the table without field names.
type corpusCase struct {
	name string
	do   corpus.Act
	want corpus.Want
}

func cases(table []corpusCase) []corpus.Case {
	out := make([]corpus.Case, len(table))
	for i, c := range table {
		out[i] = corpus.Case{Name: c.name, Do: c.do, Want: c.want}
	}
	return out
}
