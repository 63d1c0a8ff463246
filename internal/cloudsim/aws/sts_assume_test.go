package aws_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

const (
	roleAccount   = cloudsimtest.ManagementAccount
	callerAccount = cloudsimtest.CustomerAccount
)

type stsEnv struct {
	t   *testing.T
	ctx context.Context
	f   *cloudsimtest.Fixture
}

func newSTSEnv(t *testing.T) *stsEnv {
	return &stsEnv{t: t, ctx: context.Background(), f: cloudsimtest.Start(t, cloudsim.Options{})}
}

func (e *stsEnv) createRole(account, name, trust string) string {
	e.t.Helper()
	out, err := iam.NewFromConfig(e.f.Config(e.t, account)).CreateRole(e.ctx, &iam.CreateRoleInput{
		RoleName: aws.String(name), Path: aws.String("/hcp/"), AssumeRolePolicyDocument: aws.String(trust),
	})
	if err != nil {
		e.t.Fatalf("CreateRole %s: %v", name, err)
	}
	allowEverything(e.t, iam.NewFromConfig(e.f.Config(e.t, account)), name)
	return aws.ToString(out.Role.Arn)
}

// keys returns an STS client acting with issued credentials.
func (e *stsEnv) stsWith(c *ststypes.Credentials) *sts.Client {
	return sts.NewFromConfig(e.f.ConfigWithKeys(e.t, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)))
}

func TestAssumeRoleFollowsTheTrustPolicy(t *testing.T) {
	allow := func(principal string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":` + principal + `,"Action":"sts:AssumeRole"}]}`
	}
	cases := []struct {
		name       string
		trust      string
		externalID string
		allowed    bool
	}{
		{"caller's account root", allow(`{"AWS":"arn:aws:iam::` + callerAccount + `:root"}`), "", true},
		{"caller's account ID", allow(`{"AWS":["333333333333","` + callerAccount + `"]}`), "", true},
		{"anyone", allow(`"*"`), "", true},
		{"another account", allow(`{"AWS":"arn:aws:iam::333333333333:root"}`), "", false},
		{"a service only", allow(`{"Service":"ec2.amazonaws.com"}`), "", false},
		{"another action", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + callerAccount + `"},"Action":"sts:TagSession"}]}`, "", false},
		{"explicit deny", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"},
			{"Effect":"Deny","Principal":{"AWS":"` + callerAccount + `"},"Action":"sts:*"}]}`, "", false},
		{"external ID given", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + callerAccount + `"},"Action":"sts:AssumeRole",
			"Condition":{"StringEquals":{"sts:ExternalId":"s3cret"}}}]}`, "s3cret", true},
		{"external ID missing", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + callerAccount + `"},"Action":"sts:AssumeRole",
			"Condition":{"StringEquals":{"sts:ExternalId":"s3cret"}}}]}`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newSTSEnv(t)
			roleARN := e.createRole(roleAccount, "cross-account", tc.trust)
			in := &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("hcplink")}
			if tc.externalID != "" {
				in.ExternalId = aws.String(tc.externalID)
			}
			caller := sts.NewFromConfig(e.f.Config(t, callerAccount))
			before := time.Now()
			out, err := caller.AssumeRole(e.ctx, in)
			if !tc.allowed {
				apiErr := requireAWSError(t, "AssumeRole", err, "AccessDenied", http.StatusForbidden)
				want := "User: arn:aws:iam::" + callerAccount + ":root is not authorized to perform: sts:AssumeRole on resource: " + roleARN
				if apiErr.ErrorMessage() != want {
					t.Errorf("message = %q, want %q", apiErr.ErrorMessage(), want)
				}
				return
			}
			if err != nil {
				t.Fatalf("AssumeRole: %v", err)
			}
			wantARN := "arn:aws:sts::" + roleAccount + ":assumed-role/cross-account/hcplink"
			if aws.ToString(out.AssumedRoleUser.Arn) != wantARN || !strings.HasPrefix(aws.ToString(out.AssumedRoleUser.AssumedRoleId), "AROA") ||
				!strings.HasSuffix(aws.ToString(out.AssumedRoleUser.AssumedRoleId), ":hcplink") {
				t.Errorf("AssumedRoleUser = %+v", out.AssumedRoleUser)
			}
			if exp := aws.ToTime(out.Credentials.Expiration); exp.Before(before.Add(59*time.Minute)) || exp.After(time.Now().Add(61*time.Minute)) {
				t.Errorf("Expiration = %v, want about an hour from now", exp)
			}
			who, err := e.stsWith(out.Credentials).GetCallerIdentity(e.ctx, &sts.GetCallerIdentityInput{})
			if err != nil {
				t.Fatalf("GetCallerIdentity with the issued keys: %v", err)
			}
			if aws.ToString(who.Arn) != wantARN || aws.ToString(who.Account) != roleAccount || aws.ToString(who.UserId) != aws.ToString(out.AssumedRoleUser.AssumedRoleId) {
				t.Errorf("issued keys act as %s / %s / %s, want %s in %s", aws.ToString(who.Arn), aws.ToString(who.Account), aws.ToString(who.UserId), wantARN, roleAccount)
			}
		})
	}
}

func TestAssumeRoleChecksTheRoleAndDuration(t *testing.T) {
	e := newSTSEnv(t)
	caller := sts.NewFromConfig(e.f.Config(t, callerAccount))
	roleARN := e.createRole(roleAccount, "r", trustAccount(callerAccount))
	for _, arn := range []string{
		"arn:aws:iam::" + roleAccount + ":role/hcp/missing",
		"arn:aws:iam::" + roleAccount + ":role/r", // right name, wrong path
	} {
		_, err := caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("s1")})
		requireAWSError(t, "AssumeRole of "+arn, err, "AccessDenied", http.StatusForbidden)
	}
	_, err := caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("s1"), DurationSeconds: aws.Int32(7200)})
	apiErr := requireAWSError(t, "longer than MaxSessionDuration", err, "ValidationError", http.StatusBadRequest)
	if apiErr.ErrorMessage() != "The requested DurationSeconds exceeds the MaxSessionDuration set for this role." {
		t.Errorf("message = %q", apiErr.ErrorMessage())
	}
	_, err = caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("no spaces allowed")})
	requireAWSError(t, "bad session name", err, "ValidationError", http.StatusBadRequest)

	// A session of the first role may assume a second role that trusts the first by ARN.
	first, err := caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("first")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	secondARN := e.createRole(roleAccount, "second", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+roleARN+`"},"Action":"sts:AssumeRole"}]}`)
	chained := e.stsWith(first.Credentials)
	_, err = chained.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(secondARN), RoleSessionName: aws.String("second"), DurationSeconds: aws.Int32(7200)})
	requireAWSError(t, "role chaining beyond an hour", err, "ValidationError", http.StatusBadRequest)
	second, err := chained.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(secondARN), RoleSessionName: aws.String("second")})
	if err != nil {
		t.Fatalf("chained AssumeRole: %v", err)
	}
	if got := aws.ToString(second.AssumedRoleUser.Arn); got != "arn:aws:sts::"+roleAccount+":assumed-role/second/second" {
		t.Errorf("chained session = %s", got)
	}
	_, err = caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(secondARN), RoleSessionName: aws.String("direct")})
	requireAWSError(t, "account root on a role trusting only a role", err, "AccessDenied", http.StatusForbidden)
}

