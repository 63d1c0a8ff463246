package bench

import (
	"math"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func TestParseVmHWM(t *testing.T) {
	tests := []struct {
		name, status string
		want         int64
	}{
		{"kernel format", "Name:\thcplink\nVmPeak:\t 2000 kB\nVmHWM:\t   91648 kB\nVmRSS:\t 80000 kB\n", 91648 * 1024},
		{"absent", "Name:\thcplink\nVmRSS:\t 80000 kB\n", 0},
		{"garbled", "VmHWM:\tlots kB\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseVmHWM(tc.status); got != tc.want {
				t.Fatalf("parseVmHWM = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestPerClusterHourScalesToTheProductionDriftInterval(t *testing.T) {
	tests := []struct {
		name          string
		calls         int64
		clusters      int
		window, drift time.Duration
		want          float64
	}{
		// 10 clusters × 5 calls per check × 4 checks in a minute at 15 s: at 10 min
		// drift that is 5 calls × 6 checks an hour per cluster.
		{"bench defaults", 200, 10, time.Minute, 15 * time.Second, 30},
		{"observed at the production interval", 60, 1, time.Hour, DefaultDriftInterval, 60},
		{"nothing", 0, 50, time.Minute, 15 * time.Second, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := perClusterHour(tc.calls, tc.clusters, tc.window, tc.drift); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("perClusterHour = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestByOperationFoldsAccounts(t *testing.T) {
	got := byOperation(map[string]map[string]sim.CallCount{
		"111111111111": {"ec2:DescribeVpcs": {Total: 2, Throttled: 1, Failed: 1}},
		"222222222222": {"ec2:DescribeVpcs": {Total: 3}, "ec2:CreateVpc": {Total: 1, Mutating: 1}},
	})
	want := map[string]sim.CallCount{
		"ec2:DescribeVpcs": {Total: 5, Throttled: 1, Failed: 1},
		"ec2:CreateVpc":    {Total: 1, Mutating: 1},
	}
	if len(got) != len(want) || got["ec2:DescribeVpcs"] != want["ec2:DescribeVpcs"] || got["ec2:CreateVpc"] != want["ec2:CreateVpc"] {
		t.Fatalf("byOperation = %v, want %v", got, want)
	}
}
