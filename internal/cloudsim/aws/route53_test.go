package aws_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const (
	r53Account = cloudsimtest.ManagementAccount
	r53Other   = cloudsimtest.CustomerAccount
)

// requireAWSError asserts an error's AWS code and HTTP status and returns it.
func requireAWSError(t *testing.T, what string, err error, code string, status int) smithy.APIError {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%s: error = %v, want AWS error %s", what, err, code)
	}
	if apiErr.ErrorCode() != code {
		t.Fatalf("%s: code = %s (%s), want %s", what, apiErr.ErrorCode(), apiErr.ErrorMessage(), code)
	}
	var withStatus interface{ HTTPStatusCode() int }
	if !errors.As(err, &withStatus) || withStatus.HTTPStatusCode() != status {
		t.Fatalf("%s: HTTP status of %v is not %d", what, err, status)
	}
	return apiErr
}

type r53Env struct {
	t   *testing.T
	ctx context.Context
	f   *cloudsimtest.Fixture
	r53 *route53.Client
}

func newR53Env(t *testing.T, opts cloudsim.Options) *r53Env {
	f := cloudsimtest.Start(t, opts)
	return &r53Env{t: t, ctx: context.Background(), f: f, r53: route53.NewFromConfig(f.Config(t, r53Account))}
}

func (e *r53Env) client(account string) *route53.Client {
	return route53.NewFromConfig(e.f.Config(e.t, account))
}

// vpc creates a VPC in us-east-1 of the account through EC2.
func (e *r53Env) vpc(account string) string {
	e.t.Helper()
	out, err := ec2.NewFromConfig(e.f.Config(e.t, account)).CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		e.t.Fatalf("CreateVpc: %v", err)
	}
	return aws.ToString(out.Vpc.VpcId)
}

var callerRefs int

func (e *r53Env) zone(name, vpcID string) *route53.CreateHostedZoneOutput {
	e.t.Helper()
	callerRefs++
	in := &route53.CreateHostedZoneInput{Name: aws.String(name), CallerReference: aws.String(fmt.Sprintf("ref-%d", callerRefs))}
	if vpcID != "" {
		in.VPC = &types.VPC{VPCId: aws.String(vpcID), VPCRegion: types.VPCRegionUsEast1}
	}
	out, err := e.r53.CreateHostedZone(e.ctx, in)
	if err != nil {
		e.t.Fatalf("CreateHostedZone %s: %v", name, err)
	}
	return out
}

func (e *r53Env) change(zoneID string, changes ...types.Change) (*route53.ChangeResourceRecordSetsOutput, error) {
	return e.r53.ChangeResourceRecordSets(e.ctx, &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID),
		ChangeBatch:  &types.ChangeBatch{Changes: changes},
	})
}

func (e *r53Env) mustChange(zoneID string, changes ...types.Change) *types.ChangeInfo {
	e.t.Helper()
	out, err := e.change(zoneID, changes...)
	if err != nil {
		e.t.Fatalf("ChangeResourceRecordSets: %v", err)
	}
	return out.ChangeInfo
}

// records lists every record set of the zone as "name type ttl values".
func (e *r53Env) records(zoneID string) []string {
	e.t.Helper()
	var out []string
	p := route53.NewListResourceRecordSetsPaginator(e.r53, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID)})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		if err != nil {
			e.t.Fatalf("ListResourceRecordSets: %v", err)
		}
		for _, rs := range page.ResourceRecordSets {
			out = append(out, describeRRS(rs))
		}
	}
	return out
}

func describeRRS(rs types.ResourceRecordSet) string {
	var values []string
	for _, r := range rs.ResourceRecords {
		values = append(values, aws.ToString(r.Value))
	}
	return fmt.Sprintf("%s %s %d %s", aws.ToString(rs.Name), rs.Type, aws.ToInt64(rs.TTL), strings.Join(values, ","))
}

func rrChange(action types.ChangeAction, name string, typ types.RRType, ttl int64, values ...string) types.Change {
	rs := &types.ResourceRecordSet{Name: aws.String(name), Type: typ, TTL: aws.Int64(ttl)}
	for _, v := range values {
		rs.ResourceRecords = append(rs.ResourceRecords, types.ResourceRecord{Value: aws.String(v)})
	}
	return types.Change{Action: action, ResourceRecordSet: rs}
}

