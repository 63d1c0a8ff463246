package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// The scenarios in this file check the private path of an AWS cluster in
// the cloud itself: the endpoint service in the management account, the VPC
// endpoint, its security group and the hypershift.local records in the
// customer account, read back through the SDK and cloudsim's model.

// plRouterCR is the AWSEndpointService (and Service) of the private router.
const plRouterCR = "private-router"

// plCluster is one scenario's cluster and what the customer prepared for it.
type plCluster struct {
	namespace, name, infraID, hcpNS string
	hc                              *hcplinkv1beta1.HostedCluster
	zoneID                          string // the <name>.hypershift.local private zone
	roleARN                         string // the control-plane operator role the cluster names
	nodePools                       int
}

// plCreateCluster creates a Private AWS cluster with one NodePool per zone;
// mutate may change the HostedCluster before it is created.
func plCreateCluster(t *testing.T, prefix, name string, zones []string, mutate func(c *plCluster, hc *hcplinkv1beta1.HostedCluster)) *plCluster {
	t.Helper()
	ctx := context.Background()
	c := &plCluster{namespace: suite.CreateNamespace(t, prefix), name: name, infraID: name + "-" + strings.ToLower(e2eutil.RandomSuffix(5))}
	c.hcpNS = hcplinkv1beta1.HostedControlPlaneNamespace(c.namespace, name)
	fixture, err := env.PrepareAWSCluster(ctx, c.namespace, name, c.infraID)
	if err != nil {
		t.Fatalf("preparing the customer account: %v", err)
	}
	c.zoneID, c.roleARN = fixture.PrivateZoneID, fixture.ControlPlaneOperatorRoleARN
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type:  hcplinkv1beta1.RoutePublishing,
					Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + name + ".example.test"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.roleARN},
			}},
		},
	}
	if mutate != nil {
		mutate(c, hc)
	}
	c.roleARN = hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("creating HostedCluster: %v", err)
	}
	c.hc = hc
	for _, zone := range zones {
		c.addNodePool(t, env.Customer.SubnetByAZ[zone])
	}
	return c
}

// addNodePool creates the cluster's next NodePool on a subnet and returns its name.
func (c *plCluster) addNodePool(t *testing.T, subnet string) string {
	t.Helper()
	c.nodePools++
	name := fmt.Sprintf("%s-np%d", c.name, c.nodePools)
	createNodePool(t, c.namespace, name, c.name, subnet)
	return name
}

// patch changes the HostedCluster's spec with a merge patch.
func (c *plCluster) patch(t *testing.T, what string, change func(hc *hcplinkv1beta1.HostedCluster)) {
	t.Helper()
	ctx := context.Background()
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), hc); err != nil {
		t.Fatal(err)
	}
	base := client.MergeFrom(hc.DeepCopy())
	change(hc)
	if err := env.Client.Patch(ctx, hc, base); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	c.hc = hc
}

// plPathedRole creates, next to the fixture's role, a role with the same
// trust and permissions under an IAM path, so that the endpoint service's
// principal must be the role ARN without its path.
func plPathedRole(t *testing.T, c *plCluster, fixtureRoleARN string) string {
	t.Helper()
	ctx := context.Background()
	client := iam.NewFromConfig(env.CustomerAWS)
	fixtureName := fixtureRoleARN[strings.LastIndex(fixtureRoleARN, "/")+1:]
	role, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: &fixtureName})
	if err != nil {
		t.Fatalf("reading the fixture role: %v", err)
	}
	trust, err := url.QueryUnescape(aws.ToString(role.Role.AssumeRolePolicyDocument))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := client.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: &fixtureName, PolicyName: &fixtureName})
	if err != nil {
		t.Fatalf("reading the fixture role's policy: %v", err)
	}
	permissions, err := url.QueryUnescape(aws.ToString(policy.PolicyDocument))
	if err != nil {
		t.Fatal(err)
	}
	name := c.infraID + "-cpo"
	out, err := client.CreateRole(ctx, &iam.CreateRoleInput{RoleName: &name, Path: aws.String("/hcplink/e2e/"), AssumeRolePolicyDocument: &trust})
	if err != nil {
		t.Fatalf("creating the role with a path: %v", err)
	}
	if _, err := client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: &name, PolicyName: &name, PolicyDocument: &permissions}); err != nil {
		t.Fatalf("writing the policy of the role with a path: %v", err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteRolePolicy(context.Background(), &iam.DeleteRolePolicyInput{RoleName: &name, PolicyName: &name})
		_, _ = client.DeleteRole(context.Background(), &iam.DeleteRoleInput{RoleName: &name})
	})
	arn := aws.ToString(out.Role.Arn)
	if !strings.Contains(arn, ":role/hcplink/e2e/") {
		t.Fatalf("role ARN %s carries no path", arn)
	}
	return arn
}

// plPrincipal is a role ARN without its IAM path, as endpoint services allow it.
func plPrincipal(roleARN string) string {
	i := strings.Index(roleARN, ":role/")
	return roleARN[:i] + ":role/" + roleARN[strings.LastIndex(roleARN, "/")+1:]
}

