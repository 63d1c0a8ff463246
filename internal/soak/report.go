package soak

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Report is a soak's result, one JSON object.
type Report struct {
	Platform         string        `json:"platform"`
	ClustersPerCloud int           `json:"clustersPerCloud"`
	Duration         string        `json:"duration"`
	Seed             int64         `json:"seed"`
	Clouds           []CloudReport `json:"clouds"`
	// Pass: every cloud 100 % converged, no duplicate, leak, foreign
	// resource touched or hot loop.
	Pass     bool     `json:"pass"`
	Problems []string `json:"problems"`
	// NotDone are the faults of the issue this soak does not make yet.
	NotDone []string `json:"notDone"`
}

// CloudReport is one cloud's figures.
type CloudReport struct {
	Cloud    string `json:"cloud"`
	Clusters int    `json:"clusters"`
	// Capacity, when set, is how many clusters the cloud holds at once in
	// devenv, and why.
	Capacity       int            `json:"capacity,omitempty"`
	CapacityReason string         `json:"capacityReason,omitempty"`
	Actions        map[string]int `json:"actions"`
	ActionErrors   map[string]int `json:"actionErrors"`
	Drifts         map[string]int `json:"drifts"`
	// What the faults did to the cloud's calls during the faulty period.
	CloudCalls sim.CallCount            `json:"cloudCalls"`
	Transport  cloudsim.TransportCounts `json:"transport"`
	// After the faults stop.
	Present           int     `json:"present"`
	Converged         int     `json:"converged"`
	ConvergedPercent  float64 `json:"convergedPercent"`
	SecondsToConverge float64 `json:"secondsToConverge"`
	// NotConverged names the clusters that did not settle, and why.
	NotConverged []string `json:"notConverged,omitempty"`
	// On the settled fleet.
	ReconcilesPerClusterMinute   map[string]float64 `json:"reconcilesPerClusterMinute"`
	HotLoops                     []HotLoop          `json:"hotLoops"`
	OperatorRestarts             int                `json:"operatorRestarts"`
	ControlPlaneOperatorRestarts int                `json:"controlPlaneOperatorRestarts"`
	// OperatorReplicaExits: replicas of the management operator whose run
	// ended on their own (the Lease lost to a slow API server) and which
	// devenv started again as the kubelet would; not the soak's kills.
	OperatorReplicaExits int `json:"operatorReplicaExits"`
	// OperatorReplicas: the management operator's replicas (leader
	// election on when more than one). LeaderKills: times the leading
	// replica was killed and another took over; LeaderHandovers: the
	// Lease's changes of hands over the run (the killer's random replica
	// kills hit the leader too).
	OperatorReplicas int `json:"operatorReplicas"`
	LeaderKills      int `json:"leaderKills"`
	LeaderHandovers  int `json:"leaderHandovers"`
	// APIServerRestarts: how many times the API server was restarted.
	APIServerRestarts int `json:"apiServerRestarts"`
	// CredentialRevocations: how many times one cluster's cloud
	// credentials were revoked for a while and restored.
	CredentialRevocations int `json:"credentialRevocations"`
	// UntrueConditions are conditions that said the cloud refused the
	// credentials while they were granted.
	UntrueConditions []string `json:"untrueConditions"`
	// ProcessLiveHeapBytes is this process's live heap after a collection
	// on the settled fleet: both operators run in it, with cloudsim and
	// devenv's stand-ins.
	ProcessLiveHeapBytes uint64 `json:"processLiveHeapBytes"`
	// After deleting everything.
	Ledger   sim.LedgerReport `json:"ledger"`
	Problems []string         `json:"problems,omitempty"`
}

// notDone: the faults that are not made yet.
var notDone = []string{
	"GCP reads a few seconds behind: Google documents Compute Engine's changes as operations (cloudsim's are asynchronous, and hcplink waits on them) but no lag of its reads, so none is made; nor the minutes an IAM change takes to propagate",
}

