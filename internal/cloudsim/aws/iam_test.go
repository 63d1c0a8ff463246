package aws_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

const iamAccount = cloudsimtest.ManagementAccount

// trustAccount is a trust policy letting an account's principals assume the role.
func trustAccount(account string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:root"},"Action":"sts:AssumeRole"}]}`
}

const ec2ReadPolicy = `{
  "Version": "2012-10-17",
  "Statement": [{"Effect": "Allow", "Action": ["ec2:DescribeVpcs", "ec2:DescribeSubnets"], "Resource": "*"}]
}`

type iamEnv struct {
	t   *testing.T
	ctx context.Context
	f   *cloudsimtest.Fixture
	iam *iam.Client
}

func newIAMEnv(t *testing.T) *iamEnv {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	return &iamEnv{t: t, ctx: context.Background(), f: f, iam: iam.NewFromConfig(f.Config(t, iamAccount))}
}

func (e *iamEnv) role(name, path, trust string) *types.Role {
	e.t.Helper()
	out, err := e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), Path: aws.String(path), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		e.t.Fatalf("CreateRole %s: %v", name, err)
	}
	return out.Role
}

func (e *iamEnv) policy(name string) string {
	e.t.Helper()
	out, err := e.iam.CreatePolicy(e.ctx, &iam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(ec2ReadPolicy)})
	if err != nil {
		e.t.Fatalf("CreatePolicy %s: %v", name, err)
	}
	return aws.ToString(out.Policy.Arn)
}

// decodedDocument undoes IAM's URL encoding of policy documents.
func decodedDocument(t *testing.T, encoded *string) string {
	t.Helper()
	doc, err := url.PathUnescape(aws.ToString(encoded))
	if err != nil {
		t.Fatalf("policy document %q is not URL-encoded: %v", aws.ToString(encoded), err)
	}
	return doc
}