// plWant is the private path the cloud must hold for a cluster.
type plWant struct {
	subnets    []string          // the VPC endpoint's subnets, exactly
	cidrs      []string          // the security group's ingress sources (tcp 443), exactly
	principals []string          // the endpoint service's allowed principals, exactly
	userTags   map[string]string // the cluster's resource tags
	sgForeign  map[string]string // tags someone else put on the security group
}

// plState is the private path as read from the cloud.
type plState struct {
	cr         hcplinkv1beta1.AWSEndpointService
	nlbARN     string
	service    ec2types.ServiceConfiguration
	principals []string
	endpoint   ec2types.VpcEndpoint
	sg         ec2types.SecurityGroup
	records    map[string]r53types.ResourceRecordSet // by normalised name, SOA and NS left out
}

// ids are the identities that must survive changes that do not replace anything.
func (s *plState) ids() string {
	return fmt.Sprintf("cr=%s service=%s/%s nlb=%s endpoint=%s sg=%s zone=%s",
		s.cr.UID, aws.ToString(s.service.ServiceId), aws.ToString(s.service.ServiceName), s.nlbARN,
		aws.ToString(s.endpoint.VpcEndpointId), aws.ToString(s.sg.GroupId), s.cr.Status.DNSZoneID)
}

func (s *plState) target() string {
	return strings.TrimSuffix(aws.ToString(s.endpoint.DnsEntries[0].DnsName), ".")
}

// plRecordName normalises a Route 53 name: lower case, no trailing dot, \052 → *.
func plRecordName(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSuffix(name, ".")), `\052`, "*")
}

func plSorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func plEC2Tags(tags []ec2types.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

// stableTags are the two tags that find a resource of ours again.
func (c *plCluster) stableTags() map[string]string {
	return map[string]string{hcplinkv1beta1.ClusterTagKey(c.infraID): "owned", hcplinkv1beta1.EndpointServiceTagKey: plRouterCR}
}

// managementClusterTag is the tag the operator puts on the endpoint
// services it owns: devenv's operator runs with the default ID, the
// kube-system namespace's UID.
func managementClusterTag(ctx context.Context) map[string]string {
	var ns corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "kube-system"}, &ns); err != nil {
		return map[string]string{hcplinkv1beta1.ManagementClusterTagKey: "unreadable: " + err.Error()}
	}
	return map[string]string{hcplinkv1beta1.ManagementClusterTagKey: string(ns.UID)}
}

func plMerge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

func (c *plCluster) sgName() string { return c.infraID + "-vpce-" + plRouterCR }

func (c *plCluster) recordNames() []string {
	return []string{"*.apps." + c.name + ".hypershift.local", "api." + c.name + ".hypershift.local"}
}

func (c *plCluster) endpointService(ctx context.Context) (*hcplinkv1beta1.AWSEndpointService, error) {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	err := env.Client.Get(ctx, types.NamespacedName{Namespace: c.hcpNS, Name: plRouterCR}, cr)
	return cr, err
}

// read reads the private path from the cloud, starting from the ids in the
// AWSEndpointService's status; an error when something is not there yet.
func (c *plCluster) read(ctx context.Context) (*plState, error) {
	s := &plState{}
	cr, err := c.endpointService(ctx)
	if err != nil {
		return nil, err
	}
	s.cr = *cr
	st := cr.Status
	if st.EndpointServiceName == "" || st.EndpointID == "" || st.SecurityGroupID == "" || st.DNSZoneID == "" {
		return nil, fmt.Errorf("AWSEndpointService status incomplete: service %q endpoint %q sg %q zone %q", st.EndpointServiceName, st.EndpointID, st.SecurityGroupID, st.DNSZoneID)
	}
	lb, err := loadBalancerFor(ctx, c.hcpNS, plRouterCR)
	if err != nil {
		return nil, err
	}
	s.nlbARN = aws.ToString(lb.LoadBalancerArn)

	mgmt := ec2.NewFromConfig(env.ManagementAWS)
	services, err := mgmt.DescribeVpcEndpointServiceConfigurations(ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{
		Filters: []ec2types.Filter{{Name: aws.String("service-name"), Values: []string{st.EndpointServiceName}}},
	})
	if err != nil {
		return nil, fmt.Errorf("describing endpoint service %s: %w", st.EndpointServiceName, err)
	}
	if len(services.ServiceConfigurations) != 1 {
		return nil, fmt.Errorf("the management account has %d endpoint services named %s, want 1", len(services.ServiceConfigurations), st.EndpointServiceName)
	}
	s.service = services.ServiceConfigurations[0]
	perms, err := mgmt.DescribeVpcEndpointServicePermissions(ctx, &ec2.DescribeVpcEndpointServicePermissionsInput{ServiceId: s.service.ServiceId})
	if err != nil {
		return nil, fmt.Errorf("describing the permissions of %s: %w", aws.ToString(s.service.ServiceId), err)
	}
	for _, p := range perms.AllowedPrincipals {
		s.principals = append(s.principals, aws.ToString(p.Principal))
	}
	sort.Strings(s.principals)

	customer := ec2.NewFromConfig(env.CustomerAWS)
	endpoints, err := customer.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{st.EndpointID}})
	if err != nil {
		return nil, fmt.Errorf("describing VPC endpoint %s: %w", st.EndpointID, err)
	}
	if len(endpoints.VpcEndpoints) != 1 {
		return nil, fmt.Errorf("describing VPC endpoint %s returned %d endpoints", st.EndpointID, len(endpoints.VpcEndpoints))
	}
	s.endpoint = endpoints.VpcEndpoints[0]
	if len(s.endpoint.DnsEntries) == 0 {
		return nil, fmt.Errorf("VPC endpoint %s has no DNS entries", st.EndpointID)
	}
	groups, err := customer.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{st.SecurityGroupID}})
	if err != nil {
		return nil, fmt.Errorf("describing security group %s: %w", st.SecurityGroupID, err)
	}
	if len(groups.SecurityGroups) != 1 {
		return nil, fmt.Errorf("describing security group %s returned %d groups", st.SecurityGroupID, len(groups.SecurityGroups))
	}
	s.sg = groups.SecurityGroups[0]

	records, err := route53.NewFromConfig(env.CustomerAWS).ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(c.zoneID)})
	if err != nil {
		return nil, fmt.Errorf("listing the records of zone %s: %w", c.zoneID, err)
	}
	s.records = map[string]r53types.ResourceRecordSet{}
	for _, rs := range records.ResourceRecordSets {
		if rs.Type == r53types.RRTypeSoa || rs.Type == r53types.RRTypeNs {
			continue
		}
		s.records[plRecordName(aws.ToString(rs.Name))] = rs
	}
	return s, nil
}

