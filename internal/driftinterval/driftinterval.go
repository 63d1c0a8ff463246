// Package driftinterval holds each cloud's default drift-check interval, written
// once for both operators: how often a healthy private path is compared
// with the cloud. The interval bounds how long a change made behind the
// operators' backs lasts (at most one interval, plus its jitter), and
// sets the steady state's cost: calls per cluster-hour = calls per pass ×
// passes per hour (the bench prints both).
package driftinterval

import (
	"fmt"
	"strings"
	"time"
)

const (
	// AWS: ten minutes keeps a fleet within AWS's per-account
	// rates (about 3 reads per cluster a pass) while a deleted record or
	// endpoint comes back within one interval.
	AWS = 10 * time.Minute
	// Azure: five minutes, the reference's; ARM's buckets are per
	// principal and refill faster than AWS's account-wide ones.
	Azure = 5 * time.Minute
)

// Default is one platform's default.
type Default struct {
	// Platform is the --private-platform value ("AWS", "Azure").
	Platform string
	Interval time.Duration
}

// Defaults lists every platform's default, in a fixed order.
var Defaults = []Default{{Platform: "AWS", Interval: AWS}, {Platform: "Azure", Interval: Azure}}

// For returns the default interval of a platform (case-insensitive), 0 when
// it has none.
func For(platform string) time.Duration {
	for _, d := range Defaults {
		if strings.EqualFold(d.Platform, platform) {
			return d.Interval
		}
	}
	return 0
}

// Help describes the defaults for a flag's help ("AWS 10m0s, Azure 5m0s").
func Help() string {
	parts := make([]string, 0, len(Defaults))
	for _, d := range Defaults {
		parts = append(parts, fmt.Sprintf("%s %v", d.Platform, d.Interval))
	}
	return strings.Join(parts, ", ")
}
