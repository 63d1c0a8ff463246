package gcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Google's real error envelopes, as cloudsim answers them through the real
// clients, land in the shared classes with plain messages.

func wantClass(t *testing.T, err error, class cloud.Class, inMessage ...string) *cloud.Error {
	t.Helper()
	ce, ok := cloud.AsError(err)
	if !ok {
		t.Fatalf("error %v is not classified", err)
	}
	if ce.Class != class {
		t.Fatalf("class %q (%s), want %q", ce.Class, ce.Error(), class)
	}
	for _, s := range inMessage {
		if !strings.Contains(ce.Message, s) {
			t.Errorf("message %q lacks %q", ce.Message, s)
		}
	}
	for _, leak := range []string{"https://", "projects/", cloudsimtest.CustomerProjectNumber, "googleapi:"} {
		if strings.Contains(ce.Error(), leak) {
			t.Errorf("message %q shows %q", ce.Error(), leak)
		}
	}
	return ce
}

func TestMissingPermissionIsNamed(t *testing.T) {
	w := newWorld(t)
	nobody := w.clients(gcpcloud.Config{Tokens: staticToken(w.f.Server.GCP.IssueToken("serviceAccount:nobody@" + customerProject + ".iam.gserviceaccount.com"))})
	addresses := &gcpcloud.Addresses{Compute: nobody.Compute, Location: w.customerLocation()}
	_, err := addresses.Reserve(w.ctx, owner, w.workers.SelfLink)
	ce := wantClass(t, err, cloud.ClassAccessDenied, "compute.addresses.create")
	if gcpcloud.MissingPermission(ce) != "compute.addresses.create" {
		t.Fatalf("MissingPermission = %q", gcpcloud.MissingPermission(ce))
	}
}

func TestRateQuotasAreThrottling(t *testing.T) {
	w := newWorld(t)
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 1}, Mutating: sim.Limit{Burst: 100}},
		"dns.googleapis.com":     {NonMutating: sim.Limit{Burst: 1}, Mutating: sim.Limit{Burst: 100}},
	}}})
	m, c := w.managementSide(), w.controlPlaneSide()
	throttledBefore := testCounter(cloud.RequestCounter("operator", "compute", "GET forwardingRules", cloud.OutcomeThrottled))
	if _, err := m.rules.FindByIP(w.ctx, routerIP); err != nil {
		t.Fatalf("the first read: %v", err)
	}
	_, err := m.rules.FindByIP(w.ctx, routerIP)
	wantClass(t, err, cloud.ClassThrottled, "rateLimitExceeded")
	if got := testCounter(cloud.RequestCounter("operator", "compute", "GET forwardingRules", cloud.OutcomeThrottled)); got != throttledBefore+1 {
		t.Fatalf("throttled Compute Engine requests counted %v, want %v (a 403 rateLimitExceeded)", got, throttledBefore+1)
	}
	zone, _, err := c.zones.Create(w.ctx, gcpcloud.ZoneSpec{Owner: owner, HCPName: "z", Network: w.customerNetwork})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.records.List(w.ctx, zone.Name); err != nil {
		t.Fatalf("the first DNS read: %v", err)
	}
	_, err = c.records.List(w.ctx, zone.Name)
	wantClass(t, err, cloud.ClassThrottled)
	w.clock.Advance(time.Minute)
	if _, err := c.records.List(w.ctx, zone.Name); err != nil {
		t.Fatalf("a read in the next minute: %v", err)
	}
}

func TestConflictsAndResourcesInUseAreDependencies(t *testing.T) {
	w := newWorld(t)
	m, c := w.managementSide(), w.controlPlaneSide()
	sa := w.publish(m)
	endpoint, zone := w.connect(c, sa)

	_, err := c.addresses.Delete(w.ctx, gcpcloud.EndpointAddressName(owner), owner)
	wantClass(t, err, cloud.ClassDependency, "resourceInUseByAnotherResource")

	err = c.zones.Delete(w.ctx, zone, owner)
	wantClass(t, err, cloud.ClassDependency, "containerNotEmpty")

	_ = endpoint
}

// After a lost status (an operator restarted between "created" and
// "status written"), creating again adopts what carries the cluster's
// marks and makes no duplicate; while an insert is still running, the name
// is a dependency to wait on.
func TestCreatingAgainAdopts(t *testing.T) {
	w := newWorld(t)
	m, c := w.managementSide(), w.controlPlaneSide()
	sa := w.publish(m)
	endpoint, zone := w.connect(c, sa)

	op, err := m.attachments.Insert(w.ctx, gcpcloud.AttachmentSpec{Owner: owner, TargetService: w.router.SelfLink,
		Consumers: []gcpcloud.Consumer{{Project: customerProject}}, NATSubnets: sa.NatSubnets})
	if err != nil || !op.IsZero() {
		t.Fatalf("creating the attachment again: %+v, %v; want it adopted", op, err)
	}
	if op, err := c.addresses.Reserve(w.ctx, owner, w.workers.SelfLink); err != nil || !op.IsZero() {
		t.Fatalf("reserving the address again: %+v, %v; want it adopted", op, err)
	}
	if op, err := c.endpoints.Insert(w.ctx, gcpcloud.EndpointSpec{Owner: owner, Network: w.customerNetwork, Address: endpoint.IPAddress, Target: sa.SelfLink}); err != nil || !op.IsZero() {
		t.Fatalf("creating the endpoint again: %+v, %v; want it adopted", op, err)
	}
	again, made, err := c.zones.Create(w.ctx, gcpcloud.ZoneSpec{Owner: owner, HCPName: "demo", Network: w.customerNetwork})
	if err != nil || made || again.Id != zone.Id {
		t.Fatalf("creating the zone again: %v, made %v, %v; want the zone adopted", again, made, err)
	}
	if owned, _ := m.attachments.ListOwned(w.ctx, managementID); len(owned) != 1 {
		t.Fatalf("attachments after creating again: %v, want no duplicate", names(owned))
	}

	// Another cluster's insert still running: its name is taken, it is not yet seen.
	other := owner
	other.InfraID = "other-q9w8e"
	if _, err := c.addresses.Reserve(w.ctx, other, w.workers.SelfLink); err != nil {
		t.Fatal(err)
	}
	_, err = c.addresses.Reserve(w.ctx, other, w.workers.SelfLink)
	wantClass(t, err, cloud.ClassDependency, "alreadyExists")
}

