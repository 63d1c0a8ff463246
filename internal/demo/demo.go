package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/devenv"
)

const (
	clusterNamespace = "clusters"
	clusterName      = "demo"
	infraID          = "demo-4k7q2"
)

// startAWSTour prints the AWS tour's topology on a running AWS devenv.
func startAWSTour(env *devenv.Env, out io.Writer, stepTimeout time.Duration) *tour {
	t := &tour{env: env, out: out, track: newTracker(out, stepTimeout)}
	t.printTopology()
	return t
}

type tour struct {
	env   *devenv.Env
	out   io.Writer
	track *tracker
	hc    *hcplinkv1beta1.HostedCluster
	hcpNS string
}

// printTopology says who owns what before anything is made.
func (t *tour) printTopology() {
	fmt.Fprintf(t.out, `
Two AWS accounts take part:
  %s (the provider's): the management cluster's VPC %s, the routers' NLBs and the VPC endpoint services
  %s (the customer's): the workers' VPC %s, the VPC endpoint, its security group and the private zone
The control-plane operator works in the customer account through a role the customer made; the
endpoint service allows only that role (and any additionalAllowedPrincipals) to connect.
`, accountLabel(devenv.ManagementAccount), t.env.Management.VPCID, accountLabel(devenv.CustomerAccount), t.env.Customer.VPCID)
}

func (t *tour) run(ctx context.Context, keep bool) error {
	zones := t.env.Customer.Zones
	t.track.section(fmt.Sprintf("1. Create a Private cluster %s/%s with NodePools in %s and %s", clusterNamespace, clusterName, zones[0], zones[1]))
	if err := t.createCluster(ctx, zones[:2]); err != nil {
		return err
	}
	if err := t.track.wait(ctx, t.dataFlow()...); err != nil {
		return err
	}
	if keep {
		return t.keep(ctx)
	}

	t.track.section("2. Switch to PublicAndPrivate, then back to Private")
	if err := t.setAccess(ctx, hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate); err != nil {
		return err
	}
	var publicNLB string
	if err := t.track.wait(ctx, step{"public router gets an internet-facing NLB", func(ctx context.Context) (string, error) {
		lb, err := t.loadBalancer(ctx, "router")
		if err != nil {
			return "", err
		}
		if lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternetFacing {
			return "", fmt.Errorf("scheme %s", lb.Scheme)
		}
		publicNLB = aws.ToString(lb.DNSName)
		return aws.ToString(lb.LoadBalancerName), nil
	}}); err != nil {
		return err
	}
	if err := t.setAccess(ctx, hcplinkv1beta1.AWSEndpointAccessPrivate); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"public router and its NLB removed", func(ctx context.Context) (string, error) {
		if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: "router"}, &corev1.Service{}); !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("router Service still exists")
		}
		return "", t.loadBalancerGone(ctx, publicNLB)
	}}); err != nil {
		return err
	}

	t.track.section(fmt.Sprintf("3. Add a NodePool in %s", zones[2]))
	if err := t.createNodePool(ctx, clusterName+"-3", zones[2]); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"VPC endpoint gains a subnet in the third zone", func(ctx context.Context) (string, error) {
		return t.endpointSubnets(ctx, 3)
	}}); err != nil {
		return err
	}

	t.track.section("4. Delete the cluster")
	if err := deleteCluster(ctx, t.env.Client, t.track, t.hc, t.hcpNS, "AWS"); err != nil {
		return err
	}
	return t.proveNothingLeft()
}

