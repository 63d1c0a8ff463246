package liveheap

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// keep holds the test's allocation where the collector sees it live.
var keep [][]byte

func TestLiveHeapSeesWhatIsHeldAndNotWhatIsGarbage(t *testing.T) {
	before := Read().LiveHeapBytes
	if before == 0 {
		t.Fatal("no live heap reported")
	}
	const held = 32 << 20
	keep = append(keep, make([]byte, held))
	with := Read().LiveHeapBytes
	if with < before+held {
		t.Fatalf("live heap %d after holding %d more bytes, was %d", with, held, before)
	}
	keep = nil
	runtime.KeepAlive(keep)
	if after := Read().LiveHeapBytes; after >= with-held/2 {
		t.Fatalf("live heap %d after dropping %d bytes, was %d: garbage was counted", after, held, with)
	}
}

func TestHandlerAnswersJSONAndRefusesWrites(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s Sample
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.LiveHeapBytes == 0 {
		t.Fatalf("GET = %+v, %v", s, err)
	}
	post, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	if post.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST = %d, want 405", post.StatusCode)
	}
}
