package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every serve flag but --config has a key in the file, and no key is
// without its flag.
func TestConfigKeysAreTheFlags(t *testing.T) {
	_, err := parseServe([]string{"-h"})
	if err == nil {
		t.Fatal("-h gave no flag list")
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-(\S+)`).FindAllStringSubmatch(err.Error(), -1) {
		if m[1] != "config" {
			flags = append(flags, m[1])
		}
	}
	slices.Sort(flags)
	if keys := configKeyNames(); !slices.Equal(flags, keys) || len(keys) < 18 {
		t.Fatalf("flags %v\nkeys  %v", flags, keys)
	}
}

// A file sets every option; the command line overrides the file.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "quiver.yaml", `# a whole file
listen: 127.0.0.1:4000
data-dir: /var/lib/quiver
log-level: debug
max-connections: 500
query-timeout: 60000
replication-mode: primary
import-dir: /srv/import
max-memory: 4GB
algo-cache-size: 536870912
max-memory-per-query: 512MB
max-connections-per-client: 32
checkpoint-interval: 10m
checkpoint-wal-size: 64MB
allowed-origins:
  - https://app.example
  - http://localhost:5173
rate-limit: 5000
auth-enabled: false
monitoring:
  port: 9090
  bind: 0.0.0.0
`)
	o, err := parseServe([]string{"--config", path})
	if err != nil {
		t.Fatal(err)
	}
	if o.listen != "127.0.0.1:4000" || o.dataDir != "/var/lib/quiver" || o.logLevel != slog.LevelDebug ||
		o.maxConnections != 500 || o.queryTimeout != time.Minute || o.replicationMode != "primary" ||
		o.importDir != "/srv/import" || o.maxMemory != 4<<30 || o.algoCache != 512<<20 || o.maxMemoryPerQuery != 512<<20 ||
		o.maxConnsPerClient != 32 || o.checkpointInterval != 10*time.Minute || o.checkpointWALBytes != 64<<20 ||
		strings.Join(o.allowedOrigins, " ") != "https://app.example http://localhost:5173" || o.rateLimit != 5000 || o.authEnabled {
		t.Fatalf("from the file: %+v", o)
	}
	if len(o.notes) != 1 || !strings.Contains(o.notes[0], "monitoring section (line 20) is ignored") ||
		!strings.Contains(o.notes[0], "QUIVER_METRICS_PORT") {
		t.Errorf("notes: %q", o.notes)
	}
	// Flags win, before or after --config; the file fills the rest.
	o, err = parseServe([]string{"--max-connections", "7", "--config", path, "--rate-limit", "0", "--allowed-origins", "https://other.example"})
	if err != nil {
		t.Fatal(err)
	}
	if o.maxConnections != 7 || o.rateLimit != 0 || strings.Join(o.allowedOrigins, " ") != "https://other.example" ||
		o.listen != "127.0.0.1:4000" || o.queryTimeout != time.Minute {
		t.Fatalf("flags over the file: %+v", o)
	}
	// One origin may be a string; an empty file or one of comments only
	// changes nothing.
	o, err = parseServe([]string{"--config", writeFile(t, dir, "one.yaml", "allowed-origins: https://a.example, https://b.example\n")})
	if err != nil || strings.Join(o.allowedOrigins, " ") != "https://a.example https://b.example" {
		t.Fatalf("origins as a string: %v %+v", err, o)
	}
	for name, text := range map[string]string{"empty.yaml": "", "comments.yaml": "# nothing yet\n", "doc.yaml": "---\n"} {
		o, err := parseServe([]string{"--config", writeFile(t, dir, name, text)})
		if err != nil || o.listen != "127.0.0.1:3141" || o.rateLimit != 1000 || len(o.notes) != 0 {
			t.Errorf("%s: %v %+v", name, err, o)
		}
	}
}

// Every mistake in the file is an error naming the key (or what is
// wrong) and its line.
func TestConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ text, want string }{
		{"listen: 127.0.0.1:1\nmax-conections: 5\n", `line 2: unknown key "max-conections"`},
		{"listen: 127.0.0.1:1\nmax-connections: many\n", `line 2: max-connections: must be an integer, not "many"`},
		{"max-connections: 0\n", `line 1: max-connections: --max-connections must be positive`},
		{"query-timeout: 30s\n", `line 1: query-timeout: must be an integer`},
		{"auth-enabled: 1\n", `line 1: auth-enabled: must be true or false`},
		{"max-memory: [1]\n", `line 1: max-memory: must be a size`},
		{"max-memory: lots\n", `line 1: max-memory: --max-memory: "lots" is not a size`},
		{"checkpoint-interval: 300\n", `line 1: checkpoint-interval: `},
		{"log-level: loud\n", `line 1: log-level: --log-level must be debug, info, warn or error`},
		{"\n\nallowed-origins:\n  - https://a.example\n  - {x: 1}\n", `line 5: each item must be a string`},
		{"allowed-origins: [\"a,b\"]\n", `without commas`},
		{"listen:\n", `line 1: listen: has no value`},
		{"listen: a:1\nlisten: b:2\n", `line 2: "listen" is given twice (first at line 1)`},
		{"- listen\n", `line 1: the file must be a mapping`},
		{"listen: a:1\n---\nlisten: b:2\n", `more than one YAML document`},
		{"listen: [unclosed\n", `yaml:`},
		{"{listen: a}: 1\n", `line 1: a key must be an option name`},
		{"rate-limit: -1\n", `line 1: rate-limit: --rate-limit must be zero`},
		{"plan-cache-entries: -1\n", `line 1: plan-cache-entries: --plan-cache-entries must be zero`},
		{"config: other.yaml\n", `unknown key "config"`},
		{"auth-enabled: true\nlisten: 0.0.0.0:3141\n", `clear text`},
		{"allow-insecure-auth: yes please\n", `line 1: allow-insecure-auth: must be true or false`},
	}
	for i, c := range cases {
		path := writeFile(t, dir, "c.yaml", c.text)
		_, err := parseServe([]string{"--config", path})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d %q: err = %v, want %q", i, c.text, err, c.want)
		}
		if err != nil && strings.Contains(c.want, "line ") && !strings.Contains(err.Error(), path) {
			t.Errorf("case %d: the error does not name the file: %v", i, err)
		}
	}
	if _, err := parseServe([]string{"--config", filepath.Join(dir, "missing.yaml")}); err == nil || !strings.Contains(err.Error(), "cannot read the configuration file") {
		t.Errorf("missing file: %v", err)
	}
	big := writeFile(t, dir, "big.yaml", "# "+strings.Repeat("x", maxConfigBytes)+"\n")
	if _, err := parseServe([]string{"--config", big}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
}

// writeTLSPair writes a self-signed certificate and its key.
func writeTLSPair(t *testing.T, dir, prefix string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert = writeFile(t, dir, prefix+"cert.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	key = writeFile(t, dir, prefix+"key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})))
	return cert, key
}

// --tls-cert and --tls-key: both or neither, files that load as a pair;
// a good pair is loaded for every TLS listener.
func TestServeTLSOptions(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeTLSPair(t, dir, "a-")
	_, otherKey := writeTLSPair(t, dir, "b-")
	o, err := parseServe([]string{"--tls-cert", cert, "--tls-key", key})
	if err != nil {
		t.Fatal(err)
	}
	if o.tlsCertificate == nil || len(o.tlsCertificate.Certificate) != 1 || o.tlsCert != cert || o.tlsKey != key {
		t.Fatalf("certificate not loaded: %+v", o)
	}
	if len(o.notes) != 0 {
		t.Errorf("notes: %q", o.notes)
	}
	// The file may give them too.
	o, err = parseServe([]string{"--config", writeFile(t, dir, "tls.yaml", "tls-cert: "+cert+"\ntls-key: "+key+"\n")})
	if err != nil || o.tlsCertificate == nil {
		t.Fatalf("from the file: %v", err)
	}
	for want, args := range map[string][]string{
		"go together":                     {"--tls-cert", cert},
		"give both files":                 {"--tls-key", key},
		"no such file":                    {"--tls-cert", filepath.Join(dir, "none.pem"), "--tls-key", key},
		"private key does not match":      {"--tls-cert", cert, "--tls-key", otherKey},
		"cannot load the TLS certificate": {"--tls-cert", key, "--tls-key", key},
	} {
		if _, err := parseServe(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want %q", args, err, want)
		}
	}
}

func TestParseServeRateLimit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 1000}, {[]string{"--rate-limit", "0"}, 0}, {[]string{"--rate-limit=250"}, 250}} {
		o, err := parseServe(c.args)
		if err != nil || o.rateLimit != c.want {
			t.Errorf("%v: %v, rate limit %d, want %d", c.args, err, o.rateLimit, c.want)
		}
	}
	if _, err := parseServe([]string{"--rate-limit", "-5"}); err == nil || !strings.Contains(err.Error(), "--rate-limit") {
		t.Errorf("negative rate limit: %v", err)
	}
}

// --plan-cache-entries bounds the engine's plan cache; 0 turns it off,
// which the engine's options say with a negative number.
func TestParsePlanCacheEntries(t *testing.T) {
	for _, c := range []struct {
		args      []string
		flag, opt int
	}{{nil, engine.DefaultPlanCacheEntries, engine.DefaultPlanCacheEntries}, {[]string{"--plan-cache-entries", "0"}, 0, -1},
		{[]string{"--plan-cache-entries=64"}, 64, 64}} {
		o, err := parseServe(c.args)
		if err != nil || o.planCache != c.flag || planCacheEntries(o.planCache) != c.opt {
			t.Errorf("%v: %v, %d entries (engine: %d), want %d (%d)", c.args, err, o.planCache, planCacheEntries(o.planCache), c.flag, c.opt)
		}
	}
}

// FuzzParseConfig: no file makes the decoder panic or accept an unknown
// key.
func FuzzParseConfig(f *testing.F) {
	f.Add("listen: 127.0.0.1:1\nallowed-origins: [a, b]\nmonitoring: {port: 1}\n")
	f.Add("a: &x [1, *x]\n")
	f.Add("rate-limit: *a\n")
	f.Fuzz(func(t *testing.T, text string) {
		values, _, err := parseConfig([]byte(text))
		if err != nil {
			return
		}
		for _, v := range values {
			if _, ok := configKeys[v.key]; !ok {
				t.Fatalf("unknown key %q accepted", v.key)
			}
		}
	})
}

// The complete example in docs/configuration.md parses, names every
// option, and its monitoring section is where the documented log line
// says.
func TestConfigDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml quiver-config\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no yaml example in docs/configuration.md")
	}
	values, notes, err := parseConfig(m[1])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, v := range values {
		seen[v.key] = true
	}
	for _, k := range configKeyNames() {
		if !seen[k] {
			t.Errorf("the example lacks %s", k)
		}
	}
	if len(notes) != 1 || !strings.Contains(string(doc), notes[0]) {
		t.Errorf("the documented log line is not %q", notes)
	}
}