func TestRoute53PublicZoneLifecycle(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	out, err := e.r53.CreateHostedZone(e.ctx, &route53.CreateHostedZoneInput{
		Name: aws.String("Example.COM"), CallerReference: aws.String("once"),
		HostedZoneConfig: &types.HostedZoneConfig{Comment: aws.String("public one")},
	})
	if err != nil {
		t.Fatalf("CreateHostedZone: %v", err)
	}
	id := aws.ToString(out.HostedZone.Id)
	bare := strings.TrimPrefix(id, "/hostedzone/")
	if !strings.HasPrefix(id, "/hostedzone/Z") || len(bare) < 14 || len(bare) > 22 || strings.ToUpper(bare) != bare {
		t.Errorf("zone ID = %q, want /hostedzone/Z + 13–21 upper-case letters and digits", id)
	}
	if got := aws.ToString(out.HostedZone.Name); got != "example.com." {
		t.Errorf("name = %q, want example.com. (lower case, trailing dot)", got)
	}
	if out.HostedZone.Config.PrivateZone || aws.ToString(out.HostedZone.Config.Comment) != "public one" {
		t.Errorf("config = %+v, want public with the comment", out.HostedZone.Config)
	}
	if out.DelegationSet == nil || len(out.DelegationSet.NameServers) != 4 || out.VPC != nil {
		t.Errorf("delegation set %+v, VPC %+v: want four name servers and no VPC", out.DelegationSet, out.VPC)
	}
	if out.ChangeInfo.Status != types.ChangeStatusPending || !strings.HasPrefix(aws.ToString(out.ChangeInfo.Id), "/change/C") {
		t.Errorf("change info = %+v, want a PENDING /change/C…", out.ChangeInfo)
	}
	if got := aws.ToString(out.Location); !strings.HasSuffix(got, "/2013-04-01/hostedzone/"+bare) {
		t.Errorf("Location = %q", got)
	}
	if got := aws.ToInt64(out.HostedZone.ResourceRecordSetCount); got != 2 {
		t.Errorf("ResourceRecordSetCount = %d, want 2 (SOA and NS)", got)
	}
	recs := e.records(bare)
	if len(recs) != 2 || !strings.HasPrefix(recs[0], "example.com. NS 172800 ns-") || !strings.HasPrefix(recs[1], "example.com. SOA 900 ns-") ||
		!strings.Contains(recs[1], "awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400") {
		t.Errorf("records = %q, want the apex NS then SOA", recs)
	}

	_, err = e.r53.CreateHostedZone(e.ctx, &route53.CreateHostedZoneInput{Name: aws.String("other.com"), CallerReference: aws.String("once")})
	requireAWSError(t, "reused caller reference", err, "HostedZoneAlreadyExists", http.StatusConflict)
	var exists *types.HostedZoneAlreadyExists
	if !errors.As(err, &exists) {
		t.Errorf("reused caller reference: %T is not *types.HostedZoneAlreadyExists", err)
	}

	for _, ident := range []string{bare, id} {
		got, err := e.r53.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: aws.String(ident)})
		if err != nil {
			t.Fatalf("GetHostedZone(%s): %v", ident, err)
		}
		if aws.ToString(got.HostedZone.Id) != id || got.DelegationSet == nil || len(got.VPCs) != 0 {
			t.Errorf("GetHostedZone(%s) = %+v", ident, got)
		}
	}
	upd, err := e.r53.UpdateHostedZoneComment(e.ctx, &route53.UpdateHostedZoneCommentInput{Id: aws.String(bare), Comment: aws.String("renamed")})
	if err != nil || aws.ToString(upd.HostedZone.Config.Comment) != "renamed" {
		t.Fatalf("UpdateHostedZoneComment = %+v, %v", upd, err)
	}
	count, err := e.r53.GetHostedZoneCount(e.ctx, &route53.GetHostedZoneCountInput{})
	if err != nil || aws.ToInt64(count.HostedZoneCount) != 1 {
		t.Fatalf("GetHostedZoneCount = %+v, %v", count, err)
	}

	del, err := e.r53.DeleteHostedZone(e.ctx, &route53.DeleteHostedZoneInput{Id: aws.String(id)})
	if err != nil || del.ChangeInfo == nil {
		t.Fatalf("DeleteHostedZone = %+v, %v", del, err)
	}
	_, err = e.r53.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: aws.String(bare)})
	requireAWSError(t, "GetHostedZone after delete", err, "NoSuchHostedZone", http.StatusNotFound)
	var noZone *types.NoSuchHostedZone
	if !errors.As(err, &noZone) {
		t.Errorf("%T is not *types.NoSuchHostedZone", err)
	}
	_, err = e.r53.DeleteHostedZone(e.ctx, &route53.DeleteHostedZoneInput{Id: aws.String(bare)})
	requireAWSError(t, "DeleteHostedZone twice", err, "NoSuchHostedZone", http.StatusNotFound)
	_, err = e.r53.CreateHostedZone(e.ctx, &route53.CreateHostedZoneInput{Name: aws.String("again.com"), CallerReference: aws.String("once")})
	requireAWSError(t, "caller reference of a deleted zone", err, "HostedZoneAlreadyExists", http.StatusConflict)
}

