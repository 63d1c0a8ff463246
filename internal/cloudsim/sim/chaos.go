package sim

import (
	"net"
	"net/http"
	"time"
)

// Chaos is background misbehaviour at rates, as a fleet meets it all the
// time rather than one fault at a time: the soak's weather. Each rate is a
// probability (0..1) per call, drawn from the fault configuration's seeded
// generator, so a run with the same seed and the same order of calls meets
// the same faults. Every cloud answers the throttling and server errors in
// its own dialect; the transport faults (spikes, resets, lost replies) are
// cloud-neutral and happen before the clouds see the call.
type Chaos struct {
	// ThrottleRate throttles calls on top of the clouds' buckets.
	ThrottleRate float64 `json:"throttleRate,omitempty"`
	// ServerErrorRate fails calls with a 500 or a 503, half each.
	ServerErrorRate float64 `json:"serverErrorRate,omitempty"`
	// SpikeRate delays calls by Spike before the cloud reads them.
	SpikeRate float64  `json:"spikeRate,omitempty"`
	Spike     Duration `json:"spike,omitempty"`
	// ResetRate closes the connection before the cloud reads the call:
	// nothing happened, the client sees a reset.
	ResetRate float64 `json:"resetRate,omitempty"`
	// LostReplyRate lets the cloud do the call and then closes the
	// connection instead of answering: the work is done, the client does
	// not know it (the case a create's idempotency token exists for).
	LostReplyRate float64 `json:"lostReplyRate,omitempty"`
	// Consistency delays what describes and listings show (see Consistency).
	Consistency Consistency `json:"consistency"`
}

// Consistency is eventual consistency of reads: AWS documents that EC2's
// API "follows an eventual consistency model": a resource just created may
// be missing from describes (InvalidGroup.NotFound right after
// CreateSecurityGroup is its example), and results of other commands may
// show late (https://docs.aws.amazon.com/ec2/latest/devguide/eventual-consistency.html).
type Consistency struct {
	// CreateLag hides a newly created resource from describes and
	// listings for this long.
	CreateLag Duration `json:"createLag,omitempty"`
	// DeleteLag keeps a deleted resource in describes and listings for
	// this long, as it last was.
	DeleteLag Duration `json:"deleteLag,omitempty"`
}

// ChaosFault is the rate-drawn fault a cloud answers a call with.
type ChaosFault int

const (
	NoChaos ChaosFault = iota
	// ChaosThrottle: the cloud's own throttling error.
	ChaosThrottle
	// ChaosInternal: the cloud's own 500.
	ChaosInternal
	// ChaosUnavailable: the cloud's own 503.
	ChaosUnavailable
)

// TransportFault is what happens to a call's connection.
type TransportFault int

const (
	NoTransportFault TransportFault = iota
	// Reset: closed before the cloud reads the call.
	Reset
	// LostReply: the cloud does the call; the answer never leaves.
	LostReply
)

// TransportDecision is what the transport faults say about one call.
type TransportDecision struct {
	Spike time.Duration
	Fault TransportFault
}

// chaosFault draws a call's cloud-level fault. Callers hold f.mu.
func (f *Faults) chaosFault() ChaosFault {
	ch := f.cfg.Chaos
	if ch == nil {
		return NoChaos
	}
	if ch.ThrottleRate > 0 && f.rng.Float64() < ch.ThrottleRate {
		return ChaosThrottle
	}
	if ch.ServerErrorRate > 0 && f.rng.Float64() < ch.ServerErrorRate {
		if f.rng.Intn(2) == 0 {
			return ChaosInternal
		}
		return ChaosUnavailable
	}
	return NoChaos
}

// DecideTransport draws a call's transport faults.
func (f *Faults) DecideTransport() TransportDecision {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := f.cfg.Chaos
	var d TransportDecision
	if ch == nil {
		return d
	}
	if ch.SpikeRate > 0 && f.rng.Float64() < ch.SpikeRate {
		d.Spike = ch.Spike.D()
	}
	switch {
	case ch.ResetRate > 0 && f.rng.Float64() < ch.ResetRate:
		d.Fault = Reset
	case ch.LostReplyRate > 0 && f.rng.Float64() < ch.LostReplyRate:
		d.Fault = LostReply
	}
	return d
}

// ConsistencyLags returns the eventual-consistency lags in force.
func (f *Faults) ConsistencyLags() Consistency {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cfg.Chaos == nil {
		return Consistency{}
	}
	return f.cfg.Chaos.Consistency
}

// ResetConnection takes the connection from the HTTP server and closes it
// with a TCP reset (linger 0), so the client sees "connection reset by
// peer" rather than a clean end of stream.
func ResetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	raw := conn
	if nc, ok := conn.(interface{ NetConn() net.Conn }); ok { // TLS
		raw = nc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}
