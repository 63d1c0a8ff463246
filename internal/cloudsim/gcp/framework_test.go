package gcp_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
)

// An insert answers a PENDING operation; the resource is not seen until
// the operation is DONE on the sim clock; get and wait both serve it.
func TestOperationsProgressOnTheSimClock(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	op, err := e.compute.Networks.Insert(p, &compute.Network{Name: "vpc", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if op.Status != "PENDING" || op.OperationType != "insert" || op.TargetLink == "" || op.Kind != "compute#operation" {
		t.Fatalf("insert answered %+v, want a PENDING insert operation naming its target", op)
	}
	if _, err := e.compute.Networks.Get(p, "vpc").Do(); err == nil {
		t.Fatal("the network is seen before its operation is DONE")
	} else {
		wantError(t, err, http.StatusNotFound, "notFound")
	}
	_, err = e.compute.Networks.Insert(p, &compute.Network{Name: "vpc", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")

	e.clock.Advance(100 * time.Millisecond)
	if got, _ := e.compute.GlobalOperations.Wait(p, op.Name).Do(); got.Status != "RUNNING" {
		t.Fatalf("halfway: %s, want RUNNING", got.Status)
	}
	e.clock.Advance(time.Second)
	got, err := e.compute.GlobalOperations.Wait(p, op.Name).Do()
	if err != nil || got.Status != "DONE" || got.Progress != 100 || got.EndTime == "" {
		t.Fatalf("after the delay: %+v, %v; want DONE", got, err)
	}
	n, err := e.compute.Networks.Get(p, "vpc").Do()
	if err != nil || n.SelfLink != e.f.URL+"/compute/v1/projects/"+p+"/global/networks/vpc" || n.Id == 0 {
		t.Fatalf("network %+v, %v; want it with its self link and id", n, err)
	}
}

// Lists page with maxResults and pageToken, and filter as the clients ask.
func TestListsPageAndFilter(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	for i := range 5 {
		e.done(t)(e.compute.Networks.Insert(p, &compute.Network{Name: fmt.Sprintf("vpc-%d", i), ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	}
	var names []string
	pages := 0
	err := e.compute.Networks.List(p).MaxResults(2).Pages(ctx, func(l *compute.NetworkList) error {
		pages++
		for _, n := range l.Items {
			names = append(names, n.Name)
		}
		return nil
	})
	if err != nil || pages != 3 || len(names) != 5 || names[4] != "vpc-4" {
		t.Fatalf("paging by 2: %d pages, %v, %v; want 3 pages of all five in order", pages, names, err)
	}
	l, err := e.compute.Networks.List(p).Filter(`name = "vpc-3"`).Do()
	if err != nil || len(l.Items) != 1 || l.Items[0].Name != "vpc-3" {
		t.Fatalf("filter name = vpc-3: %v, %v", l, err)
	}
	l, err = e.compute.Networks.List(p).Filter(`(name eq vpc-[12]) (mtu = 1460)`).Do()
	if err != nil || len(l.Items) != 2 {
		t.Fatalf("regex filter: %v, %v; want vpc-1 and vpc-2", l, err)
	}
	_, err = e.compute.Networks.List(p).Filter(`name = "a" OR name = "b"`).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
}

// Calls without a token or with an unknown one are refused with 401; an
// unknown project is 404; both in Google's envelope.
func TestAuthenticationAndEnvelope(t *testing.T) {
	e := start(t)
	resp, err := http.Get(e.f.URL + "/compute/v1/projects/" + cloudsimtest.ManagementProject + "/global/networks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %s, want 401", resp.Status)
	}
	forged := e.f.Compute(t, staticToken("ya29.forged"))
	_, err = forged.Networks.List(cloudsimtest.ManagementProject).Do()
	wantError(t, err, http.StatusUnauthorized, "authError")
	_, err = e.compute.Networks.List("no-such-project").Do()
	wantError(t, err, http.StatusNotFound, "notFound")
	if gcp.IsGCPPath("/2013-04-01/hostedzone") || !gcp.IsGCPPath("/dns/v1/projects/p/managedZones") {
		t.Fatal("IsGCPPath routes the wrong paths")
	}
}

// An operation that cannot complete is DONE with its error: a patch sent
// while the attachment's deletion is running finds it gone.
func TestOperationFailsWhenItsTargetWentMeanwhile(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	p := cloudsimtest.ManagementProject
	if _, err := e.compute.ServiceAttachments.Delete(p, region, "cluster-a").Do(); err != nil {
		t.Fatal(err)
	}
	op, err := e.compute.ServiceAttachments.Patch(p, region, "cluster-a", &compute.ServiceAttachment{
		Fingerprint: prod.attachment.Fingerprint, ConsumerRejectLists: []string{"foreign-project"}}).Do()
	if err != nil {
		t.Fatalf("patching during the deletion: %v", err)
	}
	e.clock.Advance(time.Second)
	got, err := e.compute.RegionOperations.Get(p, region, op.Name).Do()
	if err != nil || got.Status != "DONE" || got.Error == nil || got.Error.Errors[0].Code != "RESOURCE_NOT_FOUND" || got.HttpErrorStatusCode != 404 {
		t.Fatalf("the patch's operation: %+v, %v; want DONE with RESOURCE_NOT_FOUND", got, err)
	}
}