func TestRoute53PrivateZoneNeedsAVPCOfTheCaller(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	mine, theirs := e.vpc(r53Account), e.vpc(r53Other)

	cases := []struct {
		name    string
		in      route53.CreateHostedZoneInput
		code    string
		errType any
	}{
		{"unknown VPC", route53.CreateHostedZoneInput{VPC: &types.VPC{VPCId: aws.String("vpc-0123456789abcdef0"), VPCRegion: types.VPCRegionUsEast1}}, "InvalidVPCId", &types.InvalidVPCId{}},
		{"another account's VPC", route53.CreateHostedZoneInput{VPC: &types.VPC{VPCId: aws.String(theirs), VPCRegion: types.VPCRegionUsEast1}}, "InvalidVPCId", &types.InvalidVPCId{}},
		{"VPC in another region", route53.CreateHostedZoneInput{VPC: &types.VPC{VPCId: aws.String(mine), VPCRegion: types.VPCRegionUsWest2}}, "InvalidVPCId", &types.InvalidVPCId{}},
		{"private without a VPC", route53.CreateHostedZoneInput{HostedZoneConfig: &types.HostedZoneConfig{PrivateZone: true}}, "InvalidInput", &types.InvalidInput{}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Name = aws.String("cluster.hypershift.local")
			tc.in.CallerReference = aws.String(fmt.Sprintf("bad-%d", i))
			_, err := e.r53.CreateHostedZone(e.ctx, &tc.in)
			requireAWSError(t, tc.name, err, tc.code, http.StatusBadRequest)
		})
	}

	out := e.zone("cluster.hypershift.local", mine)
	if !out.HostedZone.Config.PrivateZone || out.DelegationSet != nil || aws.ToString(out.VPC.VPCId) != mine {
		t.Fatalf("private zone answer = %+v", out)
	}
	got, err := e.r53.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: out.HostedZone.Id})
	if err != nil {
		t.Fatalf("GetHostedZone: %v", err)
	}
	if len(got.VPCs) != 1 || aws.ToString(got.VPCs[0].VPCId) != mine || got.VPCs[0].VPCRegion != types.VPCRegionUsEast1 || got.DelegationSet != nil {
		t.Errorf("GetHostedZone of a private zone = VPCs %+v, delegation %+v", got.VPCs, got.DelegationSet)
	}
	_, err = e.r53.CreateHostedZone(e.ctx, &route53.CreateHostedZoneInput{
		Name: aws.String("CLUSTER.hypershift.local."), CallerReference: aws.String("dup"),
		VPC: &types.VPC{VPCId: aws.String(mine), VPCRegion: types.VPCRegionUsEast1},
	})
	requireAWSError(t, "same name on the same VPC", err, "ConflictingDomainExists", http.StatusBadRequest)
}

func TestRoute53VPCAssociations(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	first, second := e.vpc(r53Account), e.vpc(r53Account)
	zoneID := aws.ToString(e.zone("assoc.hypershift.local", first).HostedZone.Id)
	public := aws.ToString(e.zone("public.example.com", "").HostedZone.Id)
	vpc := func(id string) *types.VPC {
		return &types.VPC{VPCId: aws.String(id), VPCRegion: types.VPCRegionUsEast1}
	}

	_, err := e.r53.AssociateVPCWithHostedZone(e.ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: aws.String(public), VPC: vpc(first)})
	requireAWSError(t, "associate a public zone", err, "PublicZoneVPCAssociation", http.StatusBadRequest)
	_, err = e.r53.AssociateVPCWithHostedZone(e.ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc(first)})
	requireAWSError(t, "associate an associated VPC", err, "ConflictingDomainExists", http.StatusBadRequest)
	_, err = e.r53.AssociateVPCWithHostedZone(e.ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc("vpc-00000000000000000")})
	requireAWSError(t, "associate an unknown VPC", err, "InvalidVPCId", http.StatusBadRequest)
	if _, err := e.r53.AssociateVPCWithHostedZone(e.ctx, &route53.AssociateVPCWithHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc(second)}); err != nil {
		t.Fatalf("AssociateVPCWithHostedZone: %v", err)
	}
	byVPC, err := e.r53.ListHostedZonesByVPC(e.ctx, &route53.ListHostedZonesByVPCInput{VPCId: aws.String(second), VPCRegion: types.VPCRegionUsEast1})
	if err != nil {
		t.Fatalf("ListHostedZonesByVPC: %v", err)
	}
	if len(byVPC.HostedZoneSummaries) != 1 || "/hostedzone/"+aws.ToString(byVPC.HostedZoneSummaries[0].HostedZoneId) != zoneID ||
		aws.ToString(byVPC.HostedZoneSummaries[0].Name) != "assoc.hypershift.local." ||
		aws.ToString(byVPC.HostedZoneSummaries[0].Owner.OwningAccount) != r53Account {
		t.Errorf("ListHostedZonesByVPC = %+v", byVPC.HostedZoneSummaries)
	}

	if _, err := e.r53.DisassociateVPCFromHostedZone(e.ctx, &route53.DisassociateVPCFromHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc(first)}); err != nil {
		t.Fatalf("DisassociateVPCFromHostedZone: %v", err)
	}
	_, err = e.r53.DisassociateVPCFromHostedZone(e.ctx, &route53.DisassociateVPCFromHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc(first)})
	requireAWSError(t, "disassociate a VPC not associated", err, "VPCAssociationNotFound", http.StatusNotFound)
	_, err = e.r53.DisassociateVPCFromHostedZone(e.ctx, &route53.DisassociateVPCFromHostedZoneInput{HostedZoneId: aws.String(zoneID), VPC: vpc(second)})
	requireAWSError(t, "disassociate the last VPC", err, "LastVPCAssociation", http.StatusBadRequest)
	byVPC, err = e.r53.ListHostedZonesByVPC(e.ctx, &route53.ListHostedZonesByVPCInput{VPCId: aws.String(first), VPCRegion: types.VPCRegionUsEast1})
	if err != nil || len(byVPC.HostedZoneSummaries) != 0 {
		t.Errorf("zones of the disassociated VPC = %+v, %v; want none", byVPC, err)
	}
}

