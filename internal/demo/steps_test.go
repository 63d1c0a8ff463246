package demo

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
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
