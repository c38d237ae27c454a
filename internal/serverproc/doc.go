// Package serverproc is test support for the tests that run the real
// binary: it builds `quiver` (Build) and runs `quiver serve` as a child
// process (Start) in its own process group, its stdout and stderr in files
// of a directory, and waits until the address its "listening" log line
// names answers GET /api/v1/health. A test can then kill it with SIGKILL
// (Kill9), pause and resume it (Stop, Cont: SIGSTOP and SIGCONT), end it
// gracefully (Term), restart it on the same arguments (Restart), and wait
// for its exit with a deadline (Wait). The test's end kills whatever still
// runs, and a failed test logs the tail of each run's stderr.
//
// A server listens on 127.0.0.1:0; its port is read from the log line
// `msg=listening addr=…`, as the crash and benchmark harnesses read it, so
// no port is ever guessed and raced for.
//
// It is for tests only: only _test.go files may import it, and it
// imports nothing but the standard library (layers_test.go checks both).
package serverproc
