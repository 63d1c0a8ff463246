package cloudsim

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The control API, all JSON under /_cloudsim/:
//
//	GET    /_cloudsim/state    every AWS account's, Azure subscription's and GCP project's resources
//	POST   /_cloudsim/reset    forget all resources and call counts, in all three clouds
//	GET    /_cloudsim/faults   the fault configuration in force
//	PUT    /_cloudsim/faults   replace it (sim.FaultConfig)
//	GET    /_cloudsim/delays   how long asynchronous states last
//	PUT    /_cloudsim/delays   replace them (sim.Delays; "fast"/"realistic" presets via ?preset=, for every cloud)
//	GET    /_cloudsim/calls    per-account (AWS), per-subscription (Azure) and per-project (GCP), per-operation call counts
//	GET    /_cloudsim/calls/by-principal  the same per caller where it is known (Azure: subscription → principal object ID → operation)
//	DELETE /_cloudsim/calls    reset the counts
func (s *Server) registerControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /_cloudsim/state", func(w http.ResponseWriter, _ *http.Request) {
		awsState, err := s.AWS.Snapshot()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		azureState, err := s.Azure.Snapshot()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		gcpState, err := s.GCP.Snapshot()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]json.RawMessage{"aws": awsState, "azure": azureState, "gcp": gcpState})
	})
	mux.HandleFunc("POST /_cloudsim/reset", func(w http.ResponseWriter, _ *http.Request) {
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /_cloudsim/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Faults.Get())
	})
	mux.HandleFunc("PUT /_cloudsim/faults", func(w http.ResponseWriter, r *http.Request) {
		var cfg sim.FaultConfig
		if err := decodeStrict(r, &cfg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.Faults.Set(cfg)
		s.Azure.ResetThrottling()
		s.GCP.ResetQuotas()
		writeJSON(w, cfg)
	})
	mux.HandleFunc("GET /_cloudsim/delays", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.AWS.Delays())
	})
	mux.HandleFunc("PUT /_cloudsim/delays", func(w http.ResponseWriter, r *http.Request) {
		var d sim.Delays
		switch preset := r.URL.Query().Get("preset"); preset {
		case "fast":
			d = sim.FastDelays()
			s.Azure.SetDelays(azure.FastDelays())
			s.GCP.SetDelays(gcp.FastDelays())
		case "realistic":
			d = sim.RealisticDelays()
			s.Azure.SetDelays(azure.RealisticDelays())
			s.GCP.SetDelays(gcp.RealisticDelays())
		case "":
			if err := decodeStrict(r, &d); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		default:
			http.Error(w, fmt.Sprintf("unknown preset %q: use fast or realistic", preset), http.StatusBadRequest)
			return
		}
		s.AWS.SetDelays(d)
		writeJSON(w, d)
	})
	s.registerAzureControl(mux)
	s.registerGCPControl(mux)
	s.registerChaosControl(mux)
	s.registerLedgerControl(mux)
	mux.HandleFunc("GET /_cloudsim/calls", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Counters.Snapshot())
	})
	mux.HandleFunc("GET /_cloudsim/calls/by-principal", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Counters.SnapshotByPrincipal())
	})
	mux.HandleFunc("DELETE /_cloudsim/calls", func(w http.ResponseWriter, _ *http.Request) {
		s.Counters.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
}

func decodeStrict(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding request body: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