func TestRoute53ListHostedZonesPaginates(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	want := map[string]bool{}
	for i := range 5 {
		want[aws.ToString(e.zone(fmt.Sprintf("z%d.example.com", i), "").HostedZone.Id)] = true
	}
	first, err := e.r53.ListHostedZones(e.ctx, &route53.ListHostedZonesInput{MaxItems: aws.Int32(2)})
	if err != nil {
		t.Fatalf("ListHostedZones: %v", err)
	}
	if len(first.HostedZones) != 2 || !first.IsTruncated || first.NextMarker == nil || aws.ToInt32(first.MaxItems) != 2 {
		t.Fatalf("first page = %d zones, truncated %v, next %v", len(first.HostedZones), first.IsTruncated, first.NextMarker)
	}
	seen := map[string]bool{}
	pages := 0
	p := route53.NewListHostedZonesPaginator(e.r53, &route53.ListHostedZonesInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		if err != nil {
			t.Fatalf("ListHostedZones page: %v", err)
		}
		pages++
		for _, z := range page.HostedZones {
			if seen[aws.ToString(z.Id)] {
				t.Errorf("zone %s listed twice", aws.ToString(z.Id))
			}
			seen[aws.ToString(z.Id)] = true
		}
	}
	if pages != 3 || len(seen) != 5 {
		t.Errorf("paginated %d zones over %d pages, want 5 over 3", len(seen), pages)
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("zone %s never listed", id)
		}
	}
	private, err := e.r53.ListHostedZones(e.ctx, &route53.ListHostedZonesInput{HostedZoneType: types.HostedZoneTypePrivateHostedZone})
	if err != nil || len(private.HostedZones) != 0 {
		t.Errorf("private zones = %+v, %v; want none", private, err)
	}
}

func TestRoute53ListHostedZonesByName(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	for _, n := range []string{"example.org", "b.example.com", "z.com", "example.com", "a.example.com"} {
		e.zone(n, "")
	}
	all, err := e.r53.ListHostedZonesByName(e.ctx, &route53.ListHostedZonesByNameInput{})
	if err != nil {
		t.Fatalf("ListHostedZonesByName: %v", err)
	}
	var names []string
	for _, z := range all.HostedZones {
		names = append(names, aws.ToString(z.Name))
	}
	want := []string{"example.com.", "a.example.com.", "b.example.com.", "z.com.", "example.org."}
	if !slices.Equal(names, want) {
		t.Fatalf("order = %v, want %v (labels compared from the right)", names, want)
	}
	page, err := e.r53.ListHostedZonesByName(e.ctx, &route53.ListHostedZonesByNameInput{DNSName: aws.String("a.example.com"), MaxItems: aws.Int32(2)})
	if err != nil {
		t.Fatalf("ListHostedZonesByName from a.example.com: %v", err)
	}
	if len(page.HostedZones) != 2 || aws.ToString(page.HostedZones[0].Name) != "a.example.com." || !page.IsTruncated ||
		aws.ToString(page.NextDNSName) != "z.com." || page.NextHostedZoneId == nil {
		t.Fatalf("page = %+v", page)
	}
	rest, err := e.r53.ListHostedZonesByName(e.ctx, &route53.ListHostedZonesByNameInput{DNSName: page.NextDNSName, HostedZoneId: page.NextHostedZoneId})
	if err != nil || len(rest.HostedZones) != 2 || rest.IsTruncated || aws.ToString(rest.HostedZones[1].Name) != "example.org." {
		t.Fatalf("next page = %+v, %v", rest, err)
	}
	_, err = e.r53.ListHostedZonesByName(e.ctx, &route53.ListHostedZonesByNameInput{HostedZoneId: page.NextHostedZoneId})
	requireAWSError(t, "HostedZoneId without DNSName", err, "InvalidInput", http.StatusBadRequest)
}

