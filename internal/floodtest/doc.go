// Package floodtest is test support for the connection-flood tests of the
// frontends and the binary: a flood of slow connections from many
// loopback source addresses (Start), the open-file limit such a flood
// needs (NeedFiles), the server's connections as its Config.Conns counts
// them and the wait for the flood to fill them (Gauge, WaitFor), and what
// a normal client beside it saw (Latencies: count, success rate, p99).
//
// It is for tests only: only _test.go files may import it, and it
// imports nothing but the standard library (layers_test.go checks both).
// It opens real connections to a real server; it stands in for nothing.
package floodtest
