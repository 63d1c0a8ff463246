// Package cloudsim is hcplink's local cloud: an HTTP(S) server on 127.0.0.1
// that speaks the real AWS wire protocols, Azure Resource Manager and
// Entra ID, and Google Cloud's REST APIs for the operations hcplink uses, with per-account state,
// asynchronous resource states, fault injection and a JSON control API
// (/_cloudsim/...) for tests, benchmarks and the demo.
package cloudsim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Options configure a Server. The zero value is a quiet, fast cloud on the
// wall clock: no throttling, no injected errors, sim.FastDelays.
type Options struct {
	Clock  sim.Clock
	Delays *sim.Delays
	Faults *sim.FaultConfig
	// TLS serves HTTPS with a certificate signed by a CA generated at
	// start (see CACertPEM). Azure clients need it: they refuse to send
	// bearer tokens over plain HTTP.
	TLS bool
	// AzureDelays override the Azure half's named delays (nil: fast).
	AzureDelays azure.Delays
	// IssuerKeys finds workload identity issuers' keys for Entra ID and
	// Google's STS (nil: fetched from the issuer's discovery document).
	IssuerKeys sim.KeySource
	// GCPDelays override the GCP half's operation and DNS change delays (nil: fast).
	GCPDelays *gcp.Delays
}

// Server is the local cloud.
type Server struct {
	Clock    sim.Clock
	Faults   *sim.Faults
	Counters *sim.Counters
	Ledger   *sim.Ledger
	AWS      *aws.Cloud
	Azure    *azure.Cloud
	GCP      *gcp.Cloud

	mux       *http.ServeMux
	transport *transportFaults
	ca        *certAuthority
	listener  net.Listener
	http      *http.Server
}

// New builds a server; Start or Handler puts it to work.
func New(opts Options) *Server {
	clock := opts.Clock
	if clock == nil {
		clock = sim.RealClock{}
	}
	delays := sim.FastDelays()
	if opts.Delays != nil {
		delays = *opts.Delays
	}
	s := &Server{Clock: clock, Faults: sim.NewFaults(clock), Counters: sim.NewCounters(), Ledger: sim.NewLedger()}
	if opts.Faults != nil {
		s.Faults.Set(*opts.Faults)
	}
	s.AWS = aws.New(aws.Deps{Clock: clock, Faults: s.Faults, Counters: s.Counters, Delays: delays, Ledger: s.Ledger})
	s.Azure = azure.New(azure.Deps{Clock: clock, Faults: s.Faults, Counters: s.Counters, Delays: opts.AzureDelays, IssuerKeys: opts.IssuerKeys, Ledger: s.Ledger})
	s.GCP = gcp.New(gcp.Deps{Clock: clock, Faults: s.Faults, Counters: s.Counters, Delays: opts.GCPDelays, IssuerKeys: opts.IssuerKeys, Ledger: s.Ledger})
	s.mux = http.NewServeMux()
	s.transport = &transportFaults{faults: s.Faults, next: http.HandlerFunc(s.serveCloud)}
	s.registerControl(s.mux)
	s.mux.Handle("/", s.transport)
	if opts.TLS {
		ca, err := newCertAuthority()
		if err != nil {
			panic(fmt.Sprintf("cloudsim: generating its certificate authority: %v", err))
		}
		s.ca = ca
	}
	return s
}

// serveCloud sends Resource Manager and Entra ID paths to the Azure half,
// Google's API paths (/compute/v1/, /dns/v1/, ...) to the GCP half, and
// everything else to the AWS half, whose protocols all post to "/" or to
// paths no other API uses.
func (s *Server) serveCloud(w http.ResponseWriter, r *http.Request) {
	if gcp.IsGCPPath(r.URL.Path) {
		s.GCP.ServeHTTP(w, r)
		return
	}
	if azure.IsAzurePath(r.URL.Path) {
		s.Azure.ServeHTTP(w, r)
		return
	}
	s.AWS.ServeHTTP(w, r)
}

// Handler returns the server's HTTP handler (cloud APIs and control API).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		collapseAzureSlashes(r)
		s.mux.ServeHTTP(w, r)
	})
}

// collapseAzureSlashes turns "//subscriptions/..." into "/subscriptions/...":
// the Azure SDKs build "/{scope}/providers/..." and a scope given with its
// leading slash doubles it. ARM tolerates that; ServeMux would answer 301.
func collapseAzureSlashes(r *http.Request) {
	if !strings.Contains(r.URL.Path, "//") {
		return
	}
	collapse := func(p string) string {
		for strings.Contains(p, "//") {
			p = strings.ReplaceAll(p, "//", "/")
		}
		return p
	}
	if path := collapse(r.URL.Path); azure.IsAzurePath(path) {
		r.URL.Path = path
		r.URL.RawPath = collapse(r.URL.RawPath)
	}
}

// Start listens on addr (e.g. "127.0.0.1:0") and serves in the background
// until ctx ends or Close is called. It returns once the port is open.
func (s *Server) Start(ctx context.Context, addr string) error {
	if !strings.HasPrefix(addr, "127.") && !strings.HasPrefix(addr, "localhost:") && !strings.HasPrefix(addr, "[::1]:") {
		return fmt.Errorf("cloudsim listens on loopback only, not %q", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if s.ca != nil {
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{s.ca.serving}, MinVersion: tls.VersionTLS12})
	}
	s.listener = l
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(fmt.Sprintf("cloudsim: serving: %v", err))
		}
	}()
	go func() {
		<-ctx.Done()
		_ = s.Close()
	}()
	return nil
}

// URL is the endpoint to give the SDKs (AWS_ENDPOINT_URL) once started.
func (s *Server) URL() string {
	if s.ca != nil {
		return "https://" + s.listener.Addr().String()
	}
	return "http://" + s.listener.Addr().String()
}

// Close stops serving.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.http.Shutdown(ctx)
}

// Reset forgets all cloud state and call counts, and stops the ledger;
// faults stay as they are.
func (s *Server) Reset() {
	s.Ledger.Stop()
	s.AWS.Reset()
	s.Azure.Reset()
	s.GCP.Reset()
	s.Counters.Reset()
	s.transport.reset()
}
