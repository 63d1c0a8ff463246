package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/hcplink/hcplink/internal/devenv"
)

func TestTrackerRecordsStepsInOrderAndNamesTheOneThatFails(t *testing.T) {
	var out bytes.Buffer
	tr := newTracker(&out, 200*time.Millisecond)
	tr.poll = time.Millisecond
	polls := 0
	err := tr.wait(context.Background(),
		step{"ready at once", func(context.Context) (string, error) { return "id-1", nil }},
		step{"ready on the third look", func(context.Context) (string, error) {
			polls++
			if polls < 3 {
				return "", errors.New("not yet")
			}
			return "id-2", nil
		}},
	)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if len(tr.records) != 2 || tr.records[0].title != "ready at once" || tr.records[1].title != "ready on the third look" {
		t.Fatalf("records = %+v", tr.records)
	}
	if !strings.Contains(out.String(), "id-1") || !strings.Contains(out.String(), "id-2") {
		t.Fatalf("progress lacks the details:\n%s", out.String())
	}

	err = tr.wait(context.Background(), step{"never happens", func(context.Context) (string, error) {
		return "", errors.New("the endpoint service is missing")
	}})
	if err == nil || !strings.Contains(err.Error(), "never happens") {
		t.Fatalf("error = %v, want one naming the step", err)
	}
	if !strings.Contains(out.String(), "✗ never happens") || !strings.Contains(out.String(), "the endpoint service is missing") {
		t.Fatalf("progress does not say which step failed and why:\n%s", out.String())
	}
	if len(tr.records) != 2 {
		t.Fatalf("a failed step was recorded: %+v", tr.records)
	}

	tr.summary()
	if !strings.Contains(out.String(), "total") {
		t.Fatalf("summary lacks the total:\n%s", out.String())
	}
}

func TestSummarySaysWhichTimeIsPerStepAndWhichSinceTheStart(t *testing.T) {
	var out bytes.Buffer
	tr := newTracker(&out, time.Second)
	start := tr.start
	tr.finish("first", start.Add(2*time.Second))
	tr.section("next section")
	tr.last = start.Add(10 * time.Second) // the section's change was made at 10 s
	tr.finish("second", start.Add(13*time.Second))
	tr.summary()

	for _, tc := range []struct {
		title       string
		took, since float64
	}{
		{"first", 2, 2},
		{"second", 3, 13},
	} {
		var row string
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, tc.title+" ") {
				row = line
			}
		}
		fields := strings.Fields(row)
		if len(fields) != 3 || fields[1] != fmt.Sprintf("%.1f", tc.took) || fields[2] != fmt.Sprintf("%.1f", tc.since) {
			t.Errorf("row %q = %q, want took %.1f and since start %.1f", tc.title, row, tc.took, tc.since)
		}
	}
	for _, heading := range []string{tookHeading, sinceHeading, "since start: from the start of the tour"} {
		if !strings.Contains(out.String(), heading) {
			t.Errorf("summary lacks %q:\n%s", heading, out.String())
		}
	}
}

func TestProgressLineNamesBothTimes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		r      record
		detail string
		want   []string
	}{
		{"with detail", record{title: "endpoint", took: 1500 * time.Millisecond, sinceStart: 12 * time.Second}, "vpce-1 in the customer account 222222222222",
			[]string{"✓ endpoint", "took   1.5s", "at   12.0s since start", "\n      vpce-1 in the customer account 222222222222"}},
		{"without detail", record{title: "gone", took: 0, sinceStart: time.Second}, "", []string{"took   0.0s", "at    1.0s since start"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := progressLine(tc.r, tc.detail)
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			if tc.detail == "" && strings.Contains(line, "\n") {
				t.Errorf("line %q has an empty detail line", line)
			}
		})
	}
}

func TestAccountLabelNamesWhoseAccount(t *testing.T) {
	for _, tc := range []struct{ account, want string }{
		{devenv.ManagementAccount, "management account 111111111111"},
		{devenv.CustomerAccount, "customer account 222222222222"},
		{devenv.SecondCustomerAccount, "customer account 444444444444"},
		{"999999999999", "account 999999999999"},
	} {
		if got := accountLabel(tc.account); got != tc.want {
			t.Errorf("accountLabel(%s) = %q, want %q", tc.account, got, tc.want)
		}
	}
}

func TestRecordsToListsOnlyCNAMEsToTheEndpoint(t *testing.T) {
	cname := func(name, value string) r53types.ResourceRecordSet {
		return r53types.ResourceRecordSet{Name: aws.String(name), Type: r53types.RRTypeCname, ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(value)}}}
	}
	const target = "vpce-1-abc.vpce-svc-1.us-east-1.vpce.amazonaws.com"
	for _, tc := range []struct {
		name string
		sets []r53types.ResourceRecordSet
		want []string
	}{
		{"none yet: only the zone's own records", []r53types.ResourceRecordSet{
			{Name: aws.String("demo.hypershift.local."), Type: r53types.RRTypeSoa, ResourceRecords: []r53types.ResourceRecord{{Value: aws.String("ns. admin. 1 7200 900 1209600 60")}}},
		}, nil},
		{"both, escaped wildcard and trailing dots", []r53types.ResourceRecordSet{
			cname(`\052.apps.demo.hypershift.local.`, target+"."), cname("api.demo.hypershift.local.", target),
		}, []string{"*.apps.demo.hypershift.local", "api.demo.hypershift.local"}},
		{"a record to an old endpoint is not counted", []r53types.ResourceRecordSet{
			cname("api.demo.hypershift.local.", "vpce-0-old.vpce-svc-1.us-east-1.vpce.amazonaws.com"), cname("*.apps.demo.hypershift.local.", target),
		}, []string{"*.apps.demo.hypershift.local"}},
		{"an A record with the name is not a CNAME", []r53types.ResourceRecordSet{
			{Name: aws.String("api.demo.hypershift.local."), Type: r53types.RRTypeA, ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(target)}}},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recordsTo(tc.sets, target); !slices.Equal(got, tc.want) {
				t.Errorf("recordsTo = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestZoneIDsOfIsSortedAndUnique(t *testing.T) {
	subnets := []ec2types.Subnet{{AvailabilityZoneId: aws.String("use1-az2")}, {AvailabilityZoneId: aws.String("use1-az1")}, {AvailabilityZoneId: aws.String("use1-az2")}}
	if got := zoneIDsOf(subnets); !slices.Equal(got, []string{"use1-az1", "use1-az2"}) {
		t.Errorf("zoneIDsOf = %v", got)
	}
}
