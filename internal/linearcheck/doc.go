// Package linearcheck is test support for the cluster tests: it records a
// concurrent history of reads and writes of registers (Recorder) and
// checks it for linearizability with github.com/anishathalye/porcupine,
// against a single register (Register) or a map of registers that the
// checker splits by key (Keyed).
//
// Each operation is recorded with its client, its input, its output and
// its call and return times from the process's monotonic clock. An
// operation whose outcome is unknown (a timeout, a connection cut before
// the answer) is recorded as pending forever, as porcupine requires: a
// write may then have taken effect at any moment after its call, or never;
// an unknown read constrains nothing and is left out. An operation that
// certainly did not take effect (refused before it ran) is left out too.
//
// Require fails a test on a history that is not linearizable and names
// the file holding porcupine's HTML visualisation of it, under the test's
// artifact directory (kept with go test -artifacts -outputdir DIR).
//
// It is for tests only: only _test.go files may import it, and it
// imports nothing but the standard library and porcupine (layers_test.go
// checks both).
package linearcheck