func TestIAMRoleLifecycle(t *testing.T) {
	e := newIAMEnv(t)
	trust := trustAccount(cloudsimtest.CustomerAccount)
	out, err := e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{
		RoleName: aws.String("cpo-role"), Path: aws.String("/hypershift/"), AssumeRolePolicyDocument: aws.String(trust),
		Description: aws.String("control plane operator"), Tags: []types.Tag{{Key: aws.String("hcplink.io/infra"), Value: aws.String("i1")}},
	})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}
	r := out.Role
	if got, want := aws.ToString(r.Arn), "arn:aws:iam::"+iamAccount+":role/hypershift/cpo-role"; got != want {
		t.Errorf("ARN = %s, want %s", got, want)
	}
	if id := aws.ToString(r.RoleId); !strings.HasPrefix(id, "AROA") || len(id) != 21 {
		t.Errorf("RoleId = %s, want AROA + 17 characters", id)
	}
	if aws.ToString(r.AssumeRolePolicyDocument) == trust {
		t.Errorf("trust policy returned verbatim; IAM returns it URL-encoded")
	}
	if doc := decodedDocument(t, r.AssumeRolePolicyDocument); doc != trust {
		t.Errorf("decoded trust policy = %s, want %s", doc, trust)
	}
	if aws.ToInt32(r.MaxSessionDuration) != 3600 || r.CreateDate == nil {
		t.Errorf("MaxSessionDuration %d, CreateDate %v", aws.ToInt32(r.MaxSessionDuration), r.CreateDate)
	}

	_, err = e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("CPO-ROLE"), AssumeRolePolicyDocument: aws.String(trust)})
	requireAWSError(t, "role names differ only in case", err, "EntityAlreadyExists", http.StatusConflict)
	var exists *types.EntityAlreadyExistsException
	if !errors.As(err, &exists) {
		t.Errorf("%T is not *types.EntityAlreadyExistsException", err)
	}
	for _, bad := range []struct{ what, doc, msg string }{
		{"not JSON", `{"Version":`, "This policy contains invalid Json"},
		{"no principal", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole"}]}`, "Missing required field Principal"},
		{"a resource", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole","Resource":"*"}]}`, "Has prohibited field Resource"},
	} {
		_, err = e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("bad"), AssumeRolePolicyDocument: aws.String(bad.doc)})
		apiErr := requireAWSError(t, "trust policy with "+bad.what, err, "MalformedPolicyDocument", http.StatusBadRequest)
		if apiErr.ErrorMessage() != bad.msg {
			t.Errorf("trust policy with %s: message %q, want %q", bad.what, apiErr.ErrorMessage(), bad.msg)
		}
	}
	_, err = e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("bad path"), AssumeRolePolicyDocument: aws.String(trust)})
	requireAWSError(t, "role name with a space", err, "ValidationError", http.StatusBadRequest)
	_, err = e.iam.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("nopath"), Path: aws.String("hypershift"), AssumeRolePolicyDocument: aws.String(trust)})
	requireAWSError(t, "path without slashes", err, "ValidationError", http.StatusBadRequest)

	got, err := e.iam.GetRole(e.ctx, &iam.GetRoleInput{RoleName: aws.String("cpo-role")})
	if err != nil {
		t.Fatalf("GetRole: %v", err)
	}
	if aws.ToString(got.Role.Description) != "control plane operator" || len(got.Role.Tags) != 1 || aws.ToString(got.Role.Path) != "/hypershift/" {
		t.Errorf("GetRole = %+v", got.Role)
	}

	newTrust := trustAccount(iamAccount)
	if _, err := e.iam.UpdateAssumeRolePolicy(e.ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("cpo-role"), PolicyDocument: aws.String(newTrust)}); err != nil {
		t.Fatalf("UpdateAssumeRolePolicy: %v", err)
	}
	got, _ = e.iam.GetRole(e.ctx, &iam.GetRoleInput{RoleName: aws.String("cpo-role")})
	if doc := decodedDocument(t, got.Role.AssumeRolePolicyDocument); doc != newTrust {
		t.Errorf("trust policy after update = %s", doc)
	}

	if _, err := e.iam.TagRole(e.ctx, &iam.TagRoleInput{RoleName: aws.String("cpo-role"), Tags: []types.Tag{{Key: aws.String("b"), Value: aws.String("2")}, {Key: aws.String("a"), Value: aws.String("1")}}}); err != nil {
		t.Fatalf("TagRole: %v", err)
	}
	if _, err := e.iam.UntagRole(e.ctx, &iam.UntagRoleInput{RoleName: aws.String("cpo-role"), TagKeys: []string{"hcplink.io/infra"}}); err != nil {
		t.Fatalf("UntagRole: %v", err)
	}
	tags, err := e.iam.ListRoleTags(e.ctx, &iam.ListRoleTagsInput{RoleName: aws.String("cpo-role")})
	if err != nil || len(tags.Tags) != 2 || aws.ToString(tags.Tags[0].Key) != "a" || aws.ToString(tags.Tags[1].Value) != "2" || tags.IsTruncated {
		t.Errorf("ListRoleTags = %+v, %v", tags, err)
	}

	if _, err := e.iam.DeleteRole(e.ctx, &iam.DeleteRoleInput{RoleName: aws.String("cpo-role")}); err != nil {
		t.Fatalf("DeleteRole: %v", err)
	}
	_, err = e.iam.GetRole(e.ctx, &iam.GetRoleInput{RoleName: aws.String("cpo-role")})
	apiErr := requireAWSError(t, "GetRole after delete", err, "NoSuchEntity", http.StatusNotFound)
	var missing *types.NoSuchEntityException
	if !errors.As(err, &missing) || apiErr.ErrorMessage() != "The role with name cpo-role cannot be found." {
		t.Errorf("GetRole after delete: %T %q", err, apiErr.ErrorMessage())
	}
}

