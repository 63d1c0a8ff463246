package awshttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestApplyHidesWriteToAndIsIdempotent(t *testing.T) {
	var sawWriterTo bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b)
	}))
	defer srv.Close()

	cfg := aws.Config{HTTPClient: recordingClient{next: srv.Client(), sawWriterTo: &sawWriterTo}}
	Apply(&cfg)
	Apply(&cfg)
	if inner, ok := cfg.HTTPClient.(client); !ok {
		t.Fatalf("HTTPClient is %T, want the wrapper", cfg.HTTPClient)
	} else if _, twice := inner.next.(client); twice {
		t.Fatal("Apply wrapped the client twice")
	}

	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("Action=DescribeVpcs")))
	resp, err := cfg.HTTPClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != "Action=DescribeVpcs" {
		t.Fatalf("body arrived as %q", got)
	}
	if sawWriterTo {
		t.Fatal("the request body still offered WriteTo to the transport")
	}
}

func TestApplyWithoutClientUsesTheSDKDefault(t *testing.T) {
	var cfg aws.Config
	Apply(&cfg)
	if _, ok := cfg.HTTPClient.(client); !ok {
		t.Fatalf("HTTPClient is %T, want the wrapper", cfg.HTTPClient)
	}
}

// TestResponseTimeout: a server that accepts the call and never answers
// fails it after the response timeout instead of holding the caller.
func TestResponseTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	cfg := aws.Config{HTTPClient: srv.Client()}
	ApplyTimeout(&cfg, 200*time.Millisecond)
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("Action=DescribeVpcs")))
	start := time.Now()
	resp, err := cfg.HTTPClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a call that never got an answer succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want a deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v", took)
	}
}

func TestDefaultResponseTimeout(t *testing.T) {
	var cfg aws.Config
	Apply(&cfg)
	if c := cfg.HTTPClient.(client); c.timeout != DefaultResponseTimeout || DefaultResponseTimeout < 10*time.Second || DefaultResponseTimeout > time.Minute {
		t.Errorf("timeout %v, want the default of %v (between 10 s and a minute)", c.timeout, DefaultResponseTimeout)
	}
}

type recordingClient struct {
	next        aws.HTTPClient
	sawWriterTo *bool
}

func (c recordingClient) Do(r *http.Request) (*http.Response, error) {
	_, *c.sawWriterTo = r.Body.(io.WriterTo)
	return c.next.Do(r)
}
