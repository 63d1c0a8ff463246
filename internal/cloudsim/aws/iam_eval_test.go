package aws_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudsimaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

const allowAll = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`

// allowEverything gives a role an allow-all inline policy, for tests about
// something other than identity policies.
func allowEverything(t testing.TB, client *iam.Client, role string) {
	t.Helper()
	if _, err := client.PutRolePolicy(context.Background(), &iam.PutRolePolicyInput{
		RoleName: aws.String(role), PolicyName: aws.String("allow-all"), PolicyDocument: aws.String(allowAll),
	}); err != nil {
		t.Fatalf("PutRolePolicy(%s): %v", role, err)
	}
}

// evalEnv is one account's admin and a user whose policies a test sets.
type evalEnv struct {
	t       *testing.T
	ctx     context.Context
	f       *cloudsimtest.Fixture
	admin   *iam.Client
	user    string
	userARN string
	keys    aws.Config
}

const evalAccount = "555555555555"

func newEvalEnv(t *testing.T) *evalEnv {
	e := &evalEnv{t: t, ctx: context.Background(), f: cloudsimtest.Start(t, cloudsim.Options{}), user: "operator"}
	e.admin = iam.NewFromConfig(e.f.Config(t, evalAccount))
	u, err := e.admin.CreateUser(e.ctx, &iam.CreateUserInput{UserName: aws.String(e.user)})
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	e.userARN = aws.ToString(u.User.Arn)
	k, err := e.admin.CreateAccessKey(e.ctx, &iam.CreateAccessKeyInput{UserName: aws.String(e.user)})
	if err != nil {
		t.Fatalf("CreateAccessKey: %v", err)
	}
	e.keys = e.f.ConfigWithKeys(t, aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey), "")
	return e
}

func (e *evalEnv) policy(doc string) {
	e.t.Helper()
	if _, err := e.admin.PutUserPolicy(e.ctx, &iam.PutUserPolicyInput{UserName: aws.String(e.user),
		PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}); err != nil {
		e.t.Fatalf("PutUserPolicy: %v", err)
	}
}

func requireDenied(t *testing.T, what string, err error, code, action string) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusForbidden {
		t.Fatalf("%s: want HTTP 403, got %v", what, err)
	}
	if !strings.Contains(apiErr.ErrorMessage(), "is not authorized to perform: "+action+" on resource: ") {
		t.Fatalf("%s: message %q does not name %s", what, apiErr.ErrorMessage(), action)
	}
}

func TestIdentityPoliciesDecideAUsersCalls(t *testing.T) {
	e := newEvalEnv(t)
	ec := ec2.NewFromConfig(e.keys)
	r53 := route53.NewFromConfig(e.keys)

	_, err := ec.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{})
	requireDenied(t, "no policy", err, "UnauthorizedOperation", "ec2:DescribeVpcs")

	e.policy(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"},
		{"Effect":"Deny","Action":"ec2:DescribeSubnets","Resource":"*"},
		{"Effect":"Allow","NotAction":["ec2:*","iam:*","sts:*"],"Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"us-east-1"}}}]}`)
	if _, err := ec.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{}); err != nil {
		t.Fatalf("DescribeVpcs under ec2:Describe*: %v", err)
	}
	_, err = ec.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{})
	requireDenied(t, "explicit deny", err, "UnauthorizedOperation", "ec2:DescribeSubnets")
	_, err = ec.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	requireDenied(t, "outside the wildcard", err, "UnauthorizedOperation", "ec2:CreateVpc")
	if _, err := r53.ListHostedZones(e.ctx, &route53.ListHostedZonesInput{}); err != nil {
		t.Fatalf("ListHostedZones under NotAction: %v", err)
	}
	_, err = iam.NewFromConfig(e.keys).ListRoles(e.ctx, &iam.ListRolesInput{})
	requireDenied(t, "NotAction excludes iam", err, "AccessDenied", "iam:ListRoles")

	// GetCallerIdentity needs no permission, as on AWS.
	id, err := sts.NewFromConfig(e.keys).GetCallerIdentity(e.ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Arn) != e.userARN {
		t.Fatalf("GetCallerIdentity = %v, %v; want %s", id, err, e.userARN)
	}

	got := e.f.Server.AWS.Evaluations(e.userARN)
	want := map[string]cloudsimaws.Decision{
		"ec2:DescribeVpcs":        {Allowed: 1, Denied: 1},
		"ec2:DescribeSubnets":     {Denied: 1},
		"ec2:CreateVpc":           {Denied: 1},
		"route53:ListHostedZones": {Allowed: 1},
		"iam:ListRoles":           {Denied: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("evaluations = %v, want %v", got, want)
	}
	for a, d := range want {
		if got[a] != d {
			t.Fatalf("evaluations[%s] = %+v, want %+v (all: %v)", a, got[a], d, got)
		}
	}
}