func TestRoute53InvalidChangeBatches(t *testing.T) {
	cname := func(action types.ChangeAction, name, target string) types.Change {
		return rrChange(action, name, types.RRTypeCname, 300, target)
	}
	a := func(action types.ChangeAction, name string, ttl int64, ips ...string) types.Change {
		return rrChange(action, name, types.RRTypeA, ttl, ips...)
	}
	cases := []struct {
		name  string
		batch []types.Change
		want  []string // every message, in order
	}{
		{"create existing", []types.Change{a(types.ChangeActionCreate, "api.z.local", 300, "10.0.0.1")},
			[]string{"Tried to create resource record set [name='api.z.local.', type='A'] but it already exists"}},
		{"delete missing", []types.Change{a(types.ChangeActionDelete, "nothing.z.local", 300, "10.0.0.1")},
			[]string{"Tried to delete resource record set [name='nothing.z.local.', type='A'] but it was not found"}},
		{"delete other values", []types.Change{a(types.ChangeActionDelete, "api.z.local", 300, "10.0.0.9")},
			[]string{"Tried to delete resource record set [name='api.z.local.', type='A'] but the values provided do not match the current values"}},
		{"delete other TTL", []types.Change{a(types.ChangeActionDelete, "api.z.local", 60, "10.0.0.1")},
			[]string{"Tried to delete resource record set [name='api.z.local.', type='A'] but the values provided do not match the current values"}},
		{"CNAME beside A", []types.Change{cname(types.ChangeActionCreate, "api.z.local", "elsewhere.example.com")},
			[]string{"RRSet of type CNAME with DNS name api.z.local. is not permitted as it conflicts with other records with the same DNS name in zone z.local."}},
		{"A beside CNAME", []types.Change{a(types.ChangeActionUpsert, "alias.z.local", 300, "10.0.0.2")},
			[]string{"RRSet of type A with DNS name alias.z.local. is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone z.local."}},
		{"CNAME at apex", []types.Change{cname(types.ChangeActionCreate, "z.local", "elsewhere.example.com")},
			[]string{"RRSet of type CNAME with DNS name z.local. is not permitted at apex in zone z.local."}},
		{"outside the zone", []types.Change{a(types.ChangeActionCreate, "api.other.local", 300, "10.0.0.1")},
			[]string{"RRSet with DNS name api.other.local. is not permitted in zone z.local."}},
		{"not an IPv4 address", []types.Change{a(types.ChangeActionCreate, "bad.z.local", 300, "10.0.0.300")},
			[]string{"Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '10.0.0.300''"}},
		{"unquoted TXT", []types.Change{rrChange(types.ChangeActionCreate, "txt.z.local", types.RRTypeTxt, 300, "hello")},
			[]string{"Invalid Resource Record: 'FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with 'hello''"}},
		{"same record twice", []types.Change{a(types.ChangeActionUpsert, "new.z.local", 300, "10.0.0.3"), a(types.ChangeActionUpsert, "new.z.local", 300, "10.0.0.4")},
			[]string{"The request contains an invalid set of changes for a resource record set 'A new.z.local.'"}},
		{"delete the SOA", []types.Change{rrChange(types.ChangeActionDelete, "z.local", types.RRTypeSoa, 900, "SOA-VALUE")},
			[]string{"A HostedZone must contain exactly one SOA record."}},
		{"valid change then two bad ones", []types.Change{
			a(types.ChangeActionCreate, "fresh.z.local", 300, "10.0.0.5"),
			a(types.ChangeActionCreate, "api.z.local", 300, "10.0.0.1"),
			a(types.ChangeActionDelete, "nothing.z.local", 300, "10.0.0.1"),
		}, []string{
			"Tried to create resource record set [name='api.z.local.', type='A'] but it already exists",
			"Tried to delete resource record set [name='nothing.z.local.', type='A'] but it was not found",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newR53Env(t, cloudsim.Options{})
			zoneID := aws.ToString(e.zone("z.local", "").HostedZone.Id)
			e.mustChange(zoneID, a(types.ChangeActionCreate, "api.z.local", 300, "10.0.0.1"),
				cname(types.ChangeActionCreate, "alias.z.local", "target.example.com"))
			before := e.records(zoneID)
			var soa string
			for _, r := range before {
				if f := strings.SplitN(r, " ", 4); f[1] == "SOA" {
					soa = f[3]
				}
			}
			for i, ch := range tc.batch {
				for j, r := range ch.ResourceRecordSet.ResourceRecords {
					if aws.ToString(r.Value) == "SOA-VALUE" {
						tc.batch[i].ResourceRecordSet.ResourceRecords[j].Value = aws.String(soa)
					}
				}
			}

			_, err := e.change(zoneID, tc.batch...)
			apiErr := requireAWSError(t, tc.name, err, "InvalidChangeBatch", http.StatusBadRequest)
			var icb *types.InvalidChangeBatch
			if !errors.As(err, &icb) {
				t.Fatalf("%T is not *types.InvalidChangeBatch", err)
			}
			if want := "[" + strings.Join(tc.want, ", ") + "]"; apiErr.ErrorMessage() != want {
				t.Errorf("message = %q\nwant      %q", apiErr.ErrorMessage(), want)
			}
			if after := e.records(zoneID); !slices.Equal(before, after) {
				t.Errorf("a rejected batch changed the zone:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

func TestRoute53ChangeShapeErrorsAreInvalidInput(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("z.local", "").HostedZone.Id)
	_, err := e.change(zoneID, types.Change{Action: types.ChangeActionCreate,
		ResourceRecordSet: &types.ResourceRecordSet{Name: aws.String("x.z.local"), Type: types.RRTypeA}})
	apiErr := requireAWSError(t, "no TTL nor records", err, "InvalidInput", http.StatusBadRequest)
	if !strings.Contains(apiErr.ErrorMessage(), "Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found none in Change with [Action=CREATE, Name=x.z.local, Type=A") {
		t.Errorf("message = %q", apiErr.ErrorMessage())
	}
	_, err = e.change("Z0000000000000000000X", rrChange(types.ChangeActionCreate, "x.z.local", types.RRTypeA, 60, "10.0.0.1"))
	requireAWSError(t, "change in a missing zone", err, "NoSuchHostedZone", http.StatusNotFound)
}

func TestRoute53RecordChangesApply(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("c1.hypershift.local", "").HostedZone.Id)
	target := "vpce-0123-abcd.vpce-svc-0123.us-east-1.vpce.amazonaws.com"

	// UPSERT twice with the same value leaves one record.
	for range 2 {
		e.mustChange(zoneID, rrChange(types.ChangeActionUpsert, "API.c1.hypershift.local", types.RRTypeCname, 300, target))
	}
	// A wildcard is stored and listed escaped, and the escaped spelling names the same record.
	e.mustChange(zoneID, rrChange(types.ChangeActionUpsert, "*.apps.c1.hypershift.local.", types.RRTypeCname, 300, target))
	e.mustChange(zoneID, rrChange(types.ChangeActionUpsert, `\052.apps.c1.hypershift.local.`, types.RRTypeCname, 60, target))
	// Delete and re-create in one batch, the usual way to replace a record.
	e.mustChange(zoneID, rrChange(types.ChangeActionCreate, "txt.c1.hypershift.local", types.RRTypeTxt, 300, `"one"`))
	e.mustChange(zoneID,
		rrChange(types.ChangeActionDelete, "txt.c1.hypershift.local", types.RRTypeTxt, 300, `"one"`),
		rrChange(types.ChangeActionCreate, "txt.c1.hypershift.local", types.RRTypeTxt, 120, `"two"`, `"three"`))

	got := e.records(zoneID)
	want := []string{
		"c1.hypershift.local. NS", "c1.hypershift.local. SOA",
		"api.c1.hypershift.local. CNAME 300 " + target,
		`\052.apps.c1.hypershift.local. CNAME 60 ` + target,
		`txt.c1.hypershift.local. TXT 120 "two","three"`,
	}
	if len(got) != len(want) {
		t.Fatalf("records = %q\nwant %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("record %d = %q, want %q…", i, got[i], want[i])
		}
	}
	z, err := e.r53.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: aws.String(zoneID)})
	if err != nil || aws.ToInt64(z.HostedZone.ResourceRecordSetCount) != 5 {
		t.Errorf("ResourceRecordSetCount = %v, %v; want 5", z, err)
	}
	// DELETE matches values regardless of order and names regardless of case.
	e.mustChange(zoneID, rrChange(types.ChangeActionDelete, "TXT.c1.hypershift.local", types.RRTypeTxt, 120, `"three"`, `"two"`))
	if got := e.records(zoneID); len(got) != 4 {
		t.Errorf("after delete: %q", got)
	}
}

func TestRoute53SOANegativeTTLCanBeUpserted(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("neg.hypershift.local", "").HostedZone.Id)
	list, err := e.r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID), StartRecordName: aws.String("neg.hypershift.local"), StartRecordType: types.RRTypeSoa, MaxItems: aws.Int32(1),
	})
	if err != nil || len(list.ResourceRecordSets) != 1 || list.ResourceRecordSets[0].Type != types.RRTypeSoa {
		t.Fatalf("SOA lookup = %+v, %v", list, err)
	}
	soa := list.ResourceRecordSets[0]
	fields := strings.Fields(aws.ToString(soa.ResourceRecords[0].Value))
	fields[6] = "60"
	soa.ResourceRecords[0].Value = aws.String(strings.Join(fields, " "))
	e.mustChange(zoneID, types.Change{Action: types.ChangeActionUpsert, ResourceRecordSet: &soa})
	list, err = e.r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID), StartRecordName: aws.String("neg.hypershift.local"), StartRecordType: types.RRTypeSoa, MaxItems: aws.Int32(1),
	})
	if err != nil {
		t.Fatalf("ListResourceRecordSets: %v", err)
	}
	if got := aws.ToString(list.ResourceRecordSets[0].ResourceRecords[0].Value); !strings.HasSuffix(got, " 60") {
		t.Errorf("SOA after UPSERT = %q, want negative-cache TTL 60", got)
	}
}

