package aws

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a strings.Builder safe for the spinner's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLineProgressWithoutTerminalWritesOneLinePerWait(t *testing.T) {
	var out syncBuffer
	p := &LineProgress{W: &out}
	p.Done("created", "VPC", "vpc-1", "x-vpc")
	p.Waiting("NAT gateway nat-1 to become available")
	p.Waiting("NAT gateway nat-1 to become available") // the same wait: no new line
	p.Waiting("")
	p.Done("deleted", "subnet", "subnet-1", "")
	want := "created  VPC                    vpc-1  (x-vpc)\n" +
		"waiting  NAT gateway nat-1 to become available\n" +
		"deleted  subnet                 subnet-1\n"
	if got := out.String(); got != want {
		t.Fatalf("progress wrote\n%q\nwant\n%q", got, want)
	}
}

func TestLineProgressOnTerminalSpinsAndClearsItsLine(t *testing.T) {
	var out syncBuffer
	p := &LineProgress{W: &out, Spinner: true}
	p.Waiting("NAT gateway nat-1 to be deleted")
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for strings.Count(out.String(), "\r") < 3 { // two frames at least
		if time.Now().After(deadline) {
			t.Fatalf("the spinner did not turn: %q", out.String())
		}
		<-tick.C
	}
	p.Done("deleted", "NAT gateway", "nat-1", "")
	got := out.String()
	if !strings.Contains(got, "waiting for NAT gateway nat-1 to be deleted") || !strings.HasSuffix(got, "\rdeleted  NAT gateway            nat-1\n") {
		t.Fatalf("spinner output %q: want the wait named, then its line cleared before the next line", got)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"NAT gateway nat-1, nat-2", 12, "NAT gateway…"},
		{"ééééé", 3, "éé…"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
