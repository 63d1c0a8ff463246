package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// keepMarker is the line a kept tour prints once everything runs.
const keepMarker = "Everything keeps running until you press Ctrl-C."

// childArgs are the arguments of one cloud's tour run as its own process.
func childArgs(platform string, opts Options) []string {
	args := []string{"demo", "--platform", platform}
	if opts.StepTimeout > 0 {
		args = append(args, "--step-timeout", opts.StepTimeout.String())
	}
	if opts.Keep {
		args = append(args, "--keep")
	}
	return args
}

// runEach walks each cloud in its own process (`<Executable> demo
// --platform <cloud>`), one after the other: each devenv starts the same
// named controllers, and controller-runtime allows a name once per
// process. With Keep the next cloud starts once the previous one keeps
// running, and all stop on Ctrl-C.
func runEach(ctx context.Context, opts Options, out io.Writer) error {
	start := time.Now()
	// Ctrl-C reaches the children (the same process group); this process
	// waits for them to stop rather than dying first.
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := &lockedWriter{w: out}
	var kept []*child
	for _, platform := range opts.Platforms {
		c, err := startChild(opts.Executable, childArgs(platform, opts), w)
		if err != nil {
			return fmt.Errorf("starting the %s tour: %w", platform, err)
		}
		if !opts.Keep {
			if err := c.wait(sigCtx); err != nil {
				return fmt.Errorf("the %s tour failed: %w", platform, err)
			}
			continue
		}
		kept = append(kept, c)
		select {
		case <-c.ready:
		case <-c.done:
			return fmt.Errorf("the %s tour stopped before its cluster was available: %w", platform, c.err)
		case <-sigCtx.Done():
		}
	}
	for _, c := range kept {
		_ = c.wait(context.Background())
	}
	if !opts.Keep {
		fmt.Fprintf(w, "\nhcplink demo: %s done in %.1fs (each cloud's local environment and its start-up included)\n",
			strings.Join(opts.Platforms, " and "), time.Since(start).Seconds())
	}
	return nil
}

// child is one cloud's tour as a process; its output is copied line by line.
type child struct {
	cmd   *exec.Cmd
	ready chan struct{} // closed when it printed keepMarker
	done  chan struct{} // closed when it exited
	err   error
}

func startChild(executable string, args []string, out io.Writer) (*child, error) {
	cmd := exec.Command(executable, args...)
	cmd.Stderr = out
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, ready: make(chan struct{}), done: make(chan struct{})}
	go func() {
		copyLines(pipe, out, c.ready)
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// wait waits for the child to exit; when ctx ends first it asks the child
// to stop (as Ctrl-C would) and still waits.
func (c *child) wait(ctx context.Context) error {
	select {
	case <-c.done:
	case <-ctx.Done():
		_ = c.cmd.Process.Signal(os.Interrupt)
		<-c.done
	}
	return c.err
}

// copyLines copies r to out line by line and closes ready at keepMarker.
func copyLines(r io.Reader, out io.Writer, ready chan struct{}) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 1024*1024)
	closed := false
	for scanner.Scan() {
		line := scanner.Text()
		fmt.Fprintln(out, line)
		if !closed && strings.Contains(line, keepMarker) {
			close(ready)
			closed = true
		}
	}
}

// lockedWriter lets two children write whole lines to one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
