package aws

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// cliUser is an IAM user in the test account holding exactly a policy of
// the given actions (cloudsim evaluates identity policies for IAM users),
// and the clients that call as that user.
func (f *infraFixture) cliUser(t *testing.T, name string, actions []string) (arn string, clients Clients) {
	t.Helper()
	ctx := context.Background()
	admin := iam.NewFromConfig(f.cs.Config(t, account))
	user, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: awssdk.String(name)})
	if err != nil {
		t.Fatalf("creating user %s: %v", name, err)
	}
	doc, err := json.Marshal(map[string]any{"Version": "2012-10-17",
		"Statement": []map[string]any{{"Effect": "Allow", "Action": actions, "Resource": "*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: awssdk.String(name), PolicyName: awssdk.String(name),
		PolicyDocument: awssdk.String(string(doc))}); err != nil {
		t.Fatalf("putting the policy of %s: %v", name, err)
	}
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: awssdk.String(name)})
	if err != nil {
		t.Fatalf("creating an access key for %s: %v", name, err)
	}
	cfg := f.cs.ConfigWithKeys(t, awssdk.ToString(key.AccessKey.AccessKeyId), awssdk.ToString(key.AccessKey.SecretAccessKey), "")
	return awssdk.ToString(user.User.Arn), NewClients(cfg, cloudsimtest.Region)
}

// TestCreateAndDestroyUnderExactlyTheTablesPolicy runs the whole path of
// TestActionsTableIsExact as an IAM user holding exactly the table's
// actions: nothing is denied, and every action granted is evaluated.
func TestCreateAndDestroyUnderExactlyTheTablesPolicy(t *testing.T) {
	f := startInfra(t)
	opts := Options{InfraID: "infra-l", Name: "least", BaseDomain: baseDomain, Zones: []string{"us-east-1a"}}
	f.tagLocalZoneOnOtherVPC(t, opts)
	arn, clients := f.cliUser(t, "hcplink-cli", Actions())
	f.deps.Clients = clients

	f.mustCreate(t, opts)
	opts.Zones = append(opts.Zones, "us-east-1b")
	out := f.mustCreate(t, opts)
	f.leaveOperatorSecurityGroup(t, opts.InfraID, out.VPCID)
	f.leaveOperatorRecord(t, out.LocalZoneID, "api."+opts.Name+".hypershift.local")
	f.leaveGuestLoadBalancer(t, opts.InfraID, out.Zones[0].SubnetID)
	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v", left)
	}

	var evaluated, denied []string
	for action, d := range f.cs.Server.AWS.Evaluations(arn) {
		evaluated = append(evaluated, action)
		if d.Denied > 0 {
			denied = append(denied, action)
		}
	}
	slices.Sort(evaluated)
	if len(denied) > 0 {
		t.Errorf("the table's policy denied %v", denied)
	}
	compareActions(t, "create and destroy infra aws", evaluated, Actions())
}

// TestCreateWithoutOneActionIsRefusedNamingIt: cloudsim does enforce the
// policy, and the error says which call was refused.
func TestCreateWithoutOneActionIsRefusedNamingIt(t *testing.T) {
	f := startInfra(t)
	granted := slices.DeleteFunc(Actions(CreateInfra), func(a string) bool { return a == "ec2:CreateInternetGateway" })
	_, clients := f.cliUser(t, "hcplink-cli-short", granted)
	f.deps.Clients = clients
	_, err := f.create(t, Options{InfraID: "infra-d", BaseDomain: baseDomain})
	if !awscloud.IsAccessDenied(err) || !strings.Contains(err.Error(), "creating internet gateway infra-d-igw") || !strings.Contains(err.Error(), "lacks ec2:CreateInternetGateway") {
		t.Fatalf("create without ec2:CreateInternetGateway = %v, want access denied while creating the internet gateway", err)
	}
	t.Logf("the refusal reads: %v", err)
}