// check reads the private path and compares it with want, field by field;
// it returns the state when everything matches.
func (c *plCluster) check(ctx context.Context, want plWant) (*plState, error) {
	s, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// The endpoint service, in the management account, on the private router's NLB.
	svc := s.service
	if svc.ServiceState != ec2types.ServiceStateAvailable {
		bad("endpoint service state %s, want Available", svc.ServiceState)
	}
	if !slices.Equal(svc.NetworkLoadBalancerArns, []string{s.nlbARN}) {
		bad("endpoint service NLBs %v, want the private router's %s", svc.NetworkLoadBalancerArns, s.nlbARN)
	}
	if aws.ToBool(svc.AcceptanceRequired) {
		bad("endpoint service requires acceptance")
	}
	// Management side: also the management cluster that owns it.
	if got, w := plEC2Tags(svc.Tags), plMerge(want.userTags, c.stableTags(), managementClusterTag(ctx)); !maps.Equal(got, w) {
		bad("endpoint service tags %v, want %v", got, w)
	}
	if w := plSorted(want.principals); !slices.Equal(s.principals, w) {
		bad("endpoint service allowed principals %v, want %v", s.principals, w)
	}

	// The VPC endpoint, in the customer's VPC.
	ep := s.endpoint
	if ep.VpcEndpointType != ec2types.VpcEndpointTypeInterface || aws.ToString(ep.VpcId) != env.Customer.VPCID {
		bad("VPC endpoint is %s in %s, want Interface in %s", ep.VpcEndpointType, aws.ToString(ep.VpcId), env.Customer.VPCID)
	}
	if aws.ToString(ep.ServiceName) != aws.ToString(svc.ServiceName) {
		bad("VPC endpoint connects to %s, want %s", aws.ToString(ep.ServiceName), aws.ToString(svc.ServiceName))
	}
	if ep.State != "available" { // the endpoint states are lower case (ec2types.StateAvailable is "Available")
		bad("VPC endpoint state %s, want available", ep.State)
	}
	if got, w := plSorted(ep.SubnetIds), plSorted(want.subnets); !slices.Equal(got, w) {
		bad("VPC endpoint subnets %v, want %v", got, w)
	}
	var groups []string
	for _, g := range ep.Groups {
		groups = append(groups, aws.ToString(g.GroupId))
	}
	if !slices.Equal(groups, []string{aws.ToString(s.sg.GroupId)}) {
		bad("VPC endpoint security groups %v, want only %s", groups, aws.ToString(s.sg.GroupId))
	}
	if got, w := plEC2Tags(ep.Tags), plMerge(want.userTags, c.stableTags()); !maps.Equal(got, w) {
		bad("VPC endpoint tags %v, want %v", got, w)
	}

	// Its security group: tcp 443 from exactly the machine network.
	sg := s.sg
	if aws.ToString(sg.GroupName) != c.sgName() || aws.ToString(sg.VpcId) != env.Customer.VPCID {
		bad("security group %s in %s, want %s in %s", aws.ToString(sg.GroupName), aws.ToString(sg.VpcId), c.sgName(), env.Customer.VPCID)
	}
	var rules []string
	for _, p := range sg.IpPermissions {
		for _, r := range p.IpRanges {
			rules = append(rules, fmt.Sprintf("%s %d-%d %s", aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort), aws.ToInt32(p.ToPort), aws.ToString(r.CidrIp)))
		}
		for _, r := range p.Ipv6Ranges {
			rules = append(rules, "ipv6 "+aws.ToString(r.CidrIpv6))
		}
		for _, r := range p.UserIdGroupPairs {
			rules = append(rules, "group "+aws.ToString(r.GroupId))
		}
		for _, r := range p.PrefixListIds {
			rules = append(rules, "prefix-list "+aws.ToString(r.PrefixListId))
		}
	}
	sort.Strings(rules)
	var wantRules []string
	for _, cidr := range want.cidrs {
		wantRules = append(wantRules, "tcp 443-443 "+cidr)
	}
	sort.Strings(wantRules)
	if !slices.Equal(rules, wantRules) {
		bad("security group ingress %v, want %v", rules, wantRules)
	}
	if got, w := plEC2Tags(sg.Tags), plMerge(want.userTags, want.sgForeign, c.stableTags(), map[string]string{"Name": c.sgName()}); !maps.Equal(got, w) {
		bad("security group tags %v, want %v", got, w)
	}

	// The records: CNAMEs to the endpoint's first DNS name, TTL 300, nothing else.
	var names []string
	for name, rs := range s.records {
		names = append(names, name)
		var values []string
		for _, v := range rs.ResourceRecords {
			values = append(values, strings.TrimSuffix(aws.ToString(v.Value), "."))
		}
		if rs.Type != r53types.RRTypeCname || aws.ToInt64(rs.TTL) != 300 || !slices.Equal(values, []string{s.target()}) || rs.AliasTarget != nil {
			bad("record %s is %s TTL %d %v, want CNAME TTL 300 [%s]", name, rs.Type, aws.ToInt64(rs.TTL), values, s.target())
		}
	}
	sort.Strings(names)
	if !slices.Equal(names, c.recordNames()) {
		bad("zone %s.hypershift.local holds records %v, want %v", c.name, names, c.recordNames())
	}

	// The status says what the cloud holds.
	st := s.cr.Status
	if st.EndpointServiceName != aws.ToString(svc.ServiceName) || st.EndpointID != aws.ToString(ep.VpcEndpointId) ||
		st.SecurityGroupID != aws.ToString(sg.GroupId) || st.DNSZoneID != c.zoneID {
		bad("status says service %s endpoint %s sg %s zone %s; the cloud has %s %s %s %s", st.EndpointServiceName, st.EndpointID, st.SecurityGroupID, st.DNSZoneID,
			aws.ToString(svc.ServiceName), aws.ToString(ep.VpcEndpointId), aws.ToString(sg.GroupId), c.zoneID)
	}
	var dnsNames []string
	for _, n := range st.DNSNames {
		dnsNames = append(dnsNames, plRecordName(n))
	}
	if sort.Strings(dnsNames); !slices.Equal(dnsNames, c.recordNames()) {
		bad("status.dnsNames %v, want %v", st.DNSNames, c.recordNames())
	}

	// Exactly one of each, however they are looked up.
	if dup := c.duplicates(aws.ToString(svc.ServiceName)); len(dup) > 0 {
		bad("more than one of a kind: %s", strings.Join(dup, "; "))
	}

	// And the conditions agree.
	for _, cond := range []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AWSEndpointAvailableCondition} {
		if err := e2eutil.ConditionIs(s.cr.Status.Conditions, cond, metav1.ConditionTrue, ""); err != nil {
			bad("AWSEndpointService: %v", err)
		} else if got := meta.FindStatusCondition(s.cr.Status.Conditions, cond).ObservedGeneration; got != s.cr.Generation {
			bad("AWSEndpointService %s observed generation %d, the object is at %d", cond, got, s.cr.Generation)
		}
	}
	if err := plClusterConditionsTrue(ctx, c); err != nil {
		bad("%v", err)
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n  "))
	}
	return s, nil
}

