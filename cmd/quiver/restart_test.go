package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"testing"
)

// A member's reopened database stops serving with errRestart, which run
// turns into a new run of the same command line.
func TestWaitForStopRestartsOnReopen(t *testing.T) {
	restart := make(chan struct{}, 1)
	restart <- struct{}{}
	err := waitForStop(make(chan error), make(chan os.Signal), make(chan os.Signal), restart, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if !errors.Is(err, errRestart) {
		t.Fatalf("waitForStop: %v, want errRestart", err)
	}
}