func TestIAMListRolesPaginatesAndFiltersByPath(t *testing.T) {
	e := newIAMEnv(t)
	for i := range 5 {
		path := "/hypershift/"
		if i%2 == 1 {
			path = "/other/"
		}
		e.role(fmt.Sprintf("role-%d", i), path, trustAccount(iamAccount))
	}
	var names []string
	pages := 0
	p := iam.NewListRolesPaginator(e.iam, &iam.ListRolesInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		if err != nil {
			t.Fatalf("ListRoles: %v", err)
		}
		pages++
		for _, r := range page.Roles {
			names = append(names, aws.ToString(r.RoleName))
			if len(r.Tags) != 0 {
				t.Errorf("ListRoles returned tags for %s; IAM leaves them out", aws.ToString(r.RoleName))
			}
		}
	}
	if want := []string{"role-0", "role-1", "role-2", "role-3", "role-4"}; pages != 3 || !slices.Equal(names, want) {
		t.Errorf("roles %v over %d pages, want %v over 3", names, pages, want)
	}
	filtered, err := e.iam.ListRoles(e.ctx, &iam.ListRolesInput{PathPrefix: aws.String("/hypershift/")})
	if err != nil || len(filtered.Roles) != 3 || filtered.IsTruncated {
		t.Errorf("roles under /hypershift/ = %+v, %v; want 3", filtered, err)
	}
}

func TestIAMDeleteRoleConflicts(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(e *iamEnv)
		message string
		undo    func(e *iamEnv)
	}{
		{"inline policy",
			func(e *iamEnv) {
				_, err := e.iam.PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("p"), PolicyDocument: aws.String(ec2ReadPolicy)})
				if err != nil {
					e.t.Fatalf("PutRolePolicy: %v", err)
				}
			},
			"Cannot delete entity, must delete policies first.",
			func(e *iamEnv) {
				if _, err := e.iam.DeleteRolePolicy(e.ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("p")}); err != nil {
					e.t.Fatalf("DeleteRolePolicy: %v", err)
				}
			}},
		{"managed policy",
			func(e *iamEnv) {
				arn := e.policy("managed")
				if _, err := e.iam.AttachRolePolicy(e.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String(arn)}); err != nil {
					e.t.Fatalf("AttachRolePolicy: %v", err)
				}
			},
			"Cannot delete entity, must detach all policies first.",
			func(e *iamEnv) {
				arn := "arn:aws:iam::" + iamAccount + ":policy/managed"
				if _, err := e.iam.DetachRolePolicy(e.ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String(arn)}); err != nil {
					e.t.Fatalf("DetachRolePolicy: %v", err)
				}
			}},
		{"instance profile",
			func(e *iamEnv) {
				if _, err := e.iam.CreateInstanceProfile(e.ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("ip")}); err != nil {
					e.t.Fatalf("CreateInstanceProfile: %v", err)
				}
				if _, err := e.iam.AddRoleToInstanceProfile(e.ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("ip"), RoleName: aws.String("r")}); err != nil {
					e.t.Fatalf("AddRoleToInstanceProfile: %v", err)
				}
			},
			"Cannot delete entity, must remove roles from instance profile first.",
			func(e *iamEnv) {
				if _, err := e.iam.RemoveRoleFromInstanceProfile(e.ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String("ip"), RoleName: aws.String("r")}); err != nil {
					e.t.Fatalf("RemoveRoleFromInstanceProfile: %v", err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newIAMEnv(t)
			e.role("r", "/", trustAccount(iamAccount))
			tc.setup(e)
			_, err := e.iam.DeleteRole(e.ctx, &iam.DeleteRoleInput{RoleName: aws.String("r")})
			apiErr := requireAWSError(t, "DeleteRole with "+tc.name, err, "DeleteConflict", http.StatusConflict)
			var conflict *types.DeleteConflictException
			if !errors.As(err, &conflict) || apiErr.ErrorMessage() != tc.message {
				t.Errorf("%T %q, want *types.DeleteConflictException %q", err, apiErr.ErrorMessage(), tc.message)
			}
			tc.undo(e)
			if _, err := e.iam.DeleteRole(e.ctx, &iam.DeleteRoleInput{RoleName: aws.String("r")}); err != nil {
				t.Errorf("DeleteRole after removing the %s: %v", tc.name, err)
			}
		})
	}
}

