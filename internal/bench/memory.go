package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/liveheap"
)

// MemorySample is the operator's live heap after a forced collection with
// so many clusters.
type MemorySample struct {
	Clusters int   `json:"clusters"`
	Bytes    int64 `json:"bytes"`
}

// memorySamplesPerCount is how many samples each cluster count gets, so
// that their spread is seen.
const memorySamplesPerCount = 3

// memoryProcessesPerCount is how many freshly started operator processes
// are sampled at each cluster count: the live heap of two processes with
// the same clusters differs more than one process's samples do (five AWS
// runs with one process per count printed spreads of ± 0.6–1.9 KiB while
// their figures were up to 3.2 KiB apart), so the spread takes in both.
const memoryProcessesPerCount = 2

// memorySampleGap spaces a count's samples, so that they see the operator
// in different moments of its work rather than the same one thrice.
const memorySampleGap = 2 * time.Second

// memoryMethod says how the figure is made; the report prints it beside
// the figure.
const memoryMethod = "live heap after a forced collection (the operator's --debug-live-heap endpoint): with all N clusters and with N − N/2 after deleting N/2, two freshly restarted operator processes per count, 3 samples each after the process's first full pass; slope by least squares; spread ± (range of the samples at the lowest count + range at the highest, both processes') ÷ (2 × the counts' difference)"

// heapClient bounds each read: a forced collection takes milliseconds, so
// an endpoint that does not answer in this time is not going to.
var heapClient = &http.Client{Timeout: 30 * time.Second}

// heapProbe reads the management operator's live heap (devenv runs it as
// its own process with --debug-live-heap).
type heapProbe struct {
	url     string
	samples []MemorySample
}

// newHeapProbe probes the operator whose metrics are at metricsURL ("" or
// an in-process operator: no probe, nil).
func newHeapProbe(metricsURL string, ownProcess bool) *heapProbe {
	if metricsURL == "" || !ownProcess {
		return nil
	}
	return &heapProbe{url: strings.TrimSuffix(metricsURL, "/metrics") + liveheap.Path}
}

// sample takes memorySamplesPerCount samples at this cluster count.
func (p *heapProbe) sample(ctx context.Context, clusters int) error {
	if p == nil {
		return nil
	}
	for i := range memorySamplesPerCount {
		if i > 0 {
			select {
			case <-time.After(memorySampleGap):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		b, err := p.readWhenUp(ctx)
		if err != nil {
			return fmt.Errorf("reading the operator's live heap: %w", err)
		}
		p.samples = append(p.samples, MemorySample{Clusters: clusters, Bytes: b})
	}
	return nil
}

// operatorUpTimeout bounds the wait for a just-started operator's metrics
// endpoint to answer.
const operatorUpTimeout = time.Minute

// readWhenUp reads the live heap, polling while the endpoint does not
// answer yet (the operator process has just started).
func (p *heapProbe) readWhenUp(ctx context.Context) (int64, error) {
	deadline := time.Now().Add(operatorUpTimeout)
	for {
		b, err := p.read(ctx)
		if err == nil || time.Now().After(deadline) {
			return b, err
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (p *heapProbe) read(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := heapClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s answered %s", p.url, resp.Status)
	}
	var s liveheap.Sample
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return 0, err
	}
	return int64(s.LiveHeapBytes), nil
}

// fitMemory is the memory each further cluster costs: the least-squares
// slope of bytes over clusters, and its spread, half the width between
// the steepest and the flattest slope the end counts' samples allow
// ((range at the lowest count + range at the highest) ÷ 2 ÷ the counts'
// difference). Both are 0 with fewer than two distinct counts.
func fitMemory(samples []MemorySample) (slope, spread float64) {
	lo, hi := math.MaxInt, math.MinInt
	var sx, sy float64
	for _, s := range samples {
		lo, hi = min(lo, s.Clusters), max(hi, s.Clusters)
		sx += float64(s.Clusters)
		sy += float64(s.Bytes)
	}
	if len(samples) < 2 || lo == hi {
		return 0, 0
	}
	n := float64(len(samples))
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for _, s := range samples {
		dx := float64(s.Clusters) - mx
		sxy += dx * (float64(s.Bytes) - my)
		sxx += dx * dx
	}
	return sxy / sxx, (rangeAt(samples, lo) + rangeAt(samples, hi)) / 2 / float64(hi-lo)
}

// rangeAt is the difference between the largest and smallest sample at
// this cluster count.
func rangeAt(samples []MemorySample, clusters int) float64 {
	first := true
	var lo, hi int64
	for _, s := range samples {
		if s.Clusters != clusters {
			continue
		}
		if first {
			lo, hi, first = s.Bytes, s.Bytes, false
		}
		lo, hi = min(lo, s.Bytes), max(hi, s.Bytes)
	}
	return float64(hi - lo)
}

// taken is the samples so far (none without a probe).
func (p *heapProbe) taken() []MemorySample {
	if p == nil {
		return nil
	}
	return p.samples
}