// An operation that fails when it is DONE (a patch of an attachment
// deleted meanwhile) returns its error, classified, from Wait.
func TestFailedOperationsAreClassified(t *testing.T) {
	w := newWorld(t)
	m := w.managementSide()
	sa := w.publish(m)
	if _, err := m.attachments.Delete(w.ctx, sa.Name, managementID); err != nil {
		t.Fatal(err)
	}
	patch, err := m.attachments.SetConsumers(w.ctx, sa, []gcpcloud.Consumer{{Project: customerProject}})
	if err != nil {
		t.Fatal(err)
	}
	if next, err := m.ops.Wait(w.ctx, patch); err != nil || next.Done {
		t.Fatalf("waiting before the operation's time: %+v, %v; want not done, no error", next, err)
	}
	w.clock.Advance(time.Second)
	_, err = m.ops.Wait(w.ctx, patch)
	if !gcpcloud.IsNotFound(err) {
		t.Fatalf("waiting on the patch of a deleted attachment: %v, want not found", err)
	}
	wantClass(t, err, cloud.ClassNotFound, "RESOURCE_NOT_FOUND")
}

// A 503 that lasts is a server fault once the call's retries are spent; a
// single one is retried within the call and never seen.
func TestServerErrorsAreTransient(t *testing.T) {
	w := newWorld(t)
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "compute.googleapis.com", Operation: "serviceAttachments.get", Rate: 1, Code: "backendError", HTTPStatus: 503}}})
	_, err := w.managementSide().attachments.Get(w.ctx, "x")
	wantClass(t, err, cloud.ClassServerError)

	w.f.Server.Faults.Set(sim.FaultConfig{})
	m := w.managementSide()
	sa := w.publish(m)
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "compute.googleapis.com", Operation: "serviceAttachments.get", Nth: 1, Code: "backendError", HTTPStatus: 503}}})
	if got, err := m.attachments.Get(w.ctx, sa.Name); err != nil || got == nil {
		t.Fatalf("reading an attachment whose first answer is a 503: %+v, %v; want it, retried within the call", got, err)
	}
}

// A ServiceAccount token STS refuses is an access denial, and nothing is called.
func TestRefusedSignInIsAccessDenied(t *testing.T) {
	w := newWorld(t)
	wi := w.f.AddWorkloadIdentity(t, customerProject, cloudsimtest.CustomerProjectNumber, "intruder", "system:serviceaccount:x:y")
	account := w.externalAccount(wi)
	writeFile(t, account.TokenFile, wi.ServiceAccountToken(t, sim.NewSigner(), w.clock.Now())) // signed by a key the issuer does not publish
	forged := w.clients(gcpcloud.Config{CredentialsJSON: account.ExternalAccountJSON()})
	wantClass(t, forged.CheckSignIn(), cloud.ClassAccessDenied, "invalid_grant")
	if err := w.cpo.CheckSignIn(); err != nil {
		t.Fatalf("the control-plane operator's own sign-in: %v", err)
	}
	_, err := (&gcpcloud.Addresses{Compute: forged.Compute, Location: w.customerLocation()}).Get(w.ctx, "a")
	wantClass(t, err, cloud.ClassAccessDenied, "invalid_grant")
}

// A ServiceAccount the Google service account's policy does not name
// cannot impersonate it: the denial names the permission.
func TestRefusedImpersonationNamesThePermission(t *testing.T) {
	w := newWorld(t)
	wi := w.f.AddWorkloadIdentity(t, customerProject, cloudsimtest.CustomerProjectNumber, "someone", "system:serviceaccount:a:b")
	wi.Subject = "system:serviceaccount:other:intruder"
	intruder := w.clients(gcpcloud.Config{CredentialsJSON: w.externalAccount(wi).ExternalAccountJSON()})
	_, err := (&gcpcloud.Addresses{Compute: intruder.Compute, Location: w.customerLocation()}).Get(w.ctx, "a")
	wantClass(t, err, cloud.ClassAccessDenied, "iam.serviceAccounts.getAccessToken")
}

// A sign-in that does not answer fails the call after the sign-in's
// timeout, as a transient error, instead of holding it.
func TestHungSignInIsBounded(t *testing.T) {
	w := newWorld(t)
	defer gcpcloud.SetSignInTimeout(100 * time.Millisecond)()
	wi := w.f.AddWorkloadIdentity(t, customerProject, cloudsimtest.CustomerProjectNumber, "slow-sts", "system:serviceaccount:a:b")
	for _, hung := range []sim.LatencyRule{
		{Service: "sts.googleapis.com", Operation: "token", Delay: sim.Duration(time.Minute)},
		{Service: "iamcredentials.googleapis.com", Operation: "serviceAccounts.generateAccessToken", Delay: sim.Duration(time.Minute)},
	} {
		w.f.Server.Faults.Set(sim.FaultConfig{Latency: []sim.LatencyRule{hung}})
		clients := w.clients(gcpcloud.Config{CredentialsJSON: w.externalAccount(wi).ExternalAccountJSON()})
		wantClass(t, clients.CheckSignIn(), cloud.ClassServerError)
	}
}
