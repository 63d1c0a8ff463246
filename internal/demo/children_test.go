package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestChildArgs(t *testing.T) {
	tests := []struct {
		opts Options
		want []string
	}{
		{Options{}, []string{"demo", "--platform", "aws"}},
		{Options{StepTimeout: 40 * time.Second}, []string{"demo", "--platform", "aws", "--step-timeout", "40s"}},
		{Options{Keep: true}, []string{"demo", "--platform", "aws", "--keep"}},
	}
	for _, tt := range tests {
		if got := childArgs(PlatformAWS, tt.opts); !slices.Equal(got, tt.want) {
			t.Errorf("childArgs(%+v) = %v, want %v", tt.opts, got, tt.want)
		}
	}
}

func TestCopyLinesSignalsTheKeepMarkerOnce(t *testing.T) {
	var out bytes.Buffer
	ready := make(chan struct{})
	copyLines(strings.NewReader("one\n"+keepMarker+"\n"+keepMarker+"\nafter\n"), &out, ready)
	select {
	case <-ready:
	default:
		t.Fatal("ready not closed at the marker")
	}
	if out.String() != "one\n"+keepMarker+"\n"+keepMarker+"\nafter\n" {
		t.Errorf("copied %q", out.String())
	}
}

// tourScript stands in for the hcplink binary: it prints its platform and
// fails for gcp, so that runEach's order and failure are observable.
func tourScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hcplink")
	script := "#!/bin/sh\necho \"tour $3\"\n[ \"$3\" = gcp ] && { echo \"no such cloud\" >&2; exit 1; }\nexit 0\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunEachWalksTheCloudsInOrderAndNamesTheOneThatFailed(t *testing.T) {
	exe := tourScript(t)
	var out bytes.Buffer
	if err := runEach(context.Background(), Options{Platforms: []string{PlatformAWS, PlatformAzure}, Executable: exe}, &out); err != nil {
		t.Fatalf("runEach: %v\n%s", err, out.String())
	}
	got := out.String()
	if i, j := strings.Index(got, "tour aws"), strings.Index(got, "tour azure"); i < 0 || j < i {
		t.Fatalf("not AWS then Azure:\n%s", got)
	}
	if !strings.Contains(got, "aws and azure done in") {
		t.Errorf("no total time:\n%s", got)
	}

	out.Reset()
	err := runEach(context.Background(), Options{Platforms: []string{"gcp", PlatformAzure}, Executable: exe}, &out)
	if err == nil || !strings.Contains(err.Error(), "the gcp tour failed") {
		t.Fatalf("error = %v, want one naming the gcp tour", err)
	}
	if strings.Contains(out.String(), "tour azure") {
		t.Errorf("the next cloud ran after a failure:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "no such cloud") {
		t.Errorf("the child's error output was lost:\n%s", out.String())
	}
}
