package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/devenv"
)

// The tour reads every fact it prints from the cloud itself (cloudsim,
// through the SDK with the owning account's credentials), so a line says
// what exists, in whose account, not what an object's status promised.

// accountLabel names whose account an ID is: the provider's management
// account or the customer's.
func accountLabel(account string) string {
	switch account {
	case devenv.ManagementAccount:
		return "management account " + account
	case devenv.CustomerAccount, devenv.SecondCustomerAccount:
		return "customer account " + account
	}
	return "account " + account
}

// recordsTo lists, sorted, the CNAME records among sets whose single value
// is target (the VPC endpoint's DNS name).
func recordsTo(sets []r53types.ResourceRecordSet, target string) []string {
	target = awscloud.RecordName(target)
	var out []string
	for _, rs := range sets {
		if rs.Type != r53types.RRTypeCname || len(rs.ResourceRecords) != 1 {
			continue
		}
		if awscloud.RecordName(aws.ToString(rs.ResourceRecords[0].Value)) == target {
			out = append(out, awscloud.RecordName(aws.ToString(rs.Name)))
		}
	}
	slices.Sort(out)
	return out
}

// zoneIDsOf maps the subnets to their availability-zone IDs (the same in
// every account, unlike zone names), sorted and unique.
func zoneIDsOf(subnets []ec2types.Subnet) []string {
	var out []string
	for _, s := range subnets {
		out = append(out, aws.ToString(s.AvailabilityZoneId))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// privateZone finds the cluster's private hosted zone in the customer
// account and returns its ID (without the /hostedzone/ prefix).
func (t *tour) privateZone(ctx context.Context) (string, error) {
	name := awscloud.PrivateZoneName(clusterName)
	out, err := route53.NewFromConfig(t.env.CustomerAWS).ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: aws.String(name)})
	if err != nil {
		return "", err
	}
	for _, z := range out.HostedZones {
		if awscloud.RecordName(aws.ToString(z.Name)) == name && z.Config != nil && z.Config.PrivateZone {
			return strings.TrimPrefix(aws.ToString(z.Id), "/hostedzone/"), nil
		}
	}
	return "", fmt.Errorf("no private zone %s", name)
}

// recordsInZone returns the records Route 53 holds in the zone now.
func (t *tour) recordsInZone(ctx context.Context, zoneID string) ([]r53types.ResourceRecordSet, error) {
	var sets []r53types.ResourceRecordSet
	p := route53.NewListResourceRecordSetsPaginator(route53.NewFromConfig(t.env.CustomerAWS), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		sets = append(sets, page.ResourceRecordSets...)
	}
	return sets, nil
}

// recordedEndpoint reads the private router's AWSEndpointService and the
// VPC endpoint its status records, from the customer account.
func (t *tour) recordedEndpoint(ctx context.Context) (*hcplinkv1beta1.AWSEndpointService, *ec2types.VpcEndpoint, error) {
	eps, err := t.endpointService(ctx)
	if err != nil {
		return nil, nil, err
	}
	id := eps.Status.EndpointID
	if id == "" {
		return nil, nil, fmt.Errorf("no endpoint yet")
	}
	out, err := ec2.NewFromConfig(t.env.CustomerAWS).DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}})
	if err != nil {
		return nil, nil, err
	}
	if len(out.VpcEndpoints) != 1 {
		return nil, nil, fmt.Errorf("VPC endpoint %s not found in the customer account", id)
	}
	return eps, &out.VpcEndpoints[0], nil
}

// endpointZoneIDs returns the availability-zone IDs of the endpoint's
// subnets, read from the customer account.
func (t *tour) endpointZoneIDs(ctx context.Context, ep *ec2types.VpcEndpoint) ([]string, error) {
	out, err := ec2.NewFromConfig(t.env.CustomerAWS).DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: ep.SubnetIds})
	if err != nil {
		return nil, err
	}
	return zoneIDsOf(out.Subnets), nil
}

// allowedPrincipals reads the endpoint service's allowed principals from the
// management account.
func (t *tour) allowedPrincipals(ctx context.Context, serviceName string) (serviceID string, principals []string, err error) {
	client := ec2.NewFromConfig(t.env.ManagementAWS)
	out, err := client.DescribeVpcEndpointServiceConfigurations(ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{
		Filters: []ec2types.Filter{{Name: aws.String("service-name"), Values: []string{serviceName}}},
	})
	if err != nil {
		return "", nil, err
	}
	if len(out.ServiceConfigurations) != 1 {
		return "", nil, fmt.Errorf("endpoint service %s not found in the management account", serviceName)
	}
	serviceID = aws.ToString(out.ServiceConfigurations[0].ServiceId)
	perms, err := client.DescribeVpcEndpointServicePermissions(ctx, &ec2.DescribeVpcEndpointServicePermissionsInput{ServiceId: aws.String(serviceID)})
	if err != nil {
		return "", nil, err
	}
	for _, p := range perms.AllowedPrincipals {
		principals = append(principals, aws.ToString(p.Principal))
	}
	slices.Sort(principals)
	return serviceID, principals, nil
}