// unsignedJWT builds a token as an OIDC issuer would, without a signature:
// cloudsim reads the claims and does not verify signatures.
func unsignedJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT","kid":"k1"}`)) + "." + enc(payload) + "."
}

func TestAssumeRoleWithWebIdentity(t *testing.T) {
	const (
		issuer = "https://bucket.s3.us-east-1.amazonaws.com/infra-1"
		sa     = "system:serviceaccount:hcp-ns:control-plane-operator"
	)
	e := newSTSEnv(t)
	admin := iam.NewFromConfig(e.f.Config(t, roleAccount))
	provider, err := admin.CreateOpenIDConnectProvider(e.ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(issuer), ClientIDList: []string{"openshift", "sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	providerARN := aws.ToString(provider.OpenIDConnectProviderArn)
	roleARN := e.createRole(roleAccount, "infra-1-control-plane-operator", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"Federated":"`+providerARN+`"},"Action":"sts:AssumeRoleWithWebIdentity",
		"Condition":{"StringEquals":{"bucket.s3.us-east-1.amazonaws.com/infra-1:sub":"`+sa+`"}}}]}`)
	// No credentials at all: the token is the credential.
	anonymous := sts.NewFromConfig(aws.Config{Region: cloudsimtest.Region, BaseEndpoint: aws.String(e.f.URL), RetryMaxAttempts: 1})

	valid := map[string]any{"iss": issuer, "sub": sa, "aud": "openshift", "exp": time.Now().Add(time.Hour).Unix()}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for key, val := range valid {
			c[key] = val
		}
		c[k] = v
		return c
	}
	cases := []struct {
		name   string
		token  string
		code   string
		status int
	}{
		{"valid", unsignedJWT(t, valid), "", 0},
		{"audience list", unsignedJWT(t, with("aud", []string{"other", "sts.amazonaws.com"})), "", 0},
		{"wrong audience", unsignedJWT(t, with("aud", "someone-else")), "InvalidIdentityToken", http.StatusBadRequest},
		{"wrong subject", unsignedJWT(t, with("sub", "system:serviceaccount:hcp-ns:intruder")), "AccessDenied", http.StatusForbidden},
		{"unknown issuer", unsignedJWT(t, with("iss", "https://elsewhere.example.com")), "InvalidIdentityToken", http.StatusBadRequest},
		{"expired", unsignedJWT(t, with("exp", time.Now().Add(-time.Minute).Unix())), "ExpiredTokenException", http.StatusBadRequest},
		{"not a JWT", "opaque-access-token", "InvalidIdentityToken", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := anonymous.AssumeRoleWithWebIdentity(e.ctx, &sts.AssumeRoleWithWebIdentityInput{
				RoleArn: aws.String(roleARN), RoleSessionName: aws.String("cpo"), WebIdentityToken: aws.String(tc.token),
			})
			if tc.code != "" {
				requireAWSError(t, tc.name, err, tc.code, tc.status)
				switch tc.code {
				case "InvalidIdentityToken":
					var typed *ststypes.InvalidIdentityTokenException
					if !errors.As(err, &typed) {
						t.Errorf("%T is not *types.InvalidIdentityTokenException", err)
					}
				case "ExpiredTokenException":
					var typed *ststypes.ExpiredTokenException
					if !errors.As(err, &typed) {
						t.Errorf("%T is not *types.ExpiredTokenException", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
			}
			if aws.ToString(out.SubjectFromWebIdentityToken) != sa || aws.ToString(out.Provider) != providerARN {
				t.Errorf("subject %q, provider %q", aws.ToString(out.SubjectFromWebIdentityToken), aws.ToString(out.Provider))
			}
			who, err := e.stsWith(out.Credentials).GetCallerIdentity(e.ctx, &sts.GetCallerIdentityInput{})
			if err != nil {
				t.Fatalf("GetCallerIdentity: %v", err)
			}
			if want := "arn:aws:sts::" + roleAccount + ":assumed-role/infra-1-control-plane-operator/cpo"; aws.ToString(who.Arn) != want {
				t.Errorf("issued keys act as %s, want %s", aws.ToString(who.Arn), want)
			}
		})
	}
}

func TestIssuedCredentialsSeeOnlyTheRoleAccountsZones(t *testing.T) {
	e := newSTSEnv(t)
	r53 := &r53Env{t: t, ctx: e.ctx, f: e.f, r53: route53.NewFromConfig(e.f.Config(t, callerAccount))}
	zoneID := aws.ToString(r53.zone("customer.hypershift.local", r53.vpc(callerAccount)).HostedZone.Id)

	ownRole := e.createRole(callerAccount, "own", trustAccount(callerAccount))
	foreignRole := e.createRole(roleAccount, "foreign", trustAccount(callerAccount))
	caller := sts.NewFromConfig(e.f.Config(t, callerAccount))
	zonesSeenBy := func(roleARN string) (*route53.ListHostedZonesOutput, *route53.Client) {
		out, err := caller.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("look")})
		if err != nil {
			t.Fatalf("AssumeRole %s: %v", roleARN, err)
		}
		c := out.Credentials
		client := route53.NewFromConfig(e.f.ConfigWithKeys(t, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)))
		list, err := client.ListHostedZones(e.ctx, &route53.ListHostedZonesInput{HostedZoneType: r53types.HostedZoneTypePrivateHostedZone})
		if err != nil {
			t.Fatalf("ListHostedZones: %v", err)
		}
		return list, client
	}
	own, _ := zonesSeenBy(ownRole)
	if len(own.HostedZones) != 1 || aws.ToString(own.HostedZones[0].Id) != zoneID {
		t.Errorf("a session in the zone's account lists %+v, want the zone", own.HostedZones)
	}
	foreign, client := zonesSeenBy(foreignRole)
	if len(foreign.HostedZones) != 0 {
		t.Errorf("a session in another account lists %+v, want no zones", foreign.HostedZones)
	}
	_, err := client.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: aws.String(zoneID)})
	requireAWSError(t, "zone of the caller's own account through a foreign session", err, "NoSuchHostedZone", http.StatusNotFound)
}
