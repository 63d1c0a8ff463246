// Package diagnose walks a hosted cluster's private path hop by hop, from
// Kubernetes and from whatever cloud credentials are at hand, and says for
// each hop whether it holds (✓), is broken (✗, with one sentence of what to
// do) or could not be checked (?, with why). It only ever reads.
package diagnose

import "slices"

// Verdict is what a hop's check concluded.
type Verdict string

const (
	// Pass: the hop holds.
	Pass Verdict = "pass"
	// Fail: the hop is broken; Hop.Fix says what to do.
	Fail Verdict = "fail"
	// Unknown: the hop could not be checked; Hop.Why says why.
	Unknown Verdict = "unknown"
)

// Mark is the verdict's one-character sign.
func (v Verdict) Mark() string {
	switch v {
	case Pass:
		return "✓"
	case Fail:
		return "✗"
	}
	return "?"
}

// Side is whose the hop is: the management cluster's Kubernetes, the
// management account or subscription, or the customer's (guest's).
type Side string

const (
	SideKubernetes Side = "kubernetes"
	SideManagement Side = "management"
	SideCustomer   Side = "customer"
)

// Hop is one step of the private path and what the walk saw there.
type Hop struct {
	Name string `json:"name"`
	Side Side   `json:"side"`
	// Endpoint names the private endpoint (AWSEndpointService or
	// AzurePrivateLinkService, like its Service) whose path the hop is on;
	// empty for the hops every path shares.
	Endpoint string  `json:"endpoint,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// Seen lists what was observed: IDs, states, values.
	Seen string `json:"seen,omitempty"`
	// Fix is one plain sentence of what to do (Fail only).
	Fix string `json:"fix,omitempty"`
	// Why says why the hop could not be checked (Unknown only).
	Why string `json:"why,omitempty"`
	// Note is advice that does not make the hop fail.
	Note string `json:"note,omitempty"`
}

// Report is the whole walk of one cluster.
type Report struct {
	Cluster  string `json:"cluster"`
	Platform string `json:"platform"`
	// Management and Customer name the two clouds' accounts or
	// subscriptions as far as they are known (for the picture).
	Management string `json:"management,omitempty"`
	Customer   string `json:"customer,omitempty"`
	Hops       []Hop  `json:"hops"`
}

// Exit codes of a diagnosis.
const (
	ExitHealthy    = 0
	ExitBroken     = 1
	ExitIncomplete = 2
)

// ExitCode is 0 when every hop holds, 1 when one is broken, 2 when none is
// broken but some could not be checked.
func (r Report) ExitCode() int {
	code := ExitHealthy
	for _, h := range r.Hops {
		switch h.Verdict {
		case Fail:
			return ExitBroken
		case Unknown:
			code = ExitIncomplete
		}
	}
	return code
}

// Endpoints are the private endpoints the report walks, in path order.
func (r Report) Endpoints() []string {
	var out []string
	for _, h := range r.Hops {
		if h.Endpoint != "" && !slices.Contains(out, h.Endpoint) {
			out = append(out, h.Endpoint)
		}
	}
	return out
}

// Where names a hop for a person: with its endpoint when the report walks
// more than one, so that two "VPC endpoint" hops can be told apart.
func (r Report) Where(h Hop) string {
	if h.Endpoint == "" || len(r.Endpoints()) < 2 {
		return h.Name
	}
	return h.Name + " (" + h.Endpoint + ")"
}

// FirstFailure is the first broken hop, nil when there is none.
func (r Report) FirstFailure() *Hop {
	for i := range r.Hops {
		if r.Hops[i].Verdict == Fail {
			return &r.Hops[i]
		}
	}
	return nil
}

func pass(name string, side Side, seen string) Hop {
	return Hop{Name: name, Side: side, Verdict: Pass, Seen: seen}
}

func fail(name string, side Side, seen, fix string) Hop {
	return Hop{Name: name, Side: side, Verdict: Fail, Seen: seen, Fix: fix}
}

func unknown(name string, side Side, why string) Hop {
	return Hop{Name: name, Side: side, Verdict: Unknown, Why: why}
}
