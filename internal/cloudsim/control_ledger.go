package cloudsim

import (
	"net/http"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The ledger, JSON under /_cloudsim/ (all three clouds):
//
//	PUT    /_cloudsim/ledger  start a history afresh (sim.LedgerConfig): what exists now is the baseline
//	GET    /_cloudsim/ledger  its report (sim.LedgerReport): duplicates, leaks by account, foreign resources touched
//	DELETE /_cloudsim/ledger  stop recording; the report stays readable
func (s *Server) registerLedgerControl(mux *http.ServeMux) {
	mux.HandleFunc("PUT /_cloudsim/ledger", func(w http.ResponseWriter, r *http.Request) {
		var cfg sim.LedgerConfig
		if err := decodeStrict(r, &cfg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.StartLedger(cfg)
		writeJSON(w, cfg)
	})
	mux.HandleFunc("GET /_cloudsim/ledger", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.LedgerReport())
	})
	mux.HandleFunc("DELETE /_cloudsim/ledger", func(w http.ResponseWriter, _ *http.Request) {
		s.Ledger.Stop()
		w.WriteHeader(http.StatusNoContent)
	})
}

// StartLedger begins a history with every cloud's resources as its baseline.
func (s *Server) StartLedger(cfg sim.LedgerConfig) {
	s.Ledger.Start(cfg, s.Clock.Now(), s.AWS.Inventory(), s.Azure.Inventory(), s.GCP.Inventory())
}

// LedgerReport brings the history up to date (deletions that completed
// without a call since, such as an endpoint that finished deleting) and
// judges it.
func (s *Server) LedgerReport() sim.LedgerReport {
	now := s.Clock.Now()
	s.Ledger.Observe("aws", s.AWS.Inventory(), "", now)
	s.Ledger.Observe("azure", s.Azure.Inventory(), "", now)
	s.Ledger.Observe("gcp", s.GCP.Inventory(), "", now)
	return s.Ledger.Report()
}