// plClusterConditionsTrue checks the HostedCluster's private-link and
// Available conditions are True for its current generation.
func plClusterConditionsTrue(ctx context.Context, c *plCluster) error {
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), hc); err != nil {
		return err
	}
	for _, cond := range []string{hcplinkv1beta1.AWSEndpointAvailableCondition, hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AvailableCondition} {
		if err := e2eutil.ConditionIs(hc.Status.Conditions, cond, metav1.ConditionTrue, ""); err != nil {
			return fmt.Errorf("HostedCluster: %w", err)
		}
		if got := meta.FindStatusCondition(hc.Status.Conditions, cond).ObservedGeneration; got != hc.Generation {
			return fmt.Errorf("HostedCluster %s observed generation %d, the cluster is at %d", cond, got, hc.Generation)
		}
	}
	return nil
}

// duplicates lists, from cloudsim's model, any second endpoint service,
// VPC endpoint or security group of the cluster.
func (c *plCluster) duplicates(serviceName string) []string {
	clusterTag := hcplinkv1beta1.ClusterTagKey(c.infraID)
	var services, endpoints, groups []string
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, account := range accounts {
			for _, region := range account.Regions {
				for id, svc := range region.PrivateLink.Services {
					if _, tagged := region.Tags[id][clusterTag]; tagged || svc.Name == serviceName {
						services = append(services, account.ID+"/"+id)
					}
				}
				for id, ep := range region.PrivateLink.Endpoints {
					if _, tagged := region.Tags[id][clusterTag]; tagged || ep.ServiceName == serviceName {
						endpoints = append(endpoints, account.ID+"/"+id+"("+ep.State+")")
					}
				}
				for id, sg := range region.EC2.SecurityGroups {
					if _, tagged := region.Tags[id][clusterTag]; tagged || sg.Name == c.sgName() {
						groups = append(groups, account.ID+"/"+id)
					}
				}
			}
		}
	})
	var out []string
	for kind, ids := range map[string][]string{"endpoint services": services, "VPC endpoints": endpoints, "security groups": groups} {
		if len(ids) != 1 {
			sort.Strings(ids)
			out = append(out, fmt.Sprintf("%d %s %v", len(ids), kind, ids))
		}
	}
	sort.Strings(out)
	return out
}