func TestRoute53ChangeStatusGoesInsyncWithTheClock(t *testing.T) {
	clk := sim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	delays := sim.FastDelays()
	delays.Route53ChangePropagation = sim.Duration(30 * time.Second)
	e := newR53Env(t, cloudsim.Options{Clock: clk, Delays: &delays})
	zoneID := aws.ToString(e.zone("clock.local", "").HostedZone.Id)
	info := e.mustChange(zoneID, rrChange(types.ChangeActionCreate, "a.clock.local", types.RRTypeA, 60, "10.1.1.1"))
	if info.Status != types.ChangeStatusPending || !aws.ToTime(info.SubmittedAt).Equal(clk.Now()) {
		t.Fatalf("change = %+v, want PENDING submitted now", info)
	}
	status := func() types.ChangeStatus {
		out, err := e.r53.GetChange(e.ctx, &route53.GetChangeInput{Id: info.Id})
		if err != nil {
			t.Fatalf("GetChange: %v", err)
		}
		return out.ChangeInfo.Status
	}
	clk.Advance(29 * time.Second)
	if s := status(); s != types.ChangeStatusPending {
		t.Errorf("after 29s: %s, want PENDING", s)
	}
	clk.Advance(time.Second)
	if s := status(); s != types.ChangeStatusInsync {
		t.Errorf("after 30s: %s, want INSYNC", s)
	}
	_, err := e.r53.GetChange(e.ctx, &route53.GetChangeInput{Id: aws.String("/change/CNOTACHANGE")})
	requireAWSError(t, "unknown change", err, "NoSuchChange", http.StatusNotFound)
	var noChange *types.NoSuchChange
	if !errors.As(err, &noChange) {
		t.Errorf("%T is not *types.NoSuchChange", err)
	}
}

