package cloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestClassOfStatus(t *testing.T) {
	tests := []struct {
		status int
		err    error
		want   Class
	}{
		{http.StatusBadRequest, errors.New("bad"), ClassInvalidInput},
		{http.StatusInternalServerError, errors.New("boom"), ClassServerError},
		{http.StatusServiceUnavailable, errors.New("busy"), ClassServerError},
		{http.StatusConflict, errors.New("conflict"), ClassClientError},
		{0, fmt.Errorf("calling: %w", context.Canceled), ClassClientError},
		{0, errors.New("connection reset"), ClassServerError},
	}
	for _, tt := range tests {
		if got := ClassOfStatus(tt.status, tt.err); got != tt.want {
			t.Errorf("ClassOfStatus(%d, %v) = %s, want %s", tt.status, tt.err, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"", 0},
		{" 7 ", 7 * time.Second},
		{"0", 0},
		{"-3", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.value, now); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.value, got, tt.want)
		}
	}
}
