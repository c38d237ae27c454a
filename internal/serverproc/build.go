package serverproc

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Package is the import path of the binary Build builds.
const Package = "github.com/quiverdb/quiver/cmd/quiver"

// Build builds the quiver binary into a directory of the test's and
// returns its path. The go command's cache keeps repeated builds cheap.
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "quiver")
	if out, err := exec.Command("go", "build", "-o", bin, Package).CombinedOutput(); err != nil {
		t.Fatalf("cannot build %s: %v\n%s", Package, err, out)
	}
	return bin
}

// ServeArgs are the arguments of a `quiver serve` on a free loopback port
// over dataDir, with no rate limit (a test sends more than the default
// 1000 requests an hour), then extra.
func ServeArgs(dataDir string, extra ...string) []string {
	return append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0"}, extra...)
}