// dataFlow is the seed's data flow, one step per line.
func (t *tour) dataFlow() []step {
	return []step{
		{"control-plane namespace, HostedControlPlane, its operator", func(ctx context.Context) (string, error) {
			var hcp hcplinkv1beta1.HostedControlPlane
			if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: clusterName}, &hcp); err != nil {
				return "", err
			}
			for _, ns := range t.env.RunningControlPlaneOperators() {
				if ns == t.hcpNS {
					return t.hcpNS, nil
				}
			}
			return "", fmt.Errorf("control-plane operator not running yet")
		}},
		{"1 private-router Service gets an internal NLB", func(ctx context.Context) (string, error) {
			lb, err := t.loadBalancer(ctx, "private-router")
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s in the %s", aws.ToString(lb.LoadBalancerName), accountLabel(devenv.ManagementAccount)), nil
		}},
		{"2 observer records the NLB in an AWSEndpointService", func(ctx context.Context) (string, error) {
			eps, err := t.endpointService(ctx)
			if err != nil {
				return "", err
			}
			if eps.Spec.NetworkLoadBalancerName == "" {
				return "", fmt.Errorf("no NLB name yet")
			}
			return "awsendpointservice/private-router in " + t.hcpNS, nil
		}},
		{"3 operator collects the NodePools' subnets", func(ctx context.Context) (string, error) {
			eps, err := t.endpointService(ctx)
			if err != nil {
				return "", err
			}
			if len(eps.Spec.SubnetIDs) < 2 {
				return "", fmt.Errorf("subnetIDs %v", eps.Spec.SubnetIDs)
			}
			return strings.Join(eps.Spec.SubnetIDs, ",") + " (customer subnets)", nil
		}},
		{"4 operator creates the endpoint service, allows the CPO role", func(ctx context.Context) (string, error) {
			eps, err := t.endpointService(ctx)
			if err != nil {
				return "", err
			}
			if eps.Status.EndpointServiceName == "" {
				return "", fmt.Errorf("no endpoint service yet")
			}
			id, principals, err := t.allowedPrincipals(ctx, eps.Status.EndpointServiceName)
			if err != nil {
				return "", err
			}
			if len(principals) == 0 {
				return "", fmt.Errorf("endpoint service %s allows no principal yet", id)
			}
			return fmt.Sprintf("%s in the %s; allowed principal %s", id, accountLabel(devenv.ManagementAccount), strings.Join(principals, ", ")), nil
		}},
		{"5 control-plane operator creates the VPC endpoint", func(ctx context.Context) (string, error) {
			eps, ep, err := t.recordedEndpoint(ctx)
			if err != nil {
				return "", err
			}
			zoneIDs, err := t.endpointZoneIDs(ctx, ep)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s (%s) and security group %s in the %s, zone IDs %s",
				eps.Status.EndpointID, ep.State, eps.Status.SecurityGroupID, accountLabel(devenv.CustomerAccount), strings.Join(zoneIDs, ",")), nil
		}},
		{"6 control-plane operator writes the hypershift.local records", func(ctx context.Context) (string, error) {
			return t.recordsWritten(ctx)
		}},
		{"HostedCluster reports the private link available", func(ctx context.Context) (string, error) {
			var hc hcplinkv1beta1.HostedCluster
			if err := t.env.Client.Get(ctx, client.ObjectKeyFromObject(t.hc), &hc); err != nil {
				return "", err
			}
			for _, cond := range []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AWSEndpointAvailableCondition} {
				if c := meta.FindStatusCondition(hc.Status.Conditions, cond); c == nil || c.Status != metav1.ConditionTrue {
					return "", fmt.Errorf("%s not True yet", cond)
				}
			}
			return "", nil
		}},
	}
}

// recordsWritten reports the api and *.apps records once Route 53 holds
// both, pointing at the VPC endpoint's DNS name: read from the zone, not
// from the names the control-plane operator meant to write.
func (t *tour) recordsWritten(ctx context.Context) (string, error) {
	eps, ep, err := t.recordedEndpoint(ctx)
	if err != nil {
		return "", err
	}
	if len(ep.DnsEntries) == 0 {
		return "", fmt.Errorf("endpoint %s has no DNS name yet", eps.Status.EndpointID)
	}
	target := aws.ToString(ep.DnsEntries[0].DnsName)
	zoneID, err := t.privateZone(ctx)
	if err != nil {
		return "", err
	}
	sets, err := t.recordsInZone(ctx, zoneID)
	if err != nil {
		return "", err
	}
	zone := awscloud.PrivateZoneName(clusterName)
	got := recordsTo(sets, target)
	for _, want := range []string{"*.apps." + zone, "api." + zone} {
		if !slices.Contains(got, want) {
			return "", fmt.Errorf("zone %s has no record %s to %s yet", zoneID, want, target)
		}
	}
	return fmt.Sprintf("%s in zone %s (%s, %s) → %s", strings.Join(got, ", "), zoneID, zone, accountLabel(devenv.CustomerAccount), target), nil
}