// converge waits until the cloud holds want and returns what it holds.
func (c *plCluster) converge(t *testing.T, what string, want plWant) *plState {
	t.Helper()
	var s *plState
	suite.Eventually(t, e2eutil.LongWait, what, func(ctx context.Context) error {
		var err error
		s, err = c.check(ctx, want)
		return err
	})
	t.Logf("%s: endpoint %s in %v; sg %s ingress from %v; principals %v; user tags %v",
		what, aws.ToString(s.endpoint.VpcEndpointId), plSorted(s.endpoint.SubnetIds), aws.ToString(s.sg.GroupId), want.cidrs, s.principals, want.userTags)
	return s
}

// plSameIDs fails when the private path was replaced.
func plSameIDs(t *testing.T, what string, before, after *plState) {
	t.Helper()
	if before.ids() != after.ids() {
		t.Fatalf("%s replaced part of the private path:\n  before %s\n  after  %s", what, before.ids(), after.ids())
	}
	if before.target() != after.target() {
		t.Fatalf("%s changed the endpoint's DNS name: %s → %s", what, before.target(), after.target())
	}
}

// deleteAndProveNothingLeft deletes the cluster and checks, in cloudsim's
// model, that nothing of its private path is left: no endpoint service, VPC
// endpoint, security group or record (the zone keeps its SOA and NS), no
// resource tagged for the cluster and no NLB of its Services.
func (c *plCluster) deleteAndProveNothingLeft(t *testing.T, last *plState) {
	t.Helper()
	ctx := context.Background()
	// A test may have started the deletion itself.
	if err := env.Client.Delete(ctx, c.hc); client.IgnoreNotFound(err) != nil {
		t.Fatalf("deleting the HostedCluster: %v", err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the HostedCluster and its control-plane namespace to go", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hcplinkv1beta1.HostedCluster{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("HostedCluster still exists (err=%v)", err)
		}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: c.hcpNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still exists (err=%v)", c.hcpNS, err)
		}
		return nil
	})
	// The private path goes before the HostedCluster's finalizer is released.
	if left := c.leftovers(last, false); len(left) > 0 {
		suite.DumpState(t)
		t.Fatalf("the HostedCluster is gone but the cloud still holds its private path:\n  %s", strings.Join(left, "\n  "))
	}
	// The NLBs go with the Services, which go with the namespace.
	suite.Eventually(t, e2eutil.LongWait, "nothing of the cluster in the cloud", func(context.Context) error {
		if left := c.leftovers(last, true); len(left) > 0 {
			return fmt.Errorf("the cloud still holds:\n  %s", strings.Join(left, "\n  "))
		}
		return nil
	})
}

