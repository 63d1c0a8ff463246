package awsiam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// findOIDCProvider returns the ARN of the account's provider for the
// issuer host, or "" when there is none.
func findOIDCProvider(ctx context.Context, client *iam.Client, issuerHost string) (string, error) {
	list, err := client.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		return "", fmt.Errorf("listing OIDC providers: %w", err)
	}
	for _, p := range list.OpenIDConnectProviderList {
		if strings.HasSuffix(aws.ToString(p.Arn), ":oidc-provider/"+issuerHost) {
			return aws.ToString(p.Arn), nil
		}
	}
	return "", nil
}

// ensureOIDCProvider creates the provider for the issuer, or reuses the
// account's (one issuer serves every cluster of a management cluster, so
// another cluster may have made it), making sure STS is an audience.
func ensureOIDCProvider(ctx context.Context, client *iam.Client, w io.Writer, o Options) (string, error) {
	arn, err := findOIDCProvider(ctx, client, o.issuerHost())
	if err != nil {
		return "", err
	}
	if arn == "" {
		out, err := client.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
			Url: aws.String("https://" + o.issuerHost()), ClientIDList: []string{awscloud.ServiceAccountTokenAudience}, Tags: iamTags(o.tags()),
		})
		var exists *iamtypes.EntityAlreadyExistsException
		if err != nil && !errors.As(err, &exists) {
			return "", fmt.Errorf("creating the OIDC provider for %s: %w", o.IssuerURL, err)
		}
		if err == nil {
			say(w, "OIDC provider created (%s)", aws.ToString(out.OpenIDConnectProviderArn))
			return aws.ToString(out.OpenIDConnectProviderArn), nil
		}
		if arn, err = findOIDCProvider(ctx, client, o.issuerHost()); err != nil || arn == "" {
			return "", fmt.Errorf("the OIDC provider for %s exists but cannot be listed: %v", o.IssuerURL, err)
		}
	}
	got, err := client.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: &arn})
	if err != nil {
		return "", fmt.Errorf("reading OIDC provider %s: %w", arn, err)
	}
	if !slices.Contains(got.ClientIDList, awscloud.ServiceAccountTokenAudience) {
		if _, err := client.AddClientIDToOpenIDConnectProvider(ctx, &iam.AddClientIDToOpenIDConnectProviderInput{
			OpenIDConnectProviderArn: &arn, ClientID: aws.String(awscloud.ServiceAccountTokenAudience)}); err != nil {
			return "", fmt.Errorf("adding the STS audience to OIDC provider %s: %w", arn, err)
		}
	}
	say(w, "OIDC provider found (%s)", arn)
	return arn, nil
}

// deleteOIDCProviderIfUnused deletes the provider when hcplink created it
// (for any infra ID: clusters of one issuer share it, and whichever is
// destroyed last removes it) and no remaining role trusts it; a provider
// someone else made is never deleted.
func deleteOIDCProviderIfUnused(ctx context.Context, client *iam.Client, w io.Writer, o Options) error {
	arn, err := findOIDCProvider(ctx, client, o.issuerHost())
	if err != nil || arn == "" {
		return err
	}
	got, err := client.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: &arn})
	if err != nil {
		return fmt.Errorf("reading OIDC provider %s: %w", arn, err)
	}
	if !slices.ContainsFunc(got.Tags, func(t iamtypes.Tag) bool { return strings.HasPrefix(aws.ToString(t.Key), ownedTagKey("")) }) {
		say(w, "OIDC provider %s kept: hcplink did not create it", arn)
		return nil
	}
	if user, err := roleTrusting(ctx, client, arn); err != nil || user != "" {
		if err == nil {
			say(w, "OIDC provider %s kept: role %s still trusts it", arn, user)
		}
		return err
	}
	if _, err := client.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: &arn}); err != nil && !isNoSuchEntity(err) {
		return fmt.Errorf("deleting OIDC provider %s: %w", arn, err)
	}
	say(w, "OIDC provider deleted (%s)", arn)
	return nil
}

// roleTrusting names a role whose trust policy mentions the provider.
func roleTrusting(ctx context.Context, client *iam.Client, providerARN string) (string, error) {
	pages := iam.NewListRolesPaginator(client, &iam.ListRolesInput{})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return "", fmt.Errorf("listing roles: %w", err)
		}
		for _, r := range page.Roles {
			if strings.Contains(decodedTrust(aws.ToString(r.AssumeRolePolicyDocument)), providerARN) {
				return aws.ToString(r.RoleName), nil
			}
		}
	}
	return "", nil
}