func (t *tour) createCluster(ctx context.Context, zones []string) error {
	if err := t.env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	fixture, err := t.env.PrepareAWSCluster(ctx, clusterNamespace, clusterName, infraID)
	if err != nil {
		return fmt.Errorf("preparing the customer account: %w", err)
	}
	fmt.Fprintf(t.out, "  + %s: role %s, private zone %s (%s)\n", accountLabel(devenv.CustomerAccount),
		fixture.ControlPlaneOperatorRoleARN, fixture.PrivateZoneID, awscloud.PrivateZoneName(clusterName))
	t.hcpNS = hcplinkv1beta1.HostedControlPlaneNamespace(clusterNamespace, clusterName)
	t.hc = &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: clusterNamespace, Name: clusterName},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: t.env.Customer.CIDR}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: t.env.Customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: fixture.ControlPlaneOperatorRoleARN},
				ResourceTags:        []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "platform"}},
			}},
		},
	}
	if err := t.env.Client.Create(ctx, t.hc); err != nil {
		return fmt.Errorf("creating the HostedCluster: %w", err)
	}
	for i, zone := range zones {
		if err := t.createNodePool(ctx, fmt.Sprintf("%s-%d", clusterName, i+1), zone); err != nil {
			return err
		}
	}
	return nil
}

func (t *tour) createNodePool(ctx context.Context, name, zone string) error {
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: clusterNamespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: clusterName,
			Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSNodePoolPlatform{
				Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: t.env.Customer.SubnetByAZ[zone]},
			}},
		},
	}
	if err := t.env.Client.Create(ctx, np); err != nil {
		return fmt.Errorf("creating NodePool %s: %w", name, err)
	}
	fmt.Fprintf(t.out, "  + NodePool %s in %s (%s)\n", name, zone, t.env.Customer.SubnetByAZ[zone])
	return nil
}

func (t *tour) setAccess(ctx context.Context, access hcplinkv1beta1.AWSEndpointAccessType) error {
	return changeCluster(ctx, t.env.Client, t.hc, t.out, "endpointAccess", string(access), func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.AWS.EndpointAccess = access
	})
}

func (t *tour) endpointService(ctx context.Context) (*hcplinkv1beta1.AWSEndpointService, error) {
	var eps hcplinkv1beta1.AWSEndpointService
	err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: "private-router"}, &eps)
	return &eps, err
}

// loadBalancer finds the active NLB behind a router Service.
func (t *tour) loadBalancer(ctx context.Context, service string) (*elbv2types.LoadBalancer, error) {
	var svc corev1.Service
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: service}, &svc); err != nil {
		return nil, err
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 {
		return nil, fmt.Errorf("no load-balancer address yet")
	}
	host := svc.Status.LoadBalancer.Ingress[0].Hostname
	out, err := elbv2.NewFromConfig(t.env.ManagementAWS).DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		return nil, err
	}
	for i, lb := range out.LoadBalancers {
		if aws.ToString(lb.DNSName) == host && lb.State != nil && lb.State.Code == elbv2types.LoadBalancerStateEnumActive {
			return &out.LoadBalancers[i], nil
		}
	}
	return nil, fmt.Errorf("NLB %s not active yet", host)
}

func (t *tour) loadBalancerGone(ctx context.Context, dnsName string) error {
	out, err := elbv2.NewFromConfig(t.env.ManagementAWS).DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		return err
	}
	for _, lb := range out.LoadBalancers {
		if aws.ToString(lb.DNSName) == dnsName {
			return fmt.Errorf("NLB %s still exists", aws.ToString(lb.LoadBalancerName))
		}
	}
	return nil
}