func TestIAMInlineRolePolicies(t *testing.T) {
	e := newIAMEnv(t)
	e.role("r", "/", trustAccount(iamAccount))
	for _, name := range []string{"b-policy", "a-policy"} {
		if _, err := e.iam.PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String(name), PolicyDocument: aws.String(ec2ReadPolicy)}); err != nil {
			t.Fatalf("PutRolePolicy %s: %v", name, err)
		}
	}
	got, err := e.iam.GetRolePolicy(e.ctx, &iam.GetRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("a-policy")})
	if err != nil {
		t.Fatalf("GetRolePolicy: %v", err)
	}
	if strings.Contains(aws.ToString(got.PolicyDocument), " ") || decodedDocument(t, got.PolicyDocument) != ec2ReadPolicy {
		t.Errorf("GetRolePolicy document = %q, want the stored document URL-encoded", aws.ToString(got.PolicyDocument))
	}
	list, err := e.iam.ListRolePolicies(e.ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("r")})
	if err != nil || !slices.Equal(list.PolicyNames, []string{"a-policy", "b-policy"}) {
		t.Errorf("ListRolePolicies = %+v, %v", list, err)
	}
	_, err = e.iam.PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("p"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`)})
	requireAWSError(t, "permissions policy with a principal", err, "MalformedPolicyDocument", http.StatusBadRequest)
	_, err = e.iam.PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ghost"), PolicyName: aws.String("p"), PolicyDocument: aws.String(ec2ReadPolicy)})
	requireAWSError(t, "policy on a missing role", err, "NoSuchEntity", http.StatusNotFound)
	if _, err := e.iam.DeleteRolePolicy(e.ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("a-policy")}); err != nil {
		t.Fatalf("DeleteRolePolicy: %v", err)
	}
	_, err = e.iam.GetRolePolicy(e.ctx, &iam.GetRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("a-policy")})
	apiErr := requireAWSError(t, "deleted inline policy", err, "NoSuchEntity", http.StatusNotFound)
	if apiErr.ErrorMessage() != "The role policy with name a-policy cannot be found." {
		t.Errorf("message = %q", apiErr.ErrorMessage())
	}
}

func TestIAMManagedPolicies(t *testing.T) {
	e := newIAMEnv(t)
	e.role("r", "/", trustAccount(iamAccount))
	arn := e.policy("ec2-read")
	if want := "arn:aws:iam::" + iamAccount + ":policy/ec2-read"; arn != want {
		t.Errorf("policy ARN = %s, want %s", arn, want)
	}
	_, err := e.iam.CreatePolicy(e.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("ec2-read"), PolicyDocument: aws.String(ec2ReadPolicy)})
	requireAWSError(t, "duplicate policy", err, "EntityAlreadyExists", http.StatusConflict)
	_, err = e.iam.CreatePolicy(e.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("no-resource"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*"}]}`)})
	requireAWSError(t, "policy without a resource", err, "MalformedPolicyDocument", http.StatusBadRequest)

	if _, err := e.iam.AttachRolePolicy(e.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String(arn)}); err != nil {
		t.Fatalf("AttachRolePolicy: %v", err)
	}
	_, err = e.iam.AttachRolePolicy(e.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String("arn:aws:iam::" + iamAccount + ":policy/ghost")})
	requireAWSError(t, "attach a missing policy", err, "NoSuchEntity", http.StatusNotFound)
	got, err := e.iam.GetPolicy(e.ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if err != nil || aws.ToInt32(got.Policy.AttachmentCount) != 1 || aws.ToString(got.Policy.DefaultVersionId) != "v1" || !strings.HasPrefix(aws.ToString(got.Policy.PolicyId), "ANPA") {
		t.Errorf("GetPolicy = %+v, %v", got, err)
	}
	version, err := e.iam.GetPolicyVersion(e.ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: aws.String("v1")})
	if err != nil || decodedDocument(t, version.PolicyVersion.Document) != ec2ReadPolicy || !version.PolicyVersion.IsDefaultVersion {
		t.Errorf("GetPolicyVersion = %+v, %v", version, err)
	}
	attached, err := e.iam.ListAttachedRolePolicies(e.ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("r")})
	if err != nil || len(attached.AttachedPolicies) != 1 || aws.ToString(attached.AttachedPolicies[0].PolicyArn) != arn {
		t.Errorf("ListAttachedRolePolicies = %+v, %v", attached, err)
	}
	for scope, want := range map[types.PolicyScopeType]int{types.PolicyScopeTypeLocal: 1, types.PolicyScopeTypeAll: 1, types.PolicyScopeTypeAws: 0} {
		list, err := e.iam.ListPolicies(e.ctx, &iam.ListPoliciesInput{Scope: scope})
		if err != nil || len(list.Policies) != want {
			t.Errorf("ListPolicies(%s) = %+v, %v; want %d", scope, list, err, want)
		}
	}

	_, err = e.iam.DeletePolicy(e.ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)})
	requireAWSError(t, "delete an attached policy", err, "DeleteConflict", http.StatusConflict)
	if _, err := e.iam.DetachRolePolicy(e.ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String(arn)}); err != nil {
		t.Fatalf("DetachRolePolicy: %v", err)
	}
	_, err = e.iam.DetachRolePolicy(e.ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String(arn)})
	requireAWSError(t, "detach twice", err, "NoSuchEntity", http.StatusNotFound)
	if _, err := e.iam.DeletePolicy(e.ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)}); err != nil {
		t.Fatalf("DeletePolicy: %v", err)
	}
	_, err = e.iam.GetPolicy(e.ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	requireAWSError(t, "deleted policy", err, "NoSuchEntity", http.StatusNotFound)
}

