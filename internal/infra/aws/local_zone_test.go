package aws

import (
	"context"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestEnsureLocalZoneOnAVPCMadeElsewhere: the exported zone step makes on
// any VPC the zone Create makes (tagged, on the VPC, 60 s negative TTL),
// finds it again without a change, and destroy removes it with the rest of
// the infra ID's resources.
func TestEnsureLocalZoneOnAVPCMadeElsewhere(t *testing.T) {
	f := startInfra(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	vpc, err := f.deps.Clients.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String("10.9.0.0/16")})
	if err != nil {
		t.Fatalf("creating a VPC: %v", err)
	}
	vpcID := awssdk.ToString(vpc.Vpc.VpcId)
	opts := Options{InfraID: "shared-a", Name: "shared", BaseDomain: baseDomain, Region: cloudsimtest.Region}

	id, err := EnsureLocalZone(ctx, opts, f.deps, vpcID)
	if err != nil {
		t.Fatalf("EnsureLocalZone: %v", err)
	}
	assertPrivateZone(t, f.deps.Clients.Route53, id, vpcID)
	if left := f.leftovers(opts.InfraID); len(left) != 1 || left[0] != "zone "+id {
		t.Fatalf("the infra ID's resources are %v, want only zone %s", left, id)
	}
	before := f.mutatingCalls()
	again, err := EnsureLocalZone(ctx, opts, f.deps, vpcID)
	if err != nil || again != id {
		t.Fatalf("the second EnsureLocalZone answered %q, %v; want %s", again, err, id)
	}
	if n := f.mutatingCalls() - before; n != 0 {
		t.Errorf("the second EnsureLocalZone made %d mutating calls, want 0", n)
	}
	if _, err := EnsureLocalZone(ctx, Options{Name: "shared"}, f.deps, vpcID); err == nil {
		t.Errorf("EnsureLocalZone without an infra ID made an untagged zone")
	}

	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v", left)
	}
}
