package gcpiam

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// lroPoll is how often a pool's or provider's operation is read until it
// is done, and lroTimeout how long that may take (IAM's take seconds).
const (
	lroPoll    = 500 * time.Millisecond
	lroTimeout = 2 * time.Minute
)

// ensurePool makes the workload identity pool, or undeletes it when
// hcplink made it and it was deleted; a pool someone else made is used
// as it is (destroy never deletes it).
func ensurePool(ctx context.Context, c Clients, log io.Writer, projectNumber, pool string) error {
	pools := c.IAM.Projects.Locations.WorkloadIdentityPools
	name := "projects/" + projectNumber + "/locations/global/workloadIdentityPools/" + pool
	got, err := pools.Get(name).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		op, err := pools.Create("projects/"+projectNumber+"/locations/global", &iam.WorkloadIdentityPool{DisplayName: "hcplink",
			Description: madeBy + ": hosted clusters' control-plane operators sign in here"}).WorkloadIdentityPoolId(pool).Context(ctx).Do()
		if err := waitOperation(ctx, c, "creating the workload identity pool "+name, op, err); err != nil {
			return err
		}
		logf(log, "workload identity pool %s: created", name)
	case err != nil:
		return gcpcloud.Wrap("reading the workload identity pool "+name, err)
	case got.State == "DELETED" && strings.HasPrefix(got.Description, madeBy):
		op, err := pools.Undelete(name, &iam.UndeleteWorkloadIdentityPoolRequest{}).Context(ctx).Do()
		if err := waitOperation(ctx, c, "undeleting the workload identity pool "+name, op, err); err != nil {
			return err
		}
		logf(log, "workload identity pool %s: undeleted", name)
	case got.State != "ACTIVE" || got.Disabled:
		return fmt.Errorf("the workload identity pool %s is %s or disabled, and hcplink did not make it: undelete or enable it, or choose another with --pool", name, got.State)
	default:
		logf(log, "workload identity pool %s: exists", name)
	}
	return nil
}

// ensureProvider makes the pool's OIDC provider trusting issuer (its
// ServiceAccount tokens' sub is google.subject; the audience is the
// provider's own URL, the default), or finds or undeletes hcplink's. A
// provider of the ID trusting another issuer is refused.
func ensureProvider(ctx context.Context, c Clients, log io.Writer, pool, provider, issuer string) (string, error) {
	providers := c.IAM.Projects.Locations.WorkloadIdentityPools.Providers
	name := pool + "/providers/" + provider
	got, err := providers.Get(name).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		op, err := providers.Create(pool, &iam.WorkloadIdentityPoolProvider{DisplayName: "hcplink management cluster",
			Description: madeBy + ": trusts the management cluster " + issuer, AttributeMapping: map[string]string{"google.subject": "assertion.sub"},
			Oidc: &iam.Oidc{IssuerUri: issuer}}).WorkloadIdentityPoolProviderId(provider).Context(ctx).Do()
		if err := waitOperation(ctx, c, "creating the pool provider "+name, op, err); err != nil {
			return "", err
		}
		logf(log, "workload identity pool provider %s: created, trusting %s", name, issuer)
		return name, nil
	case err != nil:
		return "", gcpcloud.Wrap("reading the pool provider "+name, err)
	case got.Oidc == nil || got.Oidc.IssuerUri != issuer:
		return "", fmt.Errorf("the pool provider %s exists and trusts another issuer, not %s: choose another with --pool-provider", name, issuer)
	case got.State == "DELETED":
		op, err := providers.Undelete(name, &iam.UndeleteWorkloadIdentityPoolProviderRequest{}).Context(ctx).Do()
		if err := waitOperation(ctx, c, "undeleting the pool provider "+name, op, err); err != nil {
			return "", err
		}
		logf(log, "workload identity pool provider %s: undeleted", name)
	default:
		logf(log, "workload identity pool provider %s: exists", name)
	}
	return name, nil
}

// deleteProviderAndPool deletes the provider and then the pool, each only
// when hcplink made it.
func deleteProviderAndPool(ctx context.Context, c Clients, log io.Writer, pool, provider string) error {
	pools := c.IAM.Projects.Locations.WorkloadIdentityPools
	name := pool + "/providers/" + provider
	if got, err := pools.Providers.Get(name).Context(ctx).Do(); err == nil && got.State == "ACTIVE" && strings.HasPrefix(got.Description, madeBy) {
		op, err := pools.Providers.Delete(name).Context(ctx).Do()
		if err := waitOperation(ctx, c, "deleting the pool provider "+name, op, err); err != nil {
			return err
		}
		logf(log, "workload identity pool provider %s: deleted", name)
	} else if err != nil && !gcpcloud.IsNotFound(err) {
		return gcpcloud.Wrap("reading the pool provider "+name, err)
	}
	got, err := pools.Get(pool).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		return nil
	case err != nil:
		return gcpcloud.Wrap("reading the workload identity pool "+pool, err)
	case got.State != "ACTIVE":
		return nil
	case !strings.HasPrefix(got.Description, madeBy):
		logf(log, "workload identity pool %s: left, hcplink did not make it", pool)
		return nil
	}
	op, err := pools.Delete(pool).Context(ctx).Do()
	if err := waitOperation(ctx, c, "deleting the workload identity pool "+pool, op, err); err != nil {
		return err
	}
	logf(log, "workload identity pool %s: deleted (its ID stays taken for 30 days; create undeletes it)", pool)
	return nil
}

// waitOperation reads a pool's or provider's operation until it is done.
func waitOperation(ctx context.Context, c Clients, doing string, op *iam.Operation, err error) error {
	if err != nil {
		return gcpcloud.Wrap(doing, err)
	}
	ctx, cancel := context.WithTimeout(ctx, lroTimeout)
	defer cancel()
	tick := time.NewTicker(lroPoll)
	defer tick.Stop()
	for !op.Done {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: the operation %s is not done after %s; run the command again", doing, op.Name, lroTimeout)
		case <-tick.C:
		}
		if op, err = c.IAM.Projects.Locations.WorkloadIdentityPools.Operations.Get(op.Name).Context(ctx).Do(); err != nil {
			return gcpcloud.Wrap(doing, err)
		}
	}
	if op.Error != nil {
		return fmt.Errorf("%s: %s", doing, op.Error.Message)
	}
	return nil
}
