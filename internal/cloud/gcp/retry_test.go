package gcp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// A call answered 500, 502, 503 or 504, or not at all, is sent again (its
// body too) up to callAttempts times; a 429, a rate quota's 403 and any
// other answer are returned at once, for the outcome policy to wait on.
func TestRetryingTransport(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []int // 0: reset the connection
		sent    int
		final   int // 0: an error
	}{
		{"ok at once", []int{200}, 1, 200},
		{"503 then ok", []int{503, 200}, 2, 200},
		{"500, 502 then ok", []int{500, 502, 200}, 3, 200},
		{"failing throughout", []int{503, 500, 504, 200}, callAttempts, 504},
		{"reset then ok", []int{0, 200}, 2, 200},
		{"429 waits for the policy", []int{429, 200}, 1, 429},
		{"rate quota 403 waits for the policy", []int{403, 200}, 1, 403},
		{"not found", []int{404, 200}, 1, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				n := len(bodies)
				bodies = append(bodies, string(b))
				mu.Unlock()
				answer := tc.answers[min(n, len(tc.answers)-1)]
				if answer == 0 {
					hj, _ := w.(http.Hijacker)
					conn, _, _ := hj.Hijack()
					_ = conn.Close()
					return
				}
				w.WriteHeader(answer)
			}))
			defer srv.Close()
			var waits []int
			client := &http.Client{Transport: retryingTransport{next: http.DefaultTransport,
				wait: func(n int, _ *http.Response) time.Duration { waits = append(waits, n); return time.Millisecond }}}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewBufferString(`{"name":"x"}`))
			resp, err := client.Do(req)
			switch {
			case tc.final == 0 && err == nil:
				t.Errorf("answered %d, want an error", resp.StatusCode)
			case tc.final != 0 && err != nil:
				t.Errorf("%v, want %d", err, tc.final)
			case tc.final != 0 && resp.StatusCode != tc.final:
				t.Errorf("answered %d, want %d", resp.StatusCode, tc.final)
			}
			if resp != nil {
				_ = resp.Body.Close()
			}
			if len(bodies) != tc.sent {
				t.Errorf("sent %d times, want %d", len(bodies), tc.sent)
			}
			for i, b := range bodies {
				if b != `{"name":"x"}` {
					t.Errorf("attempt %d sent body %q", i+1, b)
				}
			}
			if len(waits) != tc.sent-1 {
				t.Errorf("waited %d times, want %d", len(waits), tc.sent-1)
			}
		})
	}
}

// The waits follow Google's guidance: at least a second, doubling.
func TestRetryWait(t *testing.T) {
	for n, least := range map[int]time.Duration{2: time.Second, 3: 2 * time.Second} {
		for range 50 {
			if d := retryWait(n, nil); d < least || d > least*3/2 {
				t.Fatalf("wait before attempt %d: %v, want %v to %v", n, d, least, least*3/2)
			}
		}
	}
}
