package intervals

import (
	"fmt"
	"strings"
	"time"
)

// Each cloud's default drift-check interval, written once for both
// operators: how often a healthy private path is compared with the cloud.
// The interval bounds how long a change made behind the operators' backs
// lasts (at most one interval, plus its jitter), and sets the steady
// state's cost: calls per cluster-hour = calls per pass × passes per hour
// (the bench prints both).
const (
	// AWSDrift: ten minutes keeps a fleet within AWS's per-account
	// rates (about 3 reads per cluster a pass) while a deleted record or
	// endpoint comes back within one interval.
	AWSDrift = 10 * time.Minute
	// AzureDrift: five minutes, the reference's; ARM's buckets are per
	// principal and refill faster than AWS's account-wide ones.
	AzureDrift = 5 * time.Minute
	// GCPDrift: five minutes, the reference's; one read per cluster a pass
	// keeps a fleet far inside Compute Engine's per-project read rate
	// (https://cloud.google.com/compute/api-quota).
	GCPDrift = 5 * time.Minute
)

// DriftDefault is one platform's default drift interval.
type DriftDefault struct {
	// Platform is the --private-platform value ("AWS", "Azure", "GCP").
	Platform string
	Interval time.Duration
}

// DriftDefaults lists every platform's default, in a fixed order.
var DriftDefaults = []DriftDefault{{Platform: "AWS", Interval: AWSDrift}, {Platform: "Azure", Interval: AzureDrift}, {Platform: "GCP", Interval: GCPDrift}}

// DriftFor returns the default drift interval of a platform (case-insensitive), 0 when
// it has none.
func DriftFor(platform string) time.Duration {
	for _, d := range DriftDefaults {
		if strings.EqualFold(d.Platform, platform) {
			return d.Interval
		}
	}
	return 0
}

// DriftHelp describes the defaults for a flag's help ("AWS 10m0s, Azure 5m0s").
func DriftHelp() string {
	parts := make([]string, 0, len(DriftDefaults))
	for _, d := range DriftDefaults {
		parts = append(parts, fmt.Sprintf("%s %v", d.Platform, d.Interval))
	}
	return strings.Join(parts, ", ")
}
