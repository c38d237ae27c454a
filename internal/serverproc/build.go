package serverproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Package is the import path of the binary Build builds.
const Package = "github.com/quiverdb/quiver/cmd/quiver"

// built is the binary Build made for this test process.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// Build builds the quiver binary once per test process and returns its
// path: the tests of a package share it. Even from the go command's
// cache a build links the binary anew, a few seconds on a busy machine,
// and cmd/quiver's tests asked for one a test (sixteen). The binary
// lives in a directory of its own until Cleanup, which the package's
// TestMain calls after m.Run.
func Build(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "quiver-serverproc-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "quiver")
		if out, err := exec.Command("go", "build", "-o", built.bin, Package).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("cannot build %s: %v", Package, built.err)
	}
	return built.bin
}

// Cleanup removes what Build built, if it built anything.
func Cleanup() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// ServeArgs are the arguments of a `quiver serve` on a free loopback port
// over dataDir, with no rate limit (a test sends more than the default
// 1000 requests an hour), then extra.
func ServeArgs(dataDir string, extra ...string) []string {
	return append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0"}, extra...)
}
