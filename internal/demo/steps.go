package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// step is one observable milestone: check reports, once it holds, a line
// of detail (the cloud IDs) for the progress output.
type step struct {
	title string
	check func(ctx context.Context) (detail string, err error)
}

// record is one finished step for the summary table.
type record struct {
	title   string
	seconds float64
}

// tracker prints each step as it completes and keeps the timings.
type tracker struct {
	out     io.Writer
	start   time.Time
	last    time.Time
	records []record
	// stepTimeout bounds each step so a broken component shows up as a
	// named step that did not happen, never as a silent hang.
	stepTimeout time.Duration
	poll        time.Duration
}

func newTracker(out io.Writer, stepTimeout time.Duration) *tracker {
	now := time.Now()
	return &tracker{out: out, start: now, last: now, stepTimeout: stepTimeout, poll: 100 * time.Millisecond}
}

// wait polls the steps in order; each must hold before the next is looked at.
func (t *tracker) wait(ctx context.Context, steps ...step) error {
	for _, s := range steps {
		stepCtx, cancel := context.WithTimeout(ctx, t.stepTimeout)
		detail, err := t.poll1(stepCtx, s)
		cancel()
		if err != nil {
			fmt.Fprintf(t.out, "  ✗ %s: not reached within %v: %v\n", s.title, t.stepTimeout, err)
			return fmt.Errorf("%s: %w", s.title, err)
		}
		now := time.Now()
		t.records = append(t.records, record{title: s.title, seconds: now.Sub(t.last).Seconds()})
		t.last = now
		line := fmt.Sprintf("  ✓ %-58s %6.1fs", s.title, now.Sub(t.start).Seconds())
		if detail != "" {
			line += "  " + detail
		}
		fmt.Fprintln(t.out, line)
	}
	return nil
}

func (t *tracker) poll1(ctx context.Context, s step) (string, error) {
	var last error
	for {
		detail, err := s.check(ctx)
		if err == nil {
			return detail, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return "", last
		case <-time.After(t.poll):
		}
	}
}

// section prints a heading and restarts the per-step clock.
func (t *tracker) section(title string) {
	fmt.Fprintf(t.out, "\n%s\n", title)
	t.last = time.Now()
}

// summary prints the table of steps and their durations.
func (t *tracker) summary() {
	fmt.Fprintf(t.out, "\n%-60s %8s\n", "step", "seconds")
	fmt.Fprintln(t.out, strings.Repeat("-", 69))
	for _, r := range t.records {
		fmt.Fprintf(t.out, "%-60s %8.1f\n", r.title, r.seconds)
	}
	fmt.Fprintln(t.out, strings.Repeat("-", 69))
	fmt.Fprintf(t.out, "%-60s %8.1f\n", "total", time.Since(t.start).Seconds())
}
