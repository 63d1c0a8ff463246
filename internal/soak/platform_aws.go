package soak

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	route53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// awsPlatform spreads its clusters over customerAccounts customer
// accounts.
type awsPlatform struct{ customerAccounts int }

func (awsPlatform) name() string               { return "aws" }
func (awsPlatform) capacity() (int, string)    { return 0, "" }
func (awsPlatform) throttling() sim.Throttling { return sim.AWSDefaultThrottling() }

func (p awsPlatform) devenvOptions(Options) devenv.Options {
	return devenv.Options{Faults: &sim.FaultConfig{Throttling: p.throttling()}, DriftInterval: driftInterval, OperatorReplicas: operatorReplicas,
		CustomerAccounts: p.customerAccounts}
}

func (p awsPlatform) prepare(ctx context.Context, env *devenv.Env, n int) ([]*cluster, error) {
	raiseQuotas(env, n)
	customers := env.Customers[:min(len(env.Customers), max(1, p.customerAccounts))]
	out := make([]*cluster, n)
	for i := range out {
		customer := customers[i%len(customers)]
		c := &cluster{index: i, namespace: fmt.Sprintf("soak-%03d", i), name: fmt.Sprintf("hc-%d", i), infraID: fmt.Sprintf("soak-%03d", i),
			customer: customer.Network, customerAWS: patient(customer.AWS)}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fx, err := env.PrepareAWSClusterIn(ctx, c.customer, c.customerAWS, c.namespace, c.name, c.infraID)
		if err != nil {
			return nil, fmt.Errorf("preparing %s: %w", c.name, err)
		}
		c.role, c.zoneID = fx.ControlPlaneOperatorRoleARN, fx.PrivateZoneID
		out[i] = c
	}
	return out, nil
}

// principals: the management operator's user, and every control-plane
// operator's role sessions.
func (awsPlatform) principals(_ *devenv.Env, clusters []*cluster) []string {
	out := []string{devenv.ManagementOperatorUserARN}
	for _, c := range clusters {
		// arn:aws:iam::<account>:role/<path/name> → arn:aws:sts::<account>:assumed-role/<name>/*
		account := strings.Split(c.role, ":")[4]
		name := c.role[strings.LastIndex(c.role, "/")+1:]
		out = append(out, "arn:aws:sts::"+account+":assumed-role/"+name+"/*")
	}
	return out
}

func (awsPlatform) hostedCluster(c *cluster) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "soak.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: c.customer.CIDR}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".soak.example.com"),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: c.customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.role},
			}},
		},
	}
}

func (awsPlatform) subnets(c *cluster) int { return len(c.customer.Zones) }

func (awsPlatform) nodePoolPlatform(c *cluster, i int) hcplinkv1beta1.NodePoolPlatform {
	zone := c.customer.Zones[i%len(c.customer.Zones)]
	return hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform,
		AWS: &hcplinkv1beta1.AWSNodePoolPlatform{Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: c.customer.SubnetByAZ[zone]}}}
}

func (awsPlatform) toggleAccess(hc *hcplinkv1beta1.HostedCluster) {
	a := hc.Spec.Platform.AWS
	if a.EndpointAccess == hcplinkv1beta1.AWSEndpointAccessPrivate {
		a.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
	} else {
		a.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
	}
}

// allowOther allows another account's root: the second customer's, or
// the first's for the second customer's own clusters.
func (awsPlatform) allowOther(hc *hcplinkv1beta1.HostedCluster, on bool) {
	hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil
	if !on {
		return
	}
	other := devenv.SecondCustomerAccount
	if strings.Contains(hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN, ":"+other+":") {
		other = devenv.CustomerAccount
	}
	hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{"arn:aws:iam::" + other + ":root"}
}

// drift, as the customer with the API: the api record deleted from the
// cluster's private zone, or an ingress rule revoked from the endpoint's
// security group.
func (awsPlatform) drift(ctx context.Context, _ *devenv.Env, c *cluster, rng *rand.Rand) (string, error) {
	if rng.Intn(2) == 0 {
		return "record deleted", deleteAPIRecord(ctx, route53.NewFromConfig(c.customerAWS), c.zoneID)
	}
	return "rule revoked", revokeEndpointRule(ctx, ec2.NewFromConfig(c.customerAWS), c)
}

func (awsPlatform) revoke(ctx context.Context, _ *devenv.Env, c *cluster) (func(context.Context) error, error) {
	return revokeAWSRole(ctx, c)
}

func deleteAPIRecord(ctx context.Context, r53 *route53.Client, zoneID string) error {
	out, err := r53.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID)})
	if err != nil {
		return err
	}
	for _, rs := range out.ResourceRecordSets {
		if strings.HasPrefix(aws.ToString(rs.Name), "api.") {
			_, err := r53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zoneID),
				ChangeBatch: &route53types.ChangeBatch{Changes: []route53types.Change{{Action: route53types.ChangeActionDelete, ResourceRecordSet: &rs}}}})
			return err
		}
	}
	return nil // not made yet: nothing to drift
}

func revokeEndpointRule(ctx context.Context, client *ec2.Client, c *cluster) error {
	out, err := client.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		awscloud.TagFilter(hcplinkv1beta1.ClusterTagKey(c.infraID), hcplinkv1beta1.ClusterTagValueOwned)}})
	if err != nil {
		return err
	}
	for _, sg := range out.SecurityGroups {
		if len(sg.IpPermissions) > 0 {
			_, err := client.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: sg.GroupId, IpPermissions: sg.IpPermissions[:1]})
			return err
		}
	}
	return nil
}

// patient retries the soak's own calls through the faults for as long as
// it takes: they are the customer's, not what the soak measures.
func patient(cfg aws.Config) aws.Config {
	cfg = cfg.Copy()
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 20
			o.RateLimiter = ratelimit.None
		})
	}
	return cfg
}

// raiseQuotas lifts the per-region quotas that many clusters in one
// customer VPC would hit, as a Service Quotas increase would.
func raiseQuotas(env *devenv.Env, clusters int) {
	room := 2*clusters + 10
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, account := range accounts {
			for _, r := range account.Regions {
				r.ELB.Quotas.NetworkLoadBalancers = max(r.ELB.Quotas.NetworkLoadBalancers, room)
				r.PrivateLink.Quotas.InterfaceEndpointsPerVPC = max(r.PrivateLink.Quotas.InterfaceEndpointsPerVPC, room)
				r.EC2.Quotas.SecurityGroupsPerVPC = max(r.EC2.Quotas.SecurityGroupsPerVPC, room+2500)
			}
		}
	})
}