func TestIAMInstanceProfiles(t *testing.T) {
	e := newIAMEnv(t)
	e.role("worker-role", "/", trustAccount(iamAccount))
	e.role("second-role", "/", trustAccount(iamAccount))
	out, err := e.iam.CreateInstanceProfile(e.ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("worker"), Path: aws.String("/")})
	if err != nil {
		t.Fatalf("CreateInstanceProfile: %v", err)
	}
	if got := aws.ToString(out.InstanceProfile.Arn); got != "arn:aws:iam::"+iamAccount+":instance-profile/worker" || !strings.HasPrefix(aws.ToString(out.InstanceProfile.InstanceProfileId), "AIPA") {
		t.Errorf("instance profile = %+v", out.InstanceProfile)
	}
	_, err = e.iam.CreateInstanceProfile(e.ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("worker")})
	requireAWSError(t, "duplicate instance profile", err, "EntityAlreadyExists", http.StatusConflict)
	if _, err := e.iam.AddRoleToInstanceProfile(e.ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("worker"), RoleName: aws.String("worker-role")}); err != nil {
		t.Fatalf("AddRoleToInstanceProfile: %v", err)
	}
	_, err = e.iam.AddRoleToInstanceProfile(e.ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("worker"), RoleName: aws.String("second-role")})
	requireAWSError(t, "a second role", err, "LimitExceeded", http.StatusConflict)
	var limit *types.LimitExceededException
	if !errors.As(err, &limit) {
		t.Errorf("%T is not *types.LimitExceededException", err)
	}
	got, err := e.iam.GetInstanceProfile(e.ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("worker")})
	if err != nil || len(got.InstanceProfile.Roles) != 1 || aws.ToString(got.InstanceProfile.Roles[0].RoleName) != "worker-role" {
		t.Fatalf("GetInstanceProfile = %+v, %v", got, err)
	}
	forRole, err := e.iam.ListInstanceProfilesForRole(e.ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("worker-role")})
	if err != nil || len(forRole.InstanceProfiles) != 1 {
		t.Errorf("ListInstanceProfilesForRole = %+v, %v", forRole, err)
	}
	none, err := e.iam.ListInstanceProfilesForRole(e.ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("second-role")})
	if err != nil || len(none.InstanceProfiles) != 0 {
		t.Errorf("profiles of a role in none = %+v, %v", none, err)
	}
	_, err = e.iam.DeleteInstanceProfile(e.ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("worker")})
	requireAWSError(t, "delete a profile with a role", err, "DeleteConflict", http.StatusConflict)
	if _, err := e.iam.RemoveRoleFromInstanceProfile(e.ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String("worker"), RoleName: aws.String("worker-role")}); err != nil {
		t.Fatalf("RemoveRoleFromInstanceProfile: %v", err)
	}
	if _, err := e.iam.DeleteInstanceProfile(e.ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("worker")}); err != nil {
		t.Fatalf("DeleteInstanceProfile: %v", err)
	}
	all, err := e.iam.ListInstanceProfiles(e.ctx, &iam.ListInstanceProfilesInput{})
	if err != nil || len(all.InstanceProfiles) != 0 {
		t.Errorf("ListInstanceProfiles after delete = %+v, %v", all, err)
	}
	_, err = e.iam.GetInstanceProfile(e.ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("worker")})
	requireAWSError(t, "deleted instance profile", err, "NoSuchEntity", http.StatusNotFound)
}

