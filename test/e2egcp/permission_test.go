package e2egcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	crm "google.golang.org/api/cloudresourcemanager/v1"
	"google.golang.org/api/option"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// A permission missing from the control-plane operator's custom role (an
// administrator narrowed it): the cluster's condition names the
// permission, the operator looks again only as the policy for a person's
// fix allows (no hot loop over a drift interval), and the cluster becomes
// Available once the permission is back. The cluster's operator holds a
// role of its own, so that the others are not touched.
func TestMissingPermissionIsAConditionWithoutAHotLoop(t *testing.T) {
	t.Parallel()
	const missing = "dns.managedZones.create"
	full := gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator)
	if !slices.Contains(full, missing) {
		t.Fatalf("the control-plane operator's role does not hold %s: choose another permission", missing)
	}
	var roleID string
	c := createClusterWith(t, "denied", hcplinkv1beta1.GCPEndpointAccessPrivate, func(c *cluster) {
		roleID = c.giveOwnRole(t)
		setRole(t, roleID, slices.DeleteFunc(slices.Clone(full), func(p string) bool { return p == missing }))
	})
	principal := "serviceAccount:" + c.fixture.ControlPlaneOperatorServiceAccount

	var denied metav1.Condition
	suite.Eventually(t, e2eutil.LongWait, "a condition naming "+missing, func(ctx context.Context) error {
		cr, err := c.psc(ctx)
		if err != nil {
			return err
		}
		for _, cond := range cr.Status.Conditions {
			if strings.Contains(cond.Message, missing) {
				denied = cond
				return e2eutil.ConditionIs(cr.Status.Conditions, cond.Type, metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason)
			}
		}
		return fmt.Errorf("no condition names %s: %+v", missing, cr.Status.Conditions)
	})
	t.Logf("%s: %s", denied.Type, denied.Message)
	for _, leak := range []string{"projects/", "://", devenv.GCPCustomerProjectNumber} {
		if strings.Contains(denied.Message, leak) {
			t.Errorf("the message carries %q: %s", leak, denied.Message)
		}
	}

	// Over one drift interval, the refused call is made at most once per
	// look the person policy allows (its first delay is the shortest), and
	// every look reads no more than one healthy pass reads.
	before, start := callsOf(principal), time.Now()
	healed := false
	suite.Eventually(t, driftInterval+e2eutil.ShortWait, "one drift interval with the permission missing", func(ctx context.Context) error {
		cr, err := c.psc(ctx)
		if err != nil {
			return err
		}
		if e2eutil.ConditionIs(cr.Status.Conditions, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition, metav1.ConditionTrue, "") == nil {
			healed = true
		}
		if elapsed := time.Since(start); elapsed < driftInterval {
			return fmt.Errorf("%v of %v", elapsed.Round(time.Second), driftInterval)
		}
		return nil
	})
	window, after := time.Since(start), callsOf(principal)
	if healed {
		t.Fatalf("the cluster was Available without %s", missing)
	}
	looks := int64(window/outcome.DefaultPolicy.Person.Base) + 1
	refused := after.of("managedZones.create").Total - before.of("managedZones.create").Total
	total := after.all().Total - before.all().Total
	t.Logf("over %v: %d calls by the control-plane operator, %d refused creates of the zone; at most %d looks", window.Round(time.Millisecond), total, refused, looks)
	if refused > looks {
		t.Errorf("%d refused zone creates in %v; the person policy allows %d looks", refused, window.Round(time.Second), looks)
	}
	if perLook := float64(total) / float64(max(refused, 1)); total > looks*callsPerPass {
		t.Errorf("%d calls in %v (%.1f per look), more than %d looks of %d calls", total, window.Round(time.Second), perLook, looks, callsPerPass)
	}

	setRole(t, roleID, full)
	// The next look is the policy's next delay away.
	c.waitAvailable(t)
	c.waitPath(t, c.fixture.Subnet)
	c.deleteAndCheckNothingLeft(t)
}

// callsPerPass bounds the calls one pass of the control-plane operator
// makes once its endpoint exists: the endpoint's read, the zone's lookup
// and create, the records' read and change, and a sign-in's two calls
// (token exchange, impersonation) should its token be renewed.
const callsPerPass = 7

// principalCalls are one principal's calls by operation.
type principalCalls map[string]sim.CallCount

func callsOf(principal string) principalCalls {
	return env.Cloud.GCP.PrincipalCalls()[principal]
}

// of sums the calls whose operation ends in op.
func (p principalCalls) of(op string) sim.CallCount {
	var sum sim.CallCount
	for k, c := range p {
		if op == "" || strings.HasSuffix(k, op) {
			sum.Total += c.Total
			sum.Failed += c.Failed
		}
	}
	return sum
}

func (p principalCalls) all() sim.CallCount { return p.of("") }

// giveOwnRole binds the cluster's control-plane operator to a custom role
// of its own, holding what the shared one holds, instead of the shared
// one, through the project's IAM policy (Cloud Resource Manager's
// setIamPolicy, as an administrator would); it returns the role's ID.
func (c *cluster) giveOwnRole(t *testing.T) string {
	t.Helper()
	id := gcpcloud.RoleID(gcpcloud.ControlPlaneOperator) + "_" + strings.ReplaceAll(c.infraID, "-", "_")
	setRole(t, id, gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator))
	shared := "projects/" + devenv.GCPCustomerProject + "/roles/" + gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)
	own := "projects/" + devenv.GCPCustomerProject + "/roles/" + id
	member := "serviceAccount:" + c.fixture.ControlPlaneOperatorServiceAccount
	ctx := context.Background()
	rm, err := crm.NewService(ctx, option.WithEndpoint(env.CloudURL+"/cloudresourcemanager/"), option.WithTokenSource(env.GCPAdminTokens()))
	if err != nil {
		t.Fatal(err)
	}
	// Other scenarios grant on the project meanwhile: a stale etag is
	// refused (409 ABORTED), and the read-modify-write is done again.
	suite.Eventually(t, e2eutil.ShortWait, "the control-plane operator bound to its own role", func(ctx context.Context) error {
		policy, err := rm.Projects.GetIamPolicy(devenv.GCPCustomerProject, &crm.GetIamPolicyRequest{}).Context(ctx).Do()
		if err != nil {
			return err
		}
		for _, b := range policy.Bindings {
			if b.Role == shared {
				b.Members = slices.DeleteFunc(b.Members, func(m string) bool { return m == member })
			}
		}
		policy.Bindings = append(policy.Bindings, &crm.Binding{Role: own, Members: []string{member}})
		_, err = rm.Projects.SetIamPolicy(devenv.GCPCustomerProject, &crm.SetIamPolicyRequest{Policy: policy}).Context(ctx).Do()
		return err
	})
	return id
}

// setRole makes the customer project's custom role id hold exactly
// permissions (IAM's roles.patch).
func setRole(t *testing.T, id string, permissions []string) {
	t.Helper()
	if _, err := env.Cloud.GCP.AddCustomRole(devenv.GCPCustomerProject, id, permissions); err != nil {
		t.Fatalf("setting custom role %s: %v", id, err)
	}
}
