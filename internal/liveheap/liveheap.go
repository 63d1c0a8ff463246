// Package liveheap serves a process's live heap: the bytes still reachable
// after a forced garbage collection. Resident memory says when the Go
// runtime last returned pages to the OS as much as what the process holds;
// the live heap after a collection is what its objects cost.
//
// Forcing a collection stops the world briefly and costs CPU, so the
// operators serve it only when asked (--debug-live-heap, off by default),
// on their metrics endpoint.
package liveheap

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/metrics"
)

// Path is where the operators serve it.
const Path = "/debug/live-heap"

// liveMetric is the heap the last collection marked live (Go 1.21+).
const liveMetric = "/gc/heap/live:bytes"

// Sample is the answer.
type Sample struct {
	// LiveHeapBytes is the heap marked live by a collection run for this
	// request.
	LiveHeapBytes uint64 `json:"liveHeapBytes"`
}

// Read forces a collection and returns the heap it found live.
func Read() Sample {
	runtime.GC()
	s := []metrics.Sample{{Name: liveMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return Sample{}
	}
	return Sample{LiveHeapBytes: s[0].Value.Uint64()}
}

// Handler answers GET with Read's Sample as JSON.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Read())
	})
}