// leftovers lists what the cloud still holds of the cluster (the NLBs too
// when withNLBs).
func (c *plCluster) leftovers(last *plState, withNLBs bool) []string {
	clusterTag := hcplinkv1beta1.ClusterTagKey(c.infraID)
	serviceID, serviceName := aws.ToString(last.service.ServiceId), aws.ToString(last.service.ServiceName)
	zoneName := c.name + ".hypershift.local."
	var left []string
	zoneFound := false
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, account := range accounts {
			for _, region := range account.Regions {
				for id, tags := range region.Tags {
					if _, ok := tags[clusterTag]; ok {
						left = append(left, fmt.Sprintf("%s: %s tagged %s", account.ID, id, clusterTag))
					}
				}
				for id, svc := range region.PrivateLink.Services {
					if id == serviceID || svc.Name == serviceName || slices.Contains(svc.LoadBalancerARNs, last.nlbARN) {
						left = append(left, fmt.Sprintf("%s: endpoint service %s (%s)", account.ID, id, svc.State))
					}
				}
				for id, ep := range region.PrivateLink.Endpoints {
					if id == aws.ToString(last.endpoint.VpcEndpointId) || ep.ServiceName == serviceName || ep.ServiceID == serviceID {
						left = append(left, fmt.Sprintf("%s: VPC endpoint %s (%s)", account.ID, id, ep.State))
					}
				}
				for id, sg := range region.EC2.SecurityGroups {
					if id == aws.ToString(last.sg.GroupId) || sg.Name == c.sgName() {
						left = append(left, fmt.Sprintf("%s: security group %s %s", account.ID, id, sg.Name))
					}
				}
				if !withNLBs {
					continue
				}
				for arn, lb := range region.ELB.LoadBalancers {
					if arn == last.nlbARN || strings.HasPrefix(region.Tags[arn]["kubernetes.io/service-name"], c.hcpNS+"/") {
						left = append(left, fmt.Sprintf("%s: NLB %s (%s)", account.ID, lb.Name, lb.State))
					}
				}
			}
			for _, zone := range account.Route53.HostedZones {
				if zone.Name != zoneName {
					continue
				}
				zoneFound = true
				kinds := map[string]bool{}
				for _, rs := range zone.Records {
					kinds[rs.Type] = true
					if rs.Type != "SOA" && rs.Type != "NS" {
						left = append(left, fmt.Sprintf("%s: record %s %s %v", account.ID, rs.Name, rs.Type, rs.Values))
					}
				}
				if !kinds["SOA"] || !kinds["NS"] {
					left = append(left, fmt.Sprintf("zone %s lost its SOA or NS record", zoneName))
				}
			}
		}
	})
	if !zoneFound {
		left = append(left, "the customer's zone "+zoneName+" itself was deleted")
	}
	sort.Strings(left)
	return left
}

// TestPrivateLinkHappyPath: a Private cluster with NodePools in two zones
// gets exactly one endpoint service, VPC endpoint, security group and two
// records, as the cloud shows them; its deletion leaves nothing behind.
// The control-plane operator's role has an IAM path, which the endpoint
// service's principal must leave out.
func TestPrivateLinkHappyPath(t *testing.T) {
	// Parallel: it runs beside the other parallel scenarios once the
	// sequential ones are done; it counts no account-wide calls.
	t.Parallel()
	zones := env.Customer.Zones[:2]
	c := plCreateCluster(t, "pl-happy", "plhappy", zones, func(c *plCluster, hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = plPathedRole(t, c, c.roleARN)
	})
	want := plWant{
		subnets:    []string{env.Customer.SubnetByAZ[zones[0]], env.Customer.SubnetByAZ[zones[1]]},
		cidrs:      []string{env.Customer.CIDR},
		principals: []string{plPrincipal(c.roleARN)},
	}
	if want.principals[0] == c.roleARN {
		t.Fatalf("the test's role %s has no path to strip", c.roleARN)
	}
	s := c.converge(t, "the private path of a two-zone Private cluster", want)
	t.Logf("private path: %s, endpoint %s in %v", s.ids(), s.target(), s.endpoint.SubnetIds)

	t.Run("deletion leaves nothing in the cloud", func(t *testing.T) {
		c.deleteAndProveNothingLeft(t, s)
	})
}