func TestIAMOpenIDConnectProviders(t *testing.T) {
	e := newIAMEnv(t)
	issuer := "https://bucket.s3.us-east-1.amazonaws.com/infra-1"
	out, err := e.iam.CreateOpenIDConnectProvider(e.ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(issuer), ClientIDList: []string{"openshift", "sts.amazonaws.com"},
		ThumbprintList: []string{"A9D53002E97E00E043244F3D170D6F4C414104FD"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	arn := aws.ToString(out.OpenIDConnectProviderArn)
	if want := "arn:aws:iam::" + iamAccount + ":oidc-provider/bucket.s3.us-east-1.amazonaws.com/infra-1"; arn != want {
		t.Errorf("provider ARN = %s, want %s", arn, want)
	}
	_, err = e.iam.CreateOpenIDConnectProvider(e.ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String(issuer), ClientIDList: []string{"x"}})
	requireAWSError(t, "duplicate provider", err, "EntityAlreadyExists", http.StatusConflict)
	_, err = e.iam.CreateOpenIDConnectProvider(e.ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://x.example.com"), ThumbprintList: []string{"short"}})
	requireAWSError(t, "bad thumbprint", err, "ValidationError", http.StatusBadRequest)

	got, err := e.iam.GetOpenIDConnectProvider(e.ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("GetOpenIDConnectProvider: %v", err)
	}
	if aws.ToString(got.Url) != "bucket.s3.us-east-1.amazonaws.com/infra-1" || !slices.Equal(got.ClientIDList, []string{"openshift", "sts.amazonaws.com"}) || len(got.ThumbprintList) != 1 {
		t.Errorf("GetOpenIDConnectProvider = %+v (IAM answers the URL without https://)", got)
	}
	list, err := e.iam.ListOpenIDConnectProviders(e.ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil || len(list.OpenIDConnectProviderList) != 1 || aws.ToString(list.OpenIDConnectProviderList[0].Arn) != arn {
		t.Errorf("ListOpenIDConnectProviders = %+v, %v", list, err)
	}
	if _, err := e.iam.DeleteOpenIDConnectProvider(e.ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)}); err != nil {
		t.Fatalf("DeleteOpenIDConnectProvider: %v", err)
	}
	_, err = e.iam.GetOpenIDConnectProvider(e.ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
	requireAWSError(t, "deleted provider", err, "NoSuchEntity", http.StatusNotFound)
	if _, err := e.iam.DeleteOpenIDConnectProvider(e.ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)}); err != nil {
		t.Errorf("DeleteOpenIDConnectProvider of a deleted provider: %v (IAM documents it as idempotent)", err)
	}
	list, err = e.iam.ListOpenIDConnectProviders(e.ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil || len(list.OpenIDConnectProviderList) != 0 {
		t.Errorf("providers after delete = %+v, %v", list, err)
	}
}

func TestIAMIsPerAccount(t *testing.T) {
	e := newIAMEnv(t)
	e.role("mine", "/", trustAccount(iamAccount))
	other := iam.NewFromConfig(e.f.Config(t, cloudsimtest.CustomerAccount))
	_, err := other.GetRole(e.ctx, &iam.GetRoleInput{RoleName: aws.String("mine")})
	requireAWSError(t, "another account's role", err, "NoSuchEntity", http.StatusNotFound)
	if _, err := other.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("mine"), AssumeRolePolicyDocument: aws.String(trustAccount(iamAccount))}); err != nil {
		t.Errorf("the same role name in another account: %v", err)
	}
}