func TestHostedZoneResourceRestriction(t *testing.T) {
	e := newEvalEnv(t)
	admin := route53.NewFromConfig(e.f.Config(t, evalAccount))
	zone := func(name string) string {
		out, err := admin.CreateHostedZone(e.ctx, &route53.CreateHostedZoneInput{Name: aws.String(name), CallerReference: aws.String(name)})
		if err != nil {
			t.Fatalf("CreateHostedZone(%s): %v", name, err)
		}
		return strings.TrimPrefix(aws.ToString(out.HostedZone.Id), "/hostedzone/")
	}
	mine, other := zone("mine.example.com"), zone("other.example.com")
	e.policy(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["route53:ListResourceRecordSets","route53:GetHostedZone"],"Resource":"arn:aws:route53:::hostedzone/` + mine + `"}]}`)
	r53 := route53.NewFromConfig(e.keys)
	if _, err := r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(mine)}); err != nil {
		t.Fatalf("records of the granted zone: %v", err)
	}
	_, err := r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(other)})
	requireDenied(t, "records of another zone", err, "AccessDenied", "route53:ListResourceRecordSets")
	_, err = r53.ListHostedZonesByName(e.ctx, &route53.ListHostedZonesByNameInput{})
	requireDenied(t, "a zone ARN does not grant an action without resource-level permissions", err, "AccessDenied", "route53:ListHostedZonesByName")
}

func TestRoleSessionsUseAttachedManagedPolicies(t *testing.T) {
	e := newEvalEnv(t)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + evalAccount + `:root"},"Action":"sts:AssumeRole"}]}`
	role, err := e.admin.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("reader"), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}
	pol, err := e.admin.CreatePolicy(e.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("reader"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeVpcs","Resource":"*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/reader"}}}]}`)})
	if err != nil {
		t.Fatalf("CreatePolicy: %v", err)
	}
	if _, err := e.admin.AttachRolePolicy(e.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("reader"), PolicyArn: pol.Policy.Arn}); err != nil {
		t.Fatalf("AttachRolePolicy: %v", err)
	}
	out, err := sts.NewFromConfig(e.f.Config(t, evalAccount)).AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: role.Role.Arn, RoleSessionName: aws.String("reader-session")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	k := out.Credentials
	ec := ec2.NewFromConfig(e.f.ConfigWithKeys(t, aws.ToString(k.AccessKeyId), aws.ToString(k.SecretAccessKey), aws.ToString(k.SessionToken)))
	if _, err := ec.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{}); err != nil {
		t.Fatalf("DescribeVpcs under the attached policy: %v", err)
	}
	_, err = ec.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{})
	requireDenied(t, "not in the attached policy", err, "UnauthorizedOperation", "ec2:DescribeSubnets")
	// The account's root stays unrestricted.
	if _, err := ec2.NewFromConfig(e.f.Config(t, evalAccount)).DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("root DescribeSubnets: %v", err)
	}
}
