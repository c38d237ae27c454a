package auth

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// writeTrail writes events from..to into dir/audit/name as the writer
// would.
func auditWriteTrail(t *testing.T, dir, name string, from, to int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "audit"), 0o700); err != nil {
		t.Fatal(err)
	}
	var b []byte
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for id := from; id <= to; id++ {
		b = appendAuditRecord(b, &AuditRecord{ID: id, Time: ts.Add(time.Duration(id) * time.Millisecond), AuditEvent: testAuditEvent(int(id))})
	}
	if err := os.WriteFile(filepath.Join(dir, "audit", name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A trail longer than the ring, in files larger than a read chunk, is
// read back from its end: the ring holds exactly the newest MaxRecent
// events and the ids continue.
func TestAuditRecoverLargeTrail(t *testing.T) {
	dir := t.TempDir()
	auditWriteTrail(t, dir, "audit-1.log", 1, 6000)
	auditWriteTrail(t, dir, "audit.log", 6001, 12500)
	l := openTestAudit(t, dir, AuditOptions{})
	got := l.Recent(MaxRecent)
	if !slices.Equal(auditIDs(got), auditSeq(12500, 2501)) {
		t.Fatalf("ring: %d records, newest %d, oldest %d", len(got), got[0].ID, got[len(got)-1].ID)
	}
	if got[0].AuditEvent != testAuditEvent(12500) || !got[0].Time.Equal(time.Date(2025, 1, 1, 0, 0, 12, 500_000_000, time.UTC)) {
		t.Fatalf("newest record %+v", got[0])
	}
	l.Audit(testAuditEvent(0))
	if id := l.Recent(1)[0].ID; id != 12501 {
		t.Fatalf("next id %d", id)
	}
}

// eachAuditLineBackward hands out every line, last first, across chunk
// boundaries; skips blank lines; and passes an overlong line cut to its
// start, from which the id is still read.
func TestAuditLinesBackward(t *testing.T) {
	var lines []string
	var file strings.Builder
	for i := range 3000 {
		line := strings.Repeat("x", i%97)
		if i%500 == 7 {
			line = `{"event_id":77,` + strings.Repeat("y", 3*auditMaxLineBytes)
		}
		if i%11 == 0 {
			file.WriteString("\n") // a blank line
		}
		if line != "" {
			lines = append(lines, line)
		}
		file.WriteString(line + "\n")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	err = eachAuditLineBackward(f, int64(file.Len()), func(line []byte) bool {
		got = append(got, string(line))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(got)
	if len(got) != len(lines) {
		t.Fatalf("%d lines, want %d", len(got), len(lines))
	}
	for i := range lines {
		want := lines[i]
		if len(want) > auditMaxLineBytes {
			want = want[:auditMaxLineBytes+1]
			if auditLineID([]byte(got[i])) != 77 {
				t.Fatalf("line %d: the id of a long line is lost", i)
			}
		}
		if got[i] != want {
			t.Fatalf("line %d: %d bytes %.20q…, want %d bytes %.20q…", i, len(got[i]), got[i], len(want), want)
		}
	}
	// Stopping early stops.
	n := 0
	if err := eachAuditLineBackward(f, int64(file.Len()), func([]byte) bool { n++; return n < 5 }); err != nil || n != 5 {
		t.Fatalf("stopped after %d lines: %v", n, err)
	}
}

// Rotated files are recognised by name and ordered newest first; other
// names are left alone.
func TestAuditRotatedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"audit.log", "audit-5.log", "audit-12.log", "audit-5-2.log", "audit-x.log", "audit-0.log", "notes.txt", "audit-7.log.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := auditRotatedFiles(vfs.Default, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rf := range got {
		names = append(names, filepath.Base(rf.path))
	}
	if want := []string{"audit-12.log", "audit-5-2.log", "audit-5.log"}; !slices.Equal(names, want) {
		t.Fatalf("rotated files %v, want %v", names, want)
	}
	if name, err := auditRotatedName(vfs.Default, dir, 5); err != nil || filepath.Base(name) != "audit-5-3.log" {
		t.Fatalf("next name for 5: %s, %v", name, err)
	}
}

// Whatever an event holds, its line is one bounded line of valid JSON
// that reads back as the sanitised event.
func FuzzAuditRecord(f *testing.F) {
	f.Add("authentication", "login", "failure", "alice", "127.0.0.1:1", "detail")
	f.Add("a\nb", "\x00", "\u202e", "\xff\xfe", "\"\\", strings.Repeat("é", 700))
	f.Fuzz(func(t *testing.T, cat, action, outcome, principal, addr, detail string) {
		e := auditSanitizeEvent(engine.AuditEvent{Category: cat, Action: action, Outcome: outcome, Principal: principal, Address: addr, Detail: detail})
		for _, s := range []string{e.Category, e.Action, e.Outcome, e.Principal, e.Address, e.Detail} {
			if len(s) > auditMaxFieldBytes || !utf8.ValidString(s) || strings.ContainsFunc(s, auditDropRune) {
				t.Fatalf("field %q not sanitised", s)
			}
		}
		rec := AuditRecord{ID: 42, Time: time.Unix(1700000000, 123).UTC(), AuditEvent: e}
		line := appendAuditRecord(nil, &rec)
		if len(line) > auditMaxLineBytes+1 || bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("line of %d bytes: %q", len(line), line)
		}
		back, err := parseAuditRecord(line[:len(line)-1])
		if err != nil || back != rec || auditLineID(line) != 42 {
			t.Fatalf("read back %+v, %v; want %+v", back, err, rec)
		}
	})
}
