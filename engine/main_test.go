package engine_test

import (
	"io"
	"log/slog"
	"os"
	"testing"
)

// TestMain keeps the engine's start-up logs (one per database a test
// opens) out of the test output; tests that check logs pass a logger.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
