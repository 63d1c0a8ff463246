package cloudsim

import (
	"net/http"
	"sync/atomic"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// TransportCounts are the transport faults the cloud has dealt since the
// counters were last reset: calls delayed by a spike, connections reset
// before the call was read, and calls done whose answer was lost.
type TransportCounts struct {
	Spikes      int64 `json:"spikes"`
	Resets      int64 `json:"resets"`
	LostReplies int64 `json:"lostReplies"`
}

// transportFaults applies sim.Chaos's cloud-neutral faults in front of all
// three clouds: the clouds never see a reset call, and a lost reply's
// answer is written to a buffer nobody reads.
type transportFaults struct {
	faults *sim.Faults
	next   http.Handler

	spikes, resets, lostReplies atomic.Int64
}

func (t *transportFaults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d := t.faults.DecideTransport()
	if d.Spike > 0 {
		t.spikes.Add(1)
		if !sim.SleepContext(r.Context(), d.Spike) {
			return
		}
	}
	switch d.Fault {
	case sim.Reset:
		t.resets.Add(1)
		sim.ResetConnection(w)
		return
	case sim.LostReply:
		t.lostReplies.Add(1)
		t.next.ServeHTTP(&discardingWriter{header: http.Header{}}, r)
		sim.ResetConnection(w)
		return
	}
	t.next.ServeHTTP(w, r)
}

func (t *transportFaults) counts() TransportCounts {
	return TransportCounts{Spikes: t.spikes.Load(), Resets: t.resets.Load(), LostReplies: t.lostReplies.Load()}
}

func (t *transportFaults) reset() {
	t.spikes.Store(0)
	t.resets.Store(0)
	t.lostReplies.Store(0)
}

// discardingWriter takes the answer of a call whose reply is lost.
type discardingWriter struct{ header http.Header }

func (d *discardingWriter) Header() http.Header         { return d.header }
func (d *discardingWriter) WriteHeader(int)             {}
func (d *discardingWriter) Write(b []byte) (int, error) { return len(b), nil }