// endpointSubnets waits until the cluster's VPC endpoint spans n subnets.
func (t *tour) endpointSubnets(ctx context.Context, n int) (string, error) {
	eps, err := t.endpointService(ctx)
	if err != nil {
		return "", err
	}
	if eps.Status.EndpointID == "" {
		return "", fmt.Errorf("no endpoint")
	}
	out, err := ec2.NewFromConfig(t.env.CustomerAWS).DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{eps.Status.EndpointID}})
	if err != nil {
		return "", err
	}
	if len(out.VpcEndpoints) != 1 || len(out.VpcEndpoints[0].SubnetIds) != n {
		return "", fmt.Errorf("endpoint %s does not span %d subnets yet", eps.Status.EndpointID, n)
	}
	subnets := out.VpcEndpoints[0].SubnetIds
	sort.Strings(subnets)
	return strings.Join(subnets, ","), nil
}

// proveNothingLeft reads cloudsim's own model and lists anything still
// belonging to the cluster: resources tagged with its infra ID, NLBs of its
// Services, endpoint services and endpoints, and records in its zone beyond
// the zone's own SOA and NS.
func (t *tour) proveNothingLeft() error {
	clusterTag := hcplinkv1beta1.ClusterTagKey(infraID)
	zoneName := clusterName + ".hypershift.local."
	var left []string
	t.env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, account := range accounts {
			for _, region := range account.Regions {
				for id, tags := range region.Tags {
					if _, ok := tags[clusterTag]; ok {
						left = append(left, fmt.Sprintf("%s %s (tagged %s)", account.ID, id, clusterTag))
					}
					if strings.HasPrefix(tags["kubernetes.io/service-name"], t.hcpNS+"/") {
						left = append(left, fmt.Sprintf("%s NLB %s", account.ID, id))
					}
				}
				for id := range region.PrivateLink.Services {
					left = append(left, fmt.Sprintf("%s endpoint service %s", account.ID, id))
				}
				for id, ep := range region.PrivateLink.Endpoints {
					if ep.Type == "Interface" {
						left = append(left, fmt.Sprintf("%s VPC endpoint %s (%s)", account.ID, id, ep.State))
					}
				}
			}
			for _, zone := range account.Route53.HostedZones {
				if zone.Name != zoneName {
					continue
				}
				for _, rs := range zone.Records {
					if rs.Type != "SOA" && rs.Type != "NS" {
						left = append(left, fmt.Sprintf("%s record %s %s", account.ID, rs.Name, rs.Type))
					}
				}
			}
		}
	})
	if len(left) > 0 {
		fmt.Fprintf(t.out, "\n✗ the cloud still holds %d things of the cluster:\n  %s\n", len(left), strings.Join(left, "\n  "))
		return fmt.Errorf("%d cloud resources of the cluster were left behind", len(left))
	}
	fmt.Fprintf(t.out, "\n✓ cloudsim holds nothing for %s: no resource tagged %s, no NLB, endpoint service, VPC endpoint or record in %s\n", infraID, clusterTag, zoneName)
	return nil
}

// keep prints the lines to explore the running AWS cluster; Run waits.
func (t *tour) keep(context.Context) error {
	fmt.Fprintf(t.out, `
The AWS cluster is available. Paste these lines into another shell to explore it:

export KUBECONFIG=%s
export AWS_ENDPOINT_URL=%s AWS_DEFAULT_REGION=%s
# the management account (the provider's: NLBs, endpoint services)
export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=devenv
# the customer account (the workers' VPC: endpoints, security groups, private zone)
# export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=devenv

kubectl get hostedclusters,nodepools -A
kubectl get awsendpointservices,services -n %s
aws --endpoint-url "$AWS_ENDPOINT_URL" ec2 describe-vpc-endpoint-service-configurations
`, t.env.KubeconfigPath, t.env.CloudURL, devenv.Region, devenv.ManagementAccount, devenv.CustomerAccount, t.hcpNS)
	return nil
}
