package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/metrics"
	"github.com/quiverdb/quiver/shell"
)

// shellServer is a real server in the test's process, serving every
// protocol on a free port as `quiver serve` does, with its log (at debug
// level: a query's outcome) kept for the test to read.
type shellServer struct {
	addr, fingerprint string
	fe                *frontends
	log               *syncBuffer
	stopOnce          sync.Once
}

// syncBuffer is a log destination that tests read while the server
// writes.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startShellServer(t *testing.T) *shellServer {
	t.Helper()
	dir := t.TempDir()
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--data-dir", dir, "--rate-limit", "0"})
	if err != nil {
		t.Fatal(err)
	}
	s := &shellServer{log: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := engine.Open(dir, engine.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	authSvc, err := auth.Open(auth.Config{DB: db, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	fe, err := startFrontends(o, db, nil, reg, nil, authSvc, log)
	if err != nil {
		t.Fatal(err)
	}
	s.fe, s.addr, s.fingerprint = fe, fe.addr, fe.quicFingerprint
	t.Cleanup(func() {
		s.stop(t)
		authSvc.Close()
		reg.Close()
		db.Close()
	})
	return s
}

// stop shuts the server's protocols down (sessions are closed).
func (s *shellServer) stop(t *testing.T) {
	s.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.fe.shutdown(ctx); err != nil {
			t.Error(err)
		}
		s.fe.stream.Close()
	})
}

// runShellScript runs the shell in this process on a script given on
// standard input (or in o.Command / o.File), and returns its exit code,
// standard output and standard error.
func runShellScript(t *testing.T, o shell.Options, stdin string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	o.Stdin, o.Stdout, o.Stderr = strings.NewReader(stdin), &out, &errb
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := shell.Run(ctx, o)
	return code, out.String(), errb.String()
}

var _ io.Writer = (*syncBuffer)(nil)

func shellOptions(addr string) shell.Options { return shell.Options{Addr: addr} }
