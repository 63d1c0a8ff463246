package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/diagnose"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// dkKASCR is the API server's own private endpoint (its Service and
// AWSEndpointService).
const dkKASCR = "kube-apiserver-private"

// dkHops: HostedCluster and HostedControlPlane, then the router's path
// (Service, NLB, endpoint service, endpoint, security group, zone, records,
// ExternalName Services) and the API server's (the same without the
// ExternalName Services, which only the router's endpoint writes).
const dkHops = 2 + 8 + 7

// TestDiagnoseKubeAPIServerPrivate: a Private cluster whose API server is
// published by LoadBalancer has two private paths. diagnose walks both, every
// hop ✓ and naming its endpoint; with both operators stopped, a break of the
// API server's path made behind hcplink's back (its api record pointed
// elsewhere, then its endpoint rejected) is exactly that hop ✗, on that
// endpoint, with the right sentence; no diagnose makes a mutating call. The
// operators then repair the rejected endpoint and the cluster is deleted.
func TestDiagnoseKubeAPIServerPrivate(t *testing.T) {
	ctx := context.Background()
	c := plCreateCluster(t, "diag-kas", "diagkas", env.Customer.Zones[:2], func(_ *plCluster, hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{{
			Service:                   hcplinkv1beta1.APIServer,
			ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.LoadBalancerPublishing},
		}}
	})
	suite.Eventually(t, e2eutil.LongWait, "both private paths served, as diagnose sees them", func(ctx context.Context) error {
		r, err := diagnose.Diagnose(ctx, dgOptions(ctx, c))
		if err != nil {
			return err
		}
		return dkAllPass(r)
	})
	suite.Eventually(t, e2eutil.LongWait, "the cluster's conditions", func(ctx context.Context) error { return plClusterConditionsTrue(ctx, c) })

	startOperators := suite.StopOperators(t, c.hcpNS)
	healthy := dgRun(t, c)
	if err := dkAllPass(healthy); err != nil {
		t.Fatal(err)
	}
	t.Logf("healthy:\n%s", diagnose.Text(healthy))

	kas := dkPath(t, c)
	r53 := route53.NewFromConfig(env.CustomerAWS)
	apiRecord := "api." + c.name + ".hypershift.local"
	dkSetRecord(t, r53, c.zoneID, apiRecord, "elsewhere.example.test")
	dkExpectOnlyBroken(t, "api record pointing elsewhere", diagnose.HopRecords, "Point "+apiRecord+" at "+kas.target, dgRun(t, c))
	dkSetRecord(t, r53, c.zoneID, apiRecord, kas.target)
	if err := dkAllPass(dgRun(t, c)); err != nil {
		t.Fatalf("after the record was put back: %v", err)
	}

	// Rejected last: a rejected endpoint cannot be accepted again; deleting
	// it, as diagnose says, lets the operators replace it.
	_, err := ec2.NewFromConfig(env.ManagementAWS).RejectVpcEndpointConnections(ctx, &ec2.RejectVpcEndpointConnectionsInput{
		ServiceId: aws.String(kas.serviceID), VpcEndpointIds: []string{kas.endpointID}})
	dgMust(t, "rejecting the API server's endpoint", err)
	dkExpectOnlyBroken(t, "API server's endpoint rejected", diagnose.HopEndpoint, "Delete VPC endpoint "+kas.endpointID, dgRun(t, c))
	_, err = ec2.NewFromConfig(env.CustomerAWS).DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{kas.endpointID}})
	dgMust(t, "deleting the rejected endpoint", err)
	startOperators()
	suite.Eventually(t, e2eutil.LongWait, "diagnose to find both repaired paths healthy", func(ctx context.Context) error {
		r, err := diagnose.Diagnose(ctx, dgOptions(ctx, c))
		if err != nil {
			return err
		}
		return dkAllPass(r)
	})

	rc := &rsCluster{ns: c.namespace, name: c.name, infraID: c.infraID, hcpNS: c.hcpNS, hc: c.hc}
	flDeleteCluster(t, rc)
	flExpectNothingLeft(t, devenv.CustomerAccount, rc)
}

// dkAllPass: every hop ✓, both endpoints walked, each hop after the shared
// two naming its endpoint.
func dkAllPass(r diagnose.Report) error {
	if err := e2eutil.AllPass(r, dkHops); err != nil {
		return err
	}
	if got := r.Endpoints(); !slices.Equal(got, []string{plRouterCR, dkKASCR}) {
		return fmt.Errorf("endpoints walked %v, want %s and %s", got, plRouterCR, dkKASCR)
	}
	perEndpoint := map[string]int{}
	for _, h := range r.Hops[2:] {
		perEndpoint[h.Endpoint]++
	}
	if perEndpoint[plRouterCR] != 8 || perEndpoint[dkKASCR] != 7 {
		return fmt.Errorf("hops per endpoint %v, want %s 8 and %s 7", perEndpoint, plRouterCR, dkKASCR)
	}
	return nil
}

func dkExpectOnlyBroken(t *testing.T, what, hop, fix string, r diagnose.Report) {
	t.Helper()
	f, err := e2eutil.OnlyBroken(r, hop, dkKASCR, fix)
	if err == nil && r.ExitCode() != diagnose.ExitBroken {
		err = fmt.Errorf("exit %d, want %d:\n%s", r.ExitCode(), diagnose.ExitBroken, diagnose.Text(r))
	}
	if err != nil {
		t.Fatalf("%s (%s): %v", what, dkKASCR, err)
	}
	t.Logf("%s: %s ✗ seen %q: %s", what, r.Where(*f), f.Seen, f.Fix)
}

// dkKAS is the API server's private path as the cloud holds it.
type dkKAS struct {
	serviceID, endpointID, target string
}

func dkPath(t *testing.T, c *plCluster) dkKAS {
	t.Helper()
	ctx := context.Background()
	cr := &hcplinkv1beta1.AWSEndpointService{}
	dgMust(t, "reading AWSEndpointService "+dkKASCR, env.Client.Get(ctx, types.NamespacedName{Namespace: c.hcpNS, Name: dkKASCR}, cr))
	services, err := ec2.NewFromConfig(env.ManagementAWS).DescribeVpcEndpointServiceConfigurations(ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{
		Filters: []ec2types.Filter{{Name: aws.String("service-name"), Values: []string{cr.Status.EndpointServiceName}}}})
	dgMust(t, "describing the API server's endpoint service", err)
	endpoints, err := ec2.NewFromConfig(env.CustomerAWS).DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{cr.Status.EndpointID}})
	dgMust(t, "describing the API server's endpoint", err)
	if len(services.ServiceConfigurations) != 1 || len(endpoints.VpcEndpoints) != 1 {
		dgMust(t, "reading the API server's path", errors.New("want one endpoint service and one endpoint"))
	}
	p := dkKAS{serviceID: aws.ToString(services.ServiceConfigurations[0].ServiceId), endpointID: cr.Status.EndpointID,
		target: strings.ToLower(awscloud.EndpointDNSName(&endpoints.VpcEndpoints[0]))}
	if p.target == "" {
		t.Fatalf("VPC endpoint %s has no DNS name", p.endpointID)
	}
	return p
}

func dkSetRecord(t *testing.T, r53 *route53.Client, zoneID, name, value string) {
	t.Helper()
	_, err := r53.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zoneID), ChangeBatch: &r53types.ChangeBatch{
		Changes: []r53types.Change{{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &r53types.ResourceRecordSet{
			Name: aws.String(name + "."), Type: r53types.RRTypeCname, TTL: aws.Int64(300), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(value)}}}}}}})
	dgMust(t, "changing record "+name, err)
}
