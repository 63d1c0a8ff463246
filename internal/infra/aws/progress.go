package aws

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress tells a person what create and destroy do: one line per
// resource with its ID, and while waiting, what is waited on.
type Progress interface {
	// Done says what happened to one resource: "created", "found",
	// "deleted"…
	Done(verb, kind, id, name string)
	// Waiting starts or updates the wait shown; Waiting("") ends it.
	Waiting(what string)
}

// LineProgress writes one line per resource to W. On a terminal
// (Spinner true) waits show a spinner on one rewritten line; elsewhere
// each new wait is one line.
type LineProgress struct {
	W       io.Writer
	Spinner bool

	mu      sync.Mutex
	waiting string
	stop    chan struct{}
	stopped chan struct{}
}

// Done writes "created  VPC  vpc-0abc  (infra-vpc)".
func (p *LineProgress) Done(verb, kind, id, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	line := fmt.Sprintf("%-8s %-22s %s", verb, kind, id)
	if name != "" && name != id {
		line += "  (" + name + ")"
	}
	fmt.Fprintln(p.W, line)
}

// Waiting shows what is waited on.
func (p *LineProgress) Waiting(what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if what == p.waiting {
		return
	}
	p.clearLocked()
	p.waiting = what
	if what == "" {
		return
	}
	if !p.Spinner {
		fmt.Fprintln(p.W, "waiting  "+what)
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.spin(truncate(what, spinnerWidth), p.stop, p.stopped)
}

const (
	// spinnerFrame is how often the spinner turns.
	spinnerFrame = 120 * time.Millisecond
	// spinnerWidth keeps the spinner's line on one terminal row: a
	// wrapped line could not be rewritten in place.
	spinnerWidth = 100
)

// truncate shortens s to at most n runes, ending in "…" when cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func (p *LineProgress) spin(what string, stop, stopped chan struct{}) {
	defer close(stopped)
	frames := []rune(`|/-\`)
	tick := time.NewTicker(spinnerFrame)
	defer tick.Stop()
	for i := 0; ; i++ {
		p.mu.Lock()
		fmt.Fprintf(p.W, "\r%c waiting for %s", frames[i%len(frames)], what)
		p.mu.Unlock()
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// clearLocked ends a spinner and blanks its line. p.mu is held.
func (p *LineProgress) clearLocked() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	p.mu.Unlock()
	<-p.stopped
	p.mu.Lock()
	fmt.Fprintf(p.W, "\r%*s\r", spinnerWidth+20, "")
	p.stop, p.stopped = nil, nil
}

// quiet is the Progress that says nothing.
type quiet struct{}

func (quiet) Done(string, string, string, string) {}
func (quiet) Waiting(string)                      {}
