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

// record is one finished step for the summary table: how long the step
// itself took, and when it finished counted from the start of the tour.
type record struct {
	title      string
	took       time.Duration
	sinceStart time.Duration
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
		r := t.finish(s.title, time.Now())
		fmt.Fprintln(t.out, progressLine(r, detail))
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

// finish records a step that holds at now.
func (t *tracker) finish(title string, now time.Time) record {
	r := record{title: title, took: now.Sub(t.last), sinceStart: now.Sub(t.start)}
	t.records = append(t.records, r)
	t.last = now
	return r
}

// progressLine is the line printed when a step holds: how long it took and
// when, since the start, it finished; then the details read from the cloud.
func progressLine(r record, detail string) string {
	line := fmt.Sprintf("  ✓ %-62s took %5.1fs, at %6.1fs since start", r.title, r.took.Seconds(), r.sinceStart.Seconds())
	if detail != "" {
		line += "\n      " + detail
	}
	return line
}

// Column headings of the summary; both times are printed so that neither
// can be mistaken for the other.
const (
	tookHeading  = "took (s)"
	sinceHeading = "done at, since start (s)"
)

// summary prints the table of steps: each step's own duration (from the
// previous step, or from the action that began its section) and when it
// was done, counted from the start of the tour.
func (t *tracker) summary() {
	width := 62
	fmt.Fprintf(t.out, "\n%-*s %9s %25s\n", width, "step", tookHeading, sinceHeading)
	rule := strings.Repeat("-", width+36)
	fmt.Fprintln(t.out, rule)
	for _, r := range t.records {
		fmt.Fprintf(t.out, "%-*s %9.1f %25.1f\n", width, r.title, r.took.Seconds(), r.sinceStart.Seconds())
	}
	fmt.Fprintln(t.out, rule)
	fmt.Fprintf(t.out, "%-*s %9s %25.1f\n", width, "total", "", time.Since(t.start).Seconds())
	fmt.Fprintln(t.out, "took: from the previous step, or from the change that began the section; since start: from the start of the tour.")
}