func TestRoute53ListResourceRecordSetsOrderAndPages(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("example.com", "").HostedZone.Id)
	e.mustChange(zoneID,
		rrChange(types.ChangeActionCreate, "www.example.com", types.RRTypeA, 60, "10.0.0.1"),
		rrChange(types.ChangeActionCreate, "www.example.com", types.RRTypeAaaa, 60, "fd00::1"),
		rrChange(types.ChangeActionCreate, "a.b.example.com", types.RRTypeA, 60, "10.0.0.2"),
		rrChange(types.ChangeActionCreate, "b.example.com", types.RRTypeTxt, 60, `"b"`),
		rrChange(types.ChangeActionCreate, "api.example.com", types.RRTypeCname, 60, "www.example.com"),
	)
	var order []string
	for _, r := range e.records(zoneID) {
		f := strings.Fields(r)
		order = append(order, f[0]+" "+f[1])
	}
	want := []string{
		"example.com. NS", "example.com. SOA", "api.example.com. CNAME", "b.example.com. TXT",
		"a.b.example.com. A", "www.example.com. A", "www.example.com. AAAA",
	}
	if !slices.Equal(order, want) {
		t.Fatalf("order = %q\nwant  %q", order, want)
	}

	page, err := e.r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID), MaxItems: aws.Int32(3)})
	if err != nil {
		t.Fatalf("ListResourceRecordSets: %v", err)
	}
	if len(page.ResourceRecordSets) != 3 || !page.IsTruncated || aws.ToString(page.NextRecordName) != "b.example.com." || page.NextRecordType != types.RRTypeTxt {
		t.Fatalf("first page: %d sets, truncated %v, next %v %s", len(page.ResourceRecordSets), page.IsTruncated, aws.ToString(page.NextRecordName), page.NextRecordType)
	}
	page, err = e.r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID), StartRecordName: aws.String("WWW.example.com"), StartRecordType: types.RRTypeAaaa,
	})
	if err != nil || len(page.ResourceRecordSets) != 1 || page.IsTruncated || page.ResourceRecordSets[0].Type != types.RRTypeAaaa {
		t.Fatalf("from www AAAA: %+v, %v", page, err)
	}
	_, err = e.r53.ListResourceRecordSets(e.ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID), StartRecordType: types.RRTypeA})
	requireAWSError(t, "StartRecordType without a name", err, "InvalidInput", http.StatusBadRequest)
}

