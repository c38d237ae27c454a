package main

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/frontend/metrics"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:3141": true, "127.8.9.10:1": true, "[::1]:3141": true, "localhost:3141": true, "LOCALHOST:1": true,
		":3141": false, "0.0.0.0:3141": false, "[::]:3141": false, "10.0.0.1:3141": false, "example.com:3141": false,
		"localhost.example.com:1": false, "127.0.0.1.example:1": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// Authentication in clear text on an address other hosts reach is
// refused, on --listen and on the metrics listener's bind address,
// unless TLS is given or --allow-insecure-auth waives the rule.
func TestAuthTransportRule(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeTLSPair(t, dir, "")
	env := func(port, bind string) func(string) string {
		return func(k string) string {
			switch k {
			case metrics.EnvPort:
				return port
			case metrics.EnvBind:
				return bind
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name      string
		args      []string
		port, bnd string
		want      string // "" starts
	}{
		{"loopback", []string{"--auth-enabled"}, "", "", ""},
		{"all interfaces", []string{"--auth-enabled", "--listen", "0.0.0.0:3141"}, "", "", "--listen 0.0.0.0:3141"},
		{"empty host", []string{"--auth-enabled", "--listen", ":3141"}, "", "", "clear text"},
		{"with TLS", []string{"--auth-enabled", "--listen", "0.0.0.0:3141", "--tls-cert", cert, "--tls-key", key}, "", "", ""},
		{"waived", []string{"--auth-enabled", "--listen", "0.0.0.0:3141", "--allow-insecure-auth"}, "", "", ""},
		{"auth off", []string{"--listen", "0.0.0.0:3141"}, "", "", ""},
		{"metrics on all interfaces", []string{"--auth-enabled"}, "9100", "0.0.0.0", "QUIVER_METRICS_BIND"},
		{"metrics on loopback", []string{"--auth-enabled"}, "9100", "", ""},
		{"metrics with TLS", []string{"--auth-enabled", "--tls-cert", cert, "--tls-key", key}, "9100", "0.0.0.0", ""},
		{"metrics waived", []string{"--auth-enabled", "--allow-insecure-auth"}, "9100", "0.0.0.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseServe(tc.args)
			if err == nil {
				err = checkAuthTransport(o, env(tc.port, tc.bnd))
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--allow-insecure-auth")):
				t.Fatalf("err = %v, want one naming %q and the way out", err, tc.want)
			}
		})
	}
	// The configuration file takes the key.
	o, err := parseServe([]string{"--config", writeFile(t, dir, "c.yaml", "auth-enabled: true\nlisten: 0.0.0.0:3141\nallow-insecure-auth: true\n")})
	if err != nil || !o.allowInsecureAuth || !o.authEnabled {
		t.Fatalf("from the file: %+v %v", o, err)
	}
}
