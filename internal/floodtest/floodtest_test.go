package floodtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// A flood's connections come each from its own source address, send the
// payload and then the filler a byte at a time, and reconnect when the
// server closes them; Stop ends them all.
func TestFloodTricklesAndReconnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const conns, payload = 4, "HEAD"
	var mu sync.Mutex // protects got and sources
	got := map[string]int{}
	sources := map[string]bool{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Read the payload and two filler bytes, then close: the
				// flood must reconnect.
				buf := make([]byte, len(payload)+2)
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
				mu.Lock()
				got[string(buf)]++
				sources[host] = true
				mu.Unlock()
			}()
		}
	}()
	f := Start(t, Config{Addr: ln.Addr().String(), Conns: conns, Source: Loopback(9), Payload: payload, Filler: '.', Interval: time.Millisecond})
	for end := time.Now().Add(20 * time.Second); f.Connects() < 3*conns; {
		if time.Now().After(end) {
			t.Fatalf("the flood made %d connections, want it to reconnect past %d", f.Connects(), 3*conns)
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.Stop()
	f.Stop() // again: nothing left to stop
	if n := f.Open(); n != 0 {
		t.Errorf("%d connections open after Stop", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got["HEAD.."] == 0 {
		t.Errorf("the server read %v, want only %q", got, "HEAD..")
	}
	if len(sources) != conns || !sources["127.9.1.1"] || !sources["127.9.1.4"] {
		t.Errorf("source addresses %v, want 127.9.1.1 to 127.9.1.4", sources)
	}
}

// The summary counts failures by message (a bounded number of them),
// and its percentiles count failed requests too.
func TestLatenciesSummary(t *testing.T) {
	var l Latencies
	for i := 1; i <= 200; i++ {
		var err error
		if i%50 == 0 {
			err = fmt.Errorf("failure %d", i)
		}
		l.Add(time.Duration(i)*time.Millisecond, err)
	}
	for i := range 20 {
		l.Add(time.Millisecond, fmt.Errorf("kind %d", i))
	}
	s := l.Summary()
	if s.Requests != 220 || s.Failed != 24 || s.OK() != 196 {
		t.Errorf("counts: %v", s)
	}
	// 220 values: the p99 is the 218th smallest; the 20 kinds' 1 ms
	// come first.
	if s.P99 != 198*time.Millisecond || s.Max != 200*time.Millisecond || s.P50 != 90*time.Millisecond {
		t.Errorf("percentiles: %v", s)
	}
	if len(s.Failures) != maxFailureKinds+1 || s.Failures[otherFailures] != 24-maxFailureKinds || s.Failures["failure 50"] != 1 {
		t.Errorf("failures: %v", s.Failures)
	}
	if !strings.Contains(s.String(), "196 of 220 succeeded") {
		t.Errorf("String: %s", s)
	}
}

// RunClient goes on past its duration until it made its minimum, but
// not past ten times the duration.
func TestRunClientMinimum(t *testing.T) {
	n := 0
	l := RunClient(time.Millisecond, 5, func() error { n++; return nil })
	if s := l.Summary(); s.Requests < 5 || s.Requests != n {
		t.Errorf("%d requests (%d calls), want at least 5", s.Requests, n)
	}
	start := time.Now()
	l = RunClient(20*time.Millisecond, 1000, func() error { time.Sleep(10 * time.Millisecond); return errors.New("slow") })
	if took, s := time.Since(start), l.Summary(); took > 2*time.Second || s.Requests >= 1000 || s.Failed != s.Requests {
		t.Errorf("a slow client ran %v for %v", took, s)
	}
}