func TestRoute53DeleteHostedZoneRefusedWhileRecordsRemain(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("full.local", "").HostedZone.Id)
	rec := rrChange(types.ChangeActionCreate, "api.full.local", types.RRTypeCname, 300, "x.example.com")
	e.mustChange(zoneID, rec)
	_, err := e.r53.DeleteHostedZone(e.ctx, &route53.DeleteHostedZoneInput{Id: aws.String(zoneID)})
	apiErr := requireAWSError(t, "delete a zone with records", err, "HostedZoneNotEmpty", http.StatusBadRequest)
	if apiErr.ErrorMessage() != "The specified hosted zone contains non-required resource record sets and so cannot be deleted." {
		t.Errorf("message = %q", apiErr.ErrorMessage())
	}
	rec.Action = types.ChangeActionDelete
	e.mustChange(zoneID, rec)
	if _, err := e.r53.DeleteHostedZone(e.ctx, &route53.DeleteHostedZoneInput{Id: aws.String(zoneID)}); err != nil {
		t.Fatalf("DeleteHostedZone of an empty zone: %v", err)
	}
}

func TestRoute53ZoneTags(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := strings.TrimPrefix(aws.ToString(e.zone("tags.local", "").HostedZone.Id), "/hostedzone/")
	_, err := e.r53.ChangeTagsForResource(e.ctx, &route53.ChangeTagsForResourceInput{
		ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(zoneID),
		AddTags: []types.Tag{{Key: aws.String("hcplink.io/cluster"), Value: aws.String("c1")}, {Key: aws.String("drop"), Value: aws.String("me")}},
	})
	if err != nil {
		t.Fatalf("ChangeTagsForResource add: %v", err)
	}
	_, err = e.r53.ChangeTagsForResource(e.ctx, &route53.ChangeTagsForResourceInput{
		ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(zoneID), RemoveTagKeys: []string{"drop"},
	})
	if err != nil {
		t.Fatalf("ChangeTagsForResource remove: %v", err)
	}
	out, err := e.r53.ListTagsForResource(e.ctx, &route53.ListTagsForResourceInput{ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(zoneID)})
	if err != nil {
		t.Fatalf("ListTagsForResource: %v", err)
	}
	set := out.ResourceTagSet
	if aws.ToString(set.ResourceId) != zoneID || set.ResourceType != types.TagResourceTypeHostedzone || len(set.Tags) != 1 ||
		aws.ToString(set.Tags[0].Key) != "hcplink.io/cluster" || aws.ToString(set.Tags[0].Value) != "c1" {
		t.Errorf("tag set = %+v", set)
	}
	many, err := e.r53.ListTagsForResources(e.ctx, &route53.ListTagsForResourcesInput{ResourceType: types.TagResourceTypeHostedzone, ResourceIds: []string{zoneID}})
	if err != nil || len(many.ResourceTagSets) != 1 || len(many.ResourceTagSets[0].Tags) != 1 {
		t.Errorf("ListTagsForResources = %+v, %v", many, err)
	}
	_, err = e.r53.ListTagsForResource(e.ctx, &route53.ListTagsForResourceInput{ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String("ZNOSUCHZONE0000")})
	requireAWSError(t, "tags of a missing zone", err, "NoSuchHostedZone", http.StatusNotFound)
}

func TestRoute53StateIsPerAccount(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("mine.hypershift.local", e.vpc(r53Account)).HostedZone.Id)
	other := e.client(r53Other)
	list, err := other.ListHostedZones(e.ctx, &route53.ListHostedZonesInput{})
	if err != nil || len(list.HostedZones) != 0 {
		t.Errorf("another account lists %+v, %v; want no zones", list, err)
	}
	_, err = other.GetHostedZone(e.ctx, &route53.GetHostedZoneInput{Id: aws.String(zoneID)})
	requireAWSError(t, "another account's zone", err, "NoSuchHostedZone", http.StatusNotFound)
	_, err = other.ChangeResourceRecordSets(e.ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zoneID),
		ChangeBatch: &types.ChangeBatch{Changes: []types.Change{rrChange(types.ChangeActionCreate, "x.mine.hypershift.local", types.RRTypeA, 60, "10.0.0.1")}}})
	requireAWSError(t, "change another account's zone", err, "NoSuchHostedZone", http.StatusNotFound)
}

func TestRoute53CountsOperationsByName(t *testing.T) {
	e := newR53Env(t, cloudsim.Options{})
	zoneID := aws.ToString(e.zone("count.local", "").HostedZone.Id)
	e.mustChange(zoneID, rrChange(types.ChangeActionCreate, "a.count.local", types.RRTypeA, 60, "10.0.0.1"))
	e.records(zoneID)
	calls := e.f.Calls(r53Account)
	for _, op := range []string{"CreateHostedZone", "ChangeResourceRecordSets", "ListResourceRecordSets"} {
		if c := calls["route53:"+op]; c.Total == 0 || c.Failed != 0 {
			t.Errorf("route53:%s counted %+v, want successful calls (counters %v)", op, c, calls)
		}
	}
	if c := calls["route53:ChangeResourceRecordSets"]; c.Mutating == 0 {
		t.Errorf("ChangeResourceRecordSets not counted as mutating: %+v", c)
	}
}
