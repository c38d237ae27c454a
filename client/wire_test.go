package client

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestWireSessionRowsPullAsTheyAreRead(t *testing.T) {
	f := startFakeWireServer(t, 3)
	ctx := testCtx(t)
	s, err := DialTCP(ctx, f.addr(), &WireOptions{Client: "test", FetchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ID() == "" || s.ServerVersion() != "fake-1" || s.MaxQuerySize() != 1048576 || len(s.IsolationLevels()) != 3 {
		t.Errorf("WELCOME: %q %q %d %v", s.ID(), s.ServerVersion(), s.MaxQuerySize(), s.IsolationLevels())
	}
	rows, err := s.Run(ctx, "UNWIND range(1, 10) AS i RETURN i", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cols := rows.Columns(); len(cols) != 1 || cols[0].Name != "i" || cols[0].Type != "INTEGER" {
		t.Errorf("columns %v", cols)
	}
	var got []int64
	for rows.Next() {
		got = append(got, rows.Row()["i"].(int64))
		if v := rows.Values(); len(v) != 1 || v[0] != got[len(got)-1] {
			t.Fatalf("Values %v beside Row %v", v, rows.Row())
		}
	}
	if rows.Err() != nil || len(got) != 10 || got[9] != 10 || rows.Values() != nil {
		t.Fatalf("rows %v, err %v", got, rows.Err())
	}
	if rows.Summary()["rows"] != int64(10) {
		t.Errorf("summary %v", rows.Summary())
	}
	f.mu.Lock()
	pulls := append([]int64(nil), f.pulls...)
	f.mu.Unlock()
	if len(pulls) != 2 || pulls[0] != 4 {
		t.Errorf("PULLs %v, want two of 4", pulls)
	}
	if err := rows.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Error(err)
	}
}

func TestWireRowsCloseDiscards(t *testing.T) {
	f := startFakeWireServer(t, 3)
	ctx := testCtx(t)
	s, err := DialTCP(ctx, f.addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Run(ctx, "UNWIND range(1, 1000) AS i RETURN i", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if rows.Summary()["discarded"] != true {
		t.Errorf("summary %v", rows.Summary())
	}
	// A new Run closes an open result first.
	rows, _ = s.Run(ctx, "UNWIND range(1, 1000) AS i RETURN i", nil)
	rows2, err := s.Run(ctx, "UNWIND range(1, 2) AS i RETURN i", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows2.Next() {
		n++
	}
	if n != 2 || rows.Summary()["discarded"] != true {
		t.Errorf("%d rows; first result %v", n, rows.Summary())
	}
}

func TestWireErrorsAndTransactions(t *testing.T) {
	f := startFakeWireServer(t, 100)
	ctx := testCtx(t)
	s, err := DialTCP(ctx, f.addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Run(ctx, "FAIL", nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != "42000" || e.Line != 1 || e.Column != 1 || e.Category != "SYNTAX_ERROR" {
		t.Fatalf("error %#v", err)
	}
	rows, err := s.Run(ctx, "EXPLAIN MATCH (n) RETURN n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() || rows.Plan() == nil || rows.Err() != nil {
		t.Errorf("EXPLAIN: plan %v err %v", rows.Plan(), rows.Err())
	}
	tx, err := s.Begin(ctx, "SERIALIZABLE")
	if err != nil || tx.ID() != "tx-1" {
		t.Fatalf("Begin: %v %v", tx, err)
	}
	if rows, err = tx.Run(ctx, "UNWIND range(1, 3) AS i RETURN i", nil); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx, _ = s.Begin(ctx, "")
	rows, _ = tx.Run(ctx, "CONFLICT", nil)
	rows.Close()
	if err := tx.Commit(ctx); !errors.As(err, &e) || e.Code != "40001" {
		t.Fatalf("conflict: %v", err)
	}
	tx, _ = s.Begin(ctx, "")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// A cancelled context ends the session.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Ping(cctx); err == nil {
		t.Fatal("Ping with a cancelled context succeeded")
	}
	if err := s.Ping(ctx); err == nil {
		t.Fatal("the session survived a cancelled request")
	}
}

func TestPinnedTLSConfig(t *testing.T) {
	c := PinnedTLSConfig("00:11")
	if err := c.VerifyPeerCertificate([][]byte{{1}}, nil); err == nil {
		t.Error("a short fingerprint verified")
	}
	raw := []byte("certificate")
	sum := sha256Hex(raw)
	if err := PinnedTLSConfig(sum).VerifyPeerCertificate([][]byte{raw}, nil); err != nil {
		t.Errorf("the pinned certificate was refused: %v", err)
	}
	if err := PinnedTLSConfig(sum).VerifyPeerCertificate([][]byte{[]byte("other")}, nil); err == nil {
		t.Error("another certificate verified")
	}
	if c.NextProtos[0] != WireALPN {
		t.Errorf("ALPN %v", c.NextProtos)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	out := ""
	for i, x := range sum {
		if i > 0 {
			out += ":"
		}
		out += fmt.Sprintf("%02x", x)
	}
	return out
}
