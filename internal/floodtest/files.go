package floodtest

import (
	"syscall"
	"testing"
)

// NeedFiles fails the test unless the process may open n more files
// (and a margin for the server's own), raising the soft limit toward the
// hard one first. Go raises the soft limit to the hard one at start
// already, so in practice only a low hard limit (ulimit -Hn) fails here.
// A flood costs a file per connection on each side when the server runs
// in the test's process.
func NeedFiles(t testing.TB, n int) {
	t.Helper()
	want := uint64(n) + 256
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("cannot read RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur < want && lim.Max > lim.Cur {
		lim.Cur = min(lim.Max, want)
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if lim.Cur < want {
		t.Fatalf("this test needs about %d open files and the limit is %d: raise it (ulimit -n %d)", want, lim.Cur, want)
	}
}
