package metrics_test

import (
	"net"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/frontend/metrics"
)

func TestListenAddrFromEnv(t *testing.T) {
	for _, c := range []struct {
		port, bind string
		want       string
		err        string // a part of the error; "" for none
	}{
		{"", "", "", ""},
		{"9090", "", "127.0.0.1:9090", ""},
		{" 8080 ", "", "127.0.0.1:8080", ""},
		{"9090", "0.0.0.0", "0.0.0.0:9090", ""},
		{"9090", "::1", "[::1]:9090", ""},
		{"9090", "[::]", "[::]:9090", ""},
		{"9090", "metrics.example.com", "metrics.example.com:9090", ""},
		{"9090", "localhost", "localhost:9090", ""},
		{"65535", "", "127.0.0.1:65535", ""},
		{"abc", "", "", "QUIVER_METRICS_PORT"},
		{"0", "", "127.0.0.1:0", ""},
		{"-1", "", "", "QUIVER_METRICS_PORT"},
		{"65536", "", "", "QUIVER_METRICS_PORT"},
		{"-1", "", "", "QUIVER_METRICS_PORT"},
		{"9090x", "", "", "QUIVER_METRICS_PORT"},
		{"127.0.0.1:9090", "", "", "QUIVER_METRICS_PORT"},
		{"9090", "127.0.0.1:80", "", "QUIVER_METRICS_BIND"},
		{"9090", "bad host", "", "QUIVER_METRICS_BIND"},
		{"9090", "-x.com", "", "QUIVER_METRICS_BIND"},
		{"9090", "a..b", "", "QUIVER_METRICS_BIND"},
		{"9090", strings.Repeat("a", 64), "", "QUIVER_METRICS_BIND"},
		{"", "0.0.0.0", "", "QUIVER_METRICS_PORT"},
	} {
		env := map[string]string{metrics.EnvPort: c.port, metrics.EnvBind: c.bind}
		got, err := metrics.ListenAddr(func(k string) string { return env[k] })
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("port %q bind %q: %q, %v; want %q", c.port, c.bind, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("port %q bind %q: %q, %v; want an error naming %s", c.port, c.bind, got, err, c.err)
		}
	}
}

func TestNodeID(t *testing.T) {
	dir := t.TempDir()
	a, b := metrics.NodeID(dir), metrics.NodeID(dir+"/")
	if a != b || len(a) != 36 || a[14] != '5' || strings.Count(a, "-") != 4 {
		t.Fatalf("node ids %q, %q", a, b)
	}
	if other := metrics.NodeID(t.TempDir()); other == a {
		t.Fatal("two data directories share a node id")
	}
	m1, m2 := metrics.NodeID(""), metrics.NodeID("")
	if m1 == m2 || len(m1) != 36 || m1[14] != '4' {
		t.Fatalf("in-memory node ids %q, %q", m1, m2)
	}
}

// Any environment gives an address net.Listen can parse, or an error
// naming a variable; never a panic.
func FuzzListenAddr(f *testing.F) {
	f.Add("9090", "")
	f.Add("8080", "::1")
	f.Add("x", "[")
	f.Fuzz(func(t *testing.T, port, bind string) {
		env := map[string]string{metrics.EnvPort: port, metrics.EnvBind: bind}
		addr, err := metrics.ListenAddr(func(k string) string { return env[k] })
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "QUIVER_METRICS_") {
				t.Fatalf("error names no variable: %v", err)
			}
		case addr == "":
			if strings.TrimSpace(port) != "" {
				t.Fatalf("port %q set, no address", port)
			}
		default:
			if _, _, err := net.SplitHostPort(addr); err != nil {
				t.Fatalf("%q: %v", addr, err)
			}
		}
	})
}