// TestPrivateLinkClusterChanges walks one Private cluster through the
// changes its owner makes — endpoint access, NodePools, allowed
// principals, machine network, resource tags — and checks after each that
// the cloud holds exactly the private path the cluster asks for, and that
// nothing was replaced that did not have to be.
func TestPrivateLinkClusterChanges(t *testing.T) {
	// Parallel: it runs beside the other parallel scenarios once the
	// sequential ones are done; it counts no account-wide calls.
	t.Parallel()
	ctx := context.Background()
	zones := env.Customer.Zones
	c := plCreateCluster(t, "pl-changes", "plchanges", zones[:2], nil)
	want := plWant{
		subnets:    []string{env.Customer.SubnetByAZ[zones[0]], env.Customer.SubnetByAZ[zones[1]]},
		cidrs:      []string{env.Customer.CIDR},
		principals: []string{plPrincipal(c.roleARN)},
	}
	first := c.converge(t, "the private path", want)
	last := first

	t.Run("PublicAndPrivate and back to Private keep the private path", func(t *testing.T) {
		c.patch(t, "switching to PublicAndPrivate", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
		})
		var publicNLB string
		suite.Eventually(t, e2eutil.LongWait, "the public router's internet-facing NLB", func(ctx context.Context) error {
			lb, err := loadBalancerFor(ctx, c.hcpNS, "router")
			if err != nil {
				return err
			}
			if lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternetFacing {
				return fmt.Errorf("router NLB scheme is %s, want internet-facing", lb.Scheme)
			}
			publicNLB = aws.ToString(lb.DNSName)
			return nil
		})
		s := c.converge(t, "the private path while PublicAndPrivate", want)
		plSameIDs(t, "switching to PublicAndPrivate", first, s)

		c.patch(t, "switching back to Private", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
		})
		suite.Eventually(t, e2eutil.LongWait, "the public router and its NLB to go", func(ctx context.Context) error {
			if err := env.Client.Get(ctx, types.NamespacedName{Namespace: c.hcpNS, Name: "router"}, &corev1.Service{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("router Service still exists (err=%v)", err)
			}
			return loadBalancerGone(ctx, publicNLB)
		})
		s = c.converge(t, "the private path after switching back to Private", want)
		plSameIDs(t, "switching back to Private", first, s)
		last = s
	})

	t.Run("a NodePool in a third zone widens the endpoint, and its removal narrows it", func(t *testing.T) {
		np := c.addNodePool(t, env.Customer.SubnetByAZ[zones[2]])
		three := want
		three.subnets = append(slices.Clone(want.subnets), env.Customer.SubnetByAZ[zones[2]])
		s := c.converge(t, "the endpoint in three subnets", three)
		plSameIDs(t, "adding a NodePool", first, s)

		if err := env.Client.Delete(ctx, &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: np}}); err != nil {
			t.Fatalf("deleting NodePool %s: %v", np, err)
		}
		s = c.converge(t, "the endpoint back in two subnets", want)
		plSameIDs(t, "removing a NodePool", first, s)
		last = s
	})

	t.Run("additionalAllowedPrincipals reach the endpoint service and leave it", func(t *testing.T) {
		const extra = "arn:aws:iam::333333333333:root"
		c.patch(t, "adding an allowed principal", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{extra}
		})
		more := want
		more.principals = append(slices.Clone(want.principals), extra)
		c.converge(t, "the extra principal on the endpoint service", more)

		c.patch(t, "removing the allowed principal", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil
		})
		s := c.converge(t, "only the control-plane operator's role on the endpoint service", want)
		plSameIDs(t, "changing the allowed principals", first, s)
		last = s
	})

	t.Run("a new machine network replaces the security group's rules", func(t *testing.T) {
		c.patch(t, "splitting the machine network", func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Networking.MachineNetwork = []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/17"}, {CIDR: "10.1.128.0/17"}}
		})
		want.cidrs = []string{"10.1.0.0/17", "10.1.128.0/17"}
		s := c.converge(t, "ingress from exactly the two new CIDRs", want)
		plSameIDs(t, "changing the machine network", first, s)
		last = s
	})

	t.Run("resource tag changes reach the service, the endpoint and the security group", func(t *testing.T) {
		// A tag the customer put on the group by hand is theirs.
		want.sgForeign = map[string]string{"customer/cost-center": "cc-42"}
		if _, err := ec2.NewFromConfig(env.CustomerAWS).CreateTags(ctx, &ec2.CreateTagsInput{
			Resources: []string{aws.ToString(first.sg.GroupId)},
			Tags:      []ec2types.Tag{{Key: aws.String("customer/cost-center"), Value: aws.String("cc-42")}},
		}); err != nil {
			t.Fatalf("tagging the security group as the customer: %v", err)
		}
		steps := []struct {
			what string
			tags []hcplinkv1beta1.AWSResourceTag
		}{
			{"team=platform", []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "platform"}}},
			{"team=infra env=e2e", []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "infra"}, {Key: "env", Value: "e2e"}}},
			{"env removed", []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "infra"}}},
		}
		for _, step := range steps {
			c.patch(t, "setting resource tags "+step.what, func(hc *hcplinkv1beta1.HostedCluster) {
				hc.Spec.Platform.AWS.ResourceTags = step.tags
			})
			want.userTags = map[string]string{}
			for _, tag := range step.tags {
				want.userTags[tag.Key] = tag.Value
			}
			s := c.converge(t, "resource tags "+step.what+" everywhere", want)
			plSameIDs(t, "changing resource tags", first, s)
			last = s
		}
	})

	t.Run("deletion after all that leaves nothing in the cloud", func(t *testing.T) {
		c.deleteAndProveNothingLeft(t, last)
	})
}

