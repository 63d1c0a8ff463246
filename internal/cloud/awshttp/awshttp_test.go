package awshttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

type recordingClient struct {
	next        aws.HTTPClient
	sawWriterTo *bool
}

func (c recordingClient) Do(r *http.Request) (*http.Response, error) {
	_, *c.sawWriterTo = r.Body.(io.WriterTo)
	return c.next.Do(r)
}
