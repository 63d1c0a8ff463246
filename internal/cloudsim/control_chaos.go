package cloudsim

import "net/http"

// The transport faults' counts, JSON under /_cloudsim/:
//
//	GET    /_cloudsim/transport  spikes, resets and lost replies dealt (TransportCounts)
//	DELETE /_cloudsim/transport  reset them
//
// The rates themselves are part of the fault configuration
// (PUT /_cloudsim/faults with "chaos": sim.Chaos).
func (s *Server) registerChaosControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /_cloudsim/transport", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.transport.counts())
	})
	mux.HandleFunc("DELETE /_cloudsim/transport", func(w http.ResponseWriter, _ *http.Request) {
		s.transport.reset()
		w.WriteHeader(http.StatusNoContent)
	})
}

// TransportCounts returns the transport faults dealt so far.
func (s *Server) TransportCounts() TransportCounts { return s.transport.counts() }