// TestPrivateLinkTwoNodePoolsInOneZone: NodePools on other subnets of a
// zone the endpoint already serves (one whose ID sorts after the seed
// subnet's, then one that sorts before) must not make the endpoint ask for
// two subnets in one zone (DuplicateSubnetsInSameZone): the endpoint keeps
// one subnet per zone, the lexicographically smallest, and stays available
// throughout. Not parallel: it counts the customer account's failed
// endpoint calls, which other clusters' controllers could add to.
func TestPrivateLinkTwoNodePoolsInOneZone(t *testing.T) {
	zones := env.Customer.Zones[:2]
	c := plCreateCluster(t, "pl-onezone", "plonezone", zones, nil)
	seed := env.Customer.SubnetByAZ[zones[0]]
	want := plWant{
		subnets:    []string{seed, env.Customer.SubnetByAZ[zones[1]]},
		cidrs:      []string{env.Customer.CIDR},
		principals: []string{plPrincipal(c.roleARN)},
	}
	first := c.converge(t, "the private path", want)

	// Both cases: a new subnet that sorts after the seed's (the endpoint
	// keeps its subnet) and one that sorts before (the endpoint moves to it
	// within the zone).
	after, before := plCreateSubnets(t, zones[0], seed)
	t.Logf("subnets in %s: %s (seed), %s (sorts after), %s (sorts before)", zones[0], seed, after, before)

	failedBefore := plFailedEndpointCalls()
	watch := plWatchConditions(c)
	last := first
	for _, step := range []struct{ what, subnet, endpointSubnet string }{
		{"a NodePool on a subnet that sorts after the seed's", after, seed},
		{"a NodePool on a subnet that sorts before the seed's", before, before},
	} {
		if step.subnet == "" {
			t.Logf("no subnet for %s: step left out", step.what)
			continue
		}
		c.addNodePool(t, step.subnet)
		suite.Eventually(t, e2eutil.LongWait, "the operator to list the new NodePool's subnet", func(ctx context.Context) error {
			cr, err := c.endpointService(ctx)
			if err != nil {
				return err
			}
			if !slices.Contains(cr.Spec.SubnetIDs, step.subnet) {
				return fmt.Errorf("spec.subnetIDs %v lacks %s", cr.Spec.SubnetIDs, step.subnet)
			}
			return nil
		})
		want.subnets = []string{step.endpointSubnet, env.Customer.SubnetByAZ[zones[1]]}
		last = c.converge(t, step.what+": one subnet per zone, the smallest", want)
		plSameIDs(t, step.what, first, last)
	}
	if bad := watch(); len(bad) > 0 {
		t.Errorf("the private path was reported unavailable while more subnets in %s came:\n  %s", zones[0], strings.Join(bad, "\n  "))
	}
	if failed := plFailedEndpointCalls() - failedBefore; failed != 0 {
		t.Errorf("%d VPC endpoint create/modify calls failed in the customer account (DuplicateSubnetsInSameZone?)", failed)
	}

	t.Run("deletion leaves nothing in the cloud", func(t *testing.T) {
		c.deleteAndProveNothingLeft(t, last)
	})
}

// plCreateSubnets creates customer subnets in zone, on free /24s of the
// customer VPC, until it has one whose ID sorts after ref and one that
// sorts before (IDs are random; "" when none came in a few tries). The
// others are deleted at once, these two when the test ends.
func plCreateSubnets(t *testing.T, zone, ref string) (after, before string) {
	t.Helper()
	ctx := context.Background()
	client := ec2.NewFromConfig(env.CustomerAWS)
	remove := func(id string) {
		if _, err := client.DeleteSubnet(context.Background(), &ec2.DeleteSubnetInput{SubnetId: &id}); err != nil {
			t.Logf("deleting subnet %s: %v", id, err)
		}
	}
	created := 0
	for third := 200; third < 256 && created < 16 && (after == "" || before == ""); third++ {
		out, err := client.CreateSubnet(ctx, &ec2.CreateSubnetInput{
			VpcId: aws.String(env.Customer.VPCID), AvailabilityZone: aws.String(zone), CidrBlock: aws.String(fmt.Sprintf("10.1.%d.0/24", third)),
			TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSubnet, Tags: []ec2types.Tag{
				{Key: aws.String("Name"), Value: aws.String(fmt.Sprintf("e2e-privatelink-%s-%d", zone, third))},
				{Key: aws.String("kubernetes.io/role/internal-elb"), Value: aws.String("1")},
			}}},
		})
		if err != nil && strings.Contains(err.Error(), "InvalidSubnet.Conflict") {
			continue // someone else's
		}
		if err != nil {
			t.Fatalf("creating a subnet in %s: %v", zone, err)
		}
		created++
		id := aws.ToString(out.Subnet.SubnetId)
		switch {
		case id > ref && after == "":
			after = id
		case id < ref && before == "":
			before = id
		default:
			remove(id)
			continue
		}
		t.Cleanup(func() { remove(id) })
	}
	return after, before
}

// plFailedEndpointCalls counts the customer account's failed VPC endpoint
// creates and modifies.
func plFailedEndpointCalls() int64 {
	calls := env.Cloud.Counters.Snapshot()[devenv.CustomerAccount]
	return calls["ec2:CreateVpcEndpoint"].Failed + calls["ec2:ModifyVpcEndpoint"].Failed
}

// plWatchConditions polls the AWSEndpointService's and the HostedCluster's
// AWSEndpointAvailable until the returned function is called, which
// returns every observation that was not True.
func plWatchConditions(c *plCluster) func() []string {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var bad []string
	done := make(chan struct{})
	note := func(source string, conds []metav1.Condition) {
		cond := meta.FindStatusCondition(conds, hcplinkv1beta1.AWSEndpointAvailableCondition)
		if cond == nil || cond.Status != metav1.ConditionTrue {
			mu.Lock()
			defer mu.Unlock()
			if cond == nil {
				bad = append(bad, source+": no condition")
			} else {
				bad = append(bad, fmt.Sprintf("%s: %s %s: %s", source, cond.Status, cond.Reason, cond.Message))
			}
		}
	}
	go func() {
		defer close(done)
		for {
			if cr, err := c.endpointService(ctx); err == nil {
				note("AWSEndpointService", cr.Status.Conditions)
			}
			hc := &hcplinkv1beta1.HostedCluster{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), hc); err == nil {
				note("HostedCluster", hc.Status.Conditions)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(e2eutil.PollEvery):
			}
		}
	}()
	return func() []string {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return slices.Compact(bad)
	}
}