// judge sets Pass and Problems.
func (r *Report) judge() {
	r.NotDone = notDone
	r.Problems = []string{}
	for _, c := range r.Clouds {
		add := func(format string, args ...any) {
			r.Problems = append(r.Problems, c.Cloud+": "+fmt.Sprintf(format, args...))
		}
		if c.Converged != c.Present {
			add("%d of %d clusters converged", c.Converged, c.Present)
		}
		if n := len(c.Ledger.Duplicates); n > 0 {
			add("%d duplicates", n)
		}
		if n := leakCount(c.Ledger); n > 0 {
			add("%d resources leaked", n)
		}
		if n := len(c.Ledger.ForeignTouched); n > 0 {
			add("%d mutating calls on foreign resources", n)
		}
		for _, u := range c.UntrueConditions {
			add("a condition not true at the time: %s", u)
		}
		for _, h := range c.HotLoops {
			if h.Object != "" {
				add("hot loop in %s on %s: %.1f reconciles per minute (policy %.0f)", h.Controller, h.Object, h.ReconcilesPerObjectMin, h.Policy)
				continue
			}
			add("hot loop in %s: %.1f reconciles per cluster per minute (policy %.0f)", h.Controller, h.ReconcilesPerClusterMin, h.Policy)
		}
		for _, p := range c.Problems {
			add("%s", p)
		}
	}
	r.Pass = len(r.Problems) == 0
}

func (r *Report) write(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "soak\t%s, %d clusters per cloud, %s, seed %d\n", r.Platform, r.ClustersPerCloud, r.Duration, r.Seed)
	for _, c := range r.Clouds {
		fmt.Fprintf(tw, "\n%s\t\n", strings.ToUpper(c.Cloud))
		fmt.Fprintf(tw, "  actions\t%s\n", counts(c.Actions))
		fmt.Fprintf(tw, "  action errors\t%s\n", counts(c.ActionErrors))
		fmt.Fprintf(tw, "  drift made\t%s\n", counts(c.Drifts))
		fmt.Fprintf(tw, "  cloud calls\t%d (%d throttled, %d failed); %d spikes, %d resets, %d lost replies\n",
			c.CloudCalls.Total, c.CloudCalls.Throttled, c.CloudCalls.Failed, c.Transport.Spikes, c.Transport.Resets, c.Transport.LostReplies)
		fmt.Fprintf(tw, "  operator restarts\t%d management (and %d exits on their own), %d control-plane; API server restarted %d times\n", c.OperatorRestarts, c.OperatorReplicaExits, c.ControlPlaneOperatorRestarts, c.APIServerRestarts)
		fmt.Fprintf(tw, "  leader election\t%d replicas; leader killed %d times; %d handovers\n", c.OperatorReplicas, c.LeaderKills, c.LeaderHandovers)
		fmt.Fprintf(tw, "  credentials revoked\t%d times; %d conditions not true at the time\n", c.CredentialRevocations, len(c.UntrueConditions))
		fmt.Fprintf(tw, "  converged\t%d of %d (%.0f %%) %.0f s after the faults stopped\n", c.Converged, c.Present, c.ConvergedPercent, c.SecondsToConverge)
		for _, n := range c.NotConverged {
			fmt.Fprintf(tw, "  not converged\t%s\n", n)
		}
		fmt.Fprintf(tw, "  hot loops\t%d\n", len(c.HotLoops))
		fmt.Fprintf(tw, "  duplicates\t%d\n", len(c.Ledger.Duplicates))
		fmt.Fprintf(tw, "  leaks\t%d\n", leakCount(c.Ledger))
		fmt.Fprintf(tw, "  foreign resources touched\t%d\n", len(c.Ledger.ForeignTouched))
		fmt.Fprintf(tw, "  process live heap\t%.1f MiB\n", float64(c.ProcessLiveHeapBytes)/(1<<20))
	}
	fmt.Fprintf(tw, "\npass\t%v\n", r.Pass)
	for _, p := range r.Problems {
		fmt.Fprintf(tw, "  problem\t%s\n", p)
	}
	fmt.Fprintf(tw, "not done yet\t%s\n", strings.Join(r.NotDone, "; "))
	return tw.Flush()
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
