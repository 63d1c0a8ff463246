package soak

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
)

func TestPatientlyWaitsOutThrottlingOnly(t *testing.T) {
	throttled := &cloud.Error{Class: cloud.ClassThrottled, RetryAfter: time.Millisecond, Err: errors.New("429")}
	denied := &cloud.Error{Class: cloud.ClassAccessDenied, Err: errors.New("403")}
	for _, tc := range []struct {
		name      string
		answers   []error
		wantCalls int
		wantErr   error
	}{
		{"done at once", []error{nil}, 1, nil},
		{"throttled twice, then done", []error{throttled, throttled, nil}, 3, nil},
		{"a refusal is not waited out", []error{denied, nil}, 1, denied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := patiently(context.Background(), func() error {
				calls++
				return tc.answers[calls-1]
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) {
				t.Errorf("%d calls, error %v; want %d calls, error %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
