package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseServeDefaults(t *testing.T) {
	o, err := parseServe(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.listen != "127.0.0.1:3141" || o.dataDir != "./quiver-data" || o.logLevel != slog.LevelInfo ||
		o.maxConnections != 1000 || o.queryTimeout != 30*time.Second {
		t.Fatalf("defaults = %+v", o)
	}
}

func TestParseServeFlags(t *testing.T) {
	o, err := parseServe([]string{"--listen", "0.0.0.0:9", "--data-dir=/d", "--log-level", "DEBUG",
		"--max-connections", "5", "--query-timeout", "0", "--replication-mode", "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if o.listen != "0.0.0.0:9" || o.dataDir != "/d" || o.logLevel != slog.LevelDebug || o.maxConnections != 5 ||
		o.queryTimeout != 0 || o.replicationMode != "primary" {
		t.Fatalf("parsed %+v", o)
	}
}

func TestParseServeRejects(t *testing.T) {
	cases := map[string][]string{
		"log-level":        {"--log-level", "loud"},
		"max-connections":  {"--max-connections", "0"},
		"query-timeout":    {"--query-timeout", "-1"},
		"listen":           {"--listen", "nowhere"},
		"data-dir":         {"--data-dir", ""},
		"TLS":              {"--tls-cert", "c.pem", "--tls-key", "k.pem"},
		"clear text":       {"--auth-enabled", "--listen", "0.0.0.0:9"},
		"replication-mode": {"--replication-mode", "replica"},
		"unexpected":       {"extra"},
		"not defined":      {"--nope"},
		"invalid value":    {"--max-connections", "many"},
		"cdc-retention":    {"--cdc-retention", "forever"},
	}
	for want, args := range cases {
		_, err := parseServe(args)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want a message about %s", args, err, want)
		}
	}
}

func TestRunCommands(t *testing.T) {
	if code := run([]string{"version"}); code != 0 {
		t.Errorf("version: exit %d", code)
	}
	for _, args := range [][]string{nil, {"bogus"}, {"import"}, {"shell", "--no-such-flag"}, {"serve", "--auth-enabled", "--listen", ":3141"}} {
		if code := run(args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// The resource flags: sizes with units, origins as a list, and a
// per-query ceiling never above the server's budget.
func TestParseServeResourceFlags(t *testing.T) {
	o, err := parseServe([]string{"--max-memory", "2GB", "--max-memory-per-query", "3GB",
		"--max-connections-per-client", "8", "--allowed-origins", "https://app.example, http://localhost:5173"})
	if err != nil {
		t.Fatal(err)
	}
	if o.maxMemory != 2<<30 || o.maxMemoryPerQuery != 2<<30 || o.maxConnsPerClient != 8 ||
		strings.Join(o.allowedOrigins, " ") != "https://app.example http://localhost:5173" {
		t.Fatalf("parsed %+v", o)
	}
	o, err = parseServe(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.maxMemoryPerQuery != 1<<30 || (o.maxMemory != 0 && o.maxMemory < o.maxMemoryPerQuery) {
		t.Errorf("defaults: max memory %d, per query %d", o.maxMemory, o.maxMemoryPerQuery)
	}
	for want, args := range map[string][]string{
		"--max-memory":                 {"--max-memory", "lots"},
		"--max-memory-per-query":       {"--max-memory-per-query", "1.5GB"},
		"--max-connections-per-client": {"--max-connections-per-client", "0"},
	} {
		if _, err := parseServe(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestServeHelpNamesEnvironment: `quiver serve -h` names every QUIVER_*
// variable the server reads (each a string literal in the code of
// cmd/quiver or of the packages it passes os.Getenv to), since they have
// no flags to be listed by.
func TestServeHelpNamesEnvironment(t *testing.T) {
	_, err := parseServe([]string{"-h"})
	if err == nil {
		t.Fatal("-h gave no help")
	}
	help := err.Error()
	files, _ := filepath.Glob("*.go")
	files = append(files, "../../frontend/metrics/env.go")
	read := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "shell") {
			continue // the shell's variables are the shell's (TestShellHelpNamesEnvironment)
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"(QUIVER_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1) {
			read[m[1]] = true
		}
	}
	if len(read) < 3 {
		t.Fatalf("found only %v in the code", read)
	}
	for name := range read {
		if !strings.Contains(help, name) {
			t.Errorf("quiver serve -h does not mention %s:\n%s", name, help)
		}
	}
}

// quiver shell -h names the environment variables the shell reads.
func TestShellHelpNamesEnvironment(t *testing.T) {
	var help strings.Builder
	if code := runShell([]string{"-h"}, nil, &help, &help); code != 0 {
		t.Fatalf("shell -h: exit %d", code)
	}
	src, err := os.ReadFile("shell.go")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`"(QUIVER_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(names) < 2 {
		t.Fatalf("found only %v in shell.go", names)
	}
	for _, m := range names {
		if !strings.Contains(help.String(), m[1]) {
			t.Errorf("quiver shell -h does not mention %s:\n%s", m[1], help.String())
		}
	}
}
