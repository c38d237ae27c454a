package auth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// testClock is a clock tests move by hand: each reading is a second after
// the last, so every event has its own timestamp.
type auditClock struct {
	mu sync.Mutex // protects t
	t  time.Time
}

func newAuditClock() *auditClock {
	return &auditClock{t: time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)}
}

func (c *auditClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// logSink collects log records' messages and levels.
type auditLogSink struct {
	mu   sync.Mutex // protects buf
	buf  bytes.Buffer
	errs atomic.Int64
}

func (s *auditLogSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.Contains(p, []byte("level=ERROR")) {
		s.errs.Add(1)
	}
	return s.buf.Write(p)
}

func (s *auditLogSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *auditLogSink) logger() *slog.Logger { return slog.New(slog.NewTextHandler(s, nil)) }

func openTestAudit(t *testing.T, dir string, o AuditOptions) *AuditLog {
	t.Helper()
	if o.Now == nil {
		o.Now = newAuditClock().Now
	}
	if o.Logger == nil {
		o.Logger = (&auditLogSink{}).logger()
	}
	l, err := OpenAuditLog(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func testAuditEvent(i int) engine.AuditEvent {
	return engine.AuditEvent{
		Category: "authentication", Action: "login", Outcome: engine.OutcomeFailure,
		Principal: fmt.Sprintf("user%d", i), Address: "127.0.0.1:4000", Detail: fmt.Sprintf("attempt %d", i),
	}
}

// ids lists the records' event ids in order.
func auditIDs(recs []AuditRecord) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// seq is from, from+1, …, to (descending when to < from).
func auditSeq(from, to int64) []int64 {
	var out []int64
	step := int64(1)
	if to < from {
		step = -1
	}
	for i := from; ; i += step {
		out = append(out, i)
		if i == to {
			return out
		}
	}
}

// fileLines reads every line of every file in the audit directory as
// JSON objects, failing on a line that is not one.
func auditFileLines(t *testing.T, dir string) []map[string]any {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "audit", "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: line %q: %v", p, sc.Text(), err)
			}
			out = append(out, m)
		}
	}
	return out
}

// fileIDs is the sorted event ids of every line of every file.
func auditFileIDs(t *testing.T, dir string) []int64 {
	var out []int64
	for _, m := range auditFileLines(t, dir) {
		out = append(out, int64(m["event_id"].(float64)))
	}
	slices.Sort(out)
	return out
}

// Events come back newest first, at most n, with the fields given, and
// the file holds them as JSON lines with the documented keys, 0600 in a
// 0700 directory.
func TestAuditAppendAndRecent(t *testing.T) {
	dir := t.TempDir()
	l := openTestAudit(t, dir, AuditOptions{})
	for i := 1; i <= 5; i++ {
		l.Audit(testAuditEvent(i))
	}
	got := l.Recent(3)
	if !slices.Equal(auditIDs(got), []int64{5, 4, 3}) {
		t.Fatalf("Recent(3) = %v", auditIDs(got))
	}
	if got[0].AuditEvent != testAuditEvent(5) || got[0].Time.Location() != time.UTC || !got[0].Time.After(got[1].Time) {
		t.Fatalf("newest record %+v", got[0])
	}
	if all := l.Recent(100); !slices.Equal(auditIDs(all), auditSeq(5, 1)) {
		t.Fatalf("Recent(100) = %v", auditIDs(all))
	}
	if none := l.Recent(0); len(none) != 0 {
		t.Fatalf("Recent(0) = %v", none)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "audit", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	want := `{"event_id":1,"timestamp":"2025-03-04T05:06:08.123456789Z","category":"authentication","action":"login","outcome":"failure","principal":"user1","address":"127.0.0.1:4000","detail":"attempt 1"}`
	if first != want {
		t.Fatalf("first line\n%s\nwant\n%s", first, want)
	}
	if !slices.Equal(auditFileIDs(t, dir), auditSeq(1, 5)) {
		t.Fatalf("file ids %v", auditFileIDs(t, dir))
	}
	for path, mode := range map[string]os.FileMode{"audit": 0o700, "audit/audit.log": 0o600} {
		st, err := os.Stat(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), mode)
		}
	}
}

// Ids continue across a restart, and the events read back are those
// written, timestamps included.
func TestAuditReopenContinues(t *testing.T) {
	dir := t.TempDir()
	l := openTestAudit(t, dir, AuditOptions{})
	for i := 1; i <= 3; i++ {
		l.Audit(testAuditEvent(i))
	}
	before := l.Recent(10)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2 := openTestAudit(t, dir, AuditOptions{})
	after := l2.Recent(10)
	if len(after) != len(before) {
		t.Fatalf("after reopen %v, before %v", auditIDs(after), auditIDs(before))
	}
	for i := range before {
		if after[i].ID != before[i].ID || !after[i].Time.Equal(before[i].Time) || after[i].AuditEvent != before[i].AuditEvent {
			t.Fatalf("record %d: %+v after reopen, %+v before", i, after[i], before[i])
		}
	}
	l2.Audit(testAuditEvent(4))
	if got := auditIDs(l2.Recent(2)); !slices.Equal(got, []int64{4, 3}) {
		t.Fatalf("after reopen and one more event: %v", got)
	}
	l2.Close()
	if !slices.Equal(auditFileIDs(t, dir), auditSeq(1, 4)) {
		t.Fatalf("file ids %v", auditFileIDs(t, dir))
	}
}

// The ring read back at open holds the newest events of the trail, also
// when they span rotated files, and no more than its size.
func TestAuditRingAfterReopen(t *testing.T) {
	dir := t.TempDir()
	o := AuditOptions{MaxFileBytes: 700, ringSize: 7}
	l := openTestAudit(t, dir, o)
	for i := 1; i <= 20; i++ {
		l.Audit(testAuditEvent(i))
	}
	if got := auditIDs(l.Recent(MaxRecent)); !slices.Equal(got, auditSeq(20, 14)) {
		t.Fatalf("ring before reopen: %v", got)
	}
	l.Close()
	if n, _ := filepath.Glob(filepath.Join(dir, "audit", "audit-*.log")); len(n) < 3 {
		t.Fatalf("expected several rotated files, have %v", n)
	}
	l2 := openTestAudit(t, dir, o)
	if got := auditIDs(l2.Recent(MaxRecent)); !slices.Equal(got, auditSeq(20, 14)) {
		t.Fatalf("ring after reopen: %v", got)
	}
	// A crash between a rotation's rename and the first write to the new
	// file leaves no audit.log: ids still continue from the rotated files.
	l2.Close()
	cur := filepath.Join(dir, "audit", "audit.log")
	data, err := os.ReadFile(cur)
	if err != nil {
		t.Fatal(err)
	}
	first := auditLineID(data)
	if err := os.Rename(cur, filepath.Join(dir, "audit", fmt.Sprintf("audit-%d.log", first))); err != nil {
		t.Fatal(err)
	}
	l3 := openTestAudit(t, dir, o)
	if got := auditIDs(l3.Recent(MaxRecent)); !slices.Equal(got, auditSeq(20, 14)) {
		t.Fatalf("ring after a rotation without a new file: %v", got)
	}
	l3.Audit(testAuditEvent(21))
	if got := l3.Recent(1)[0].ID; got != 21 {
		t.Fatalf("the next id is %d", got)
	}
}

// A crash that cut the last write leaves a line without its newline: it
// is cut off, and the events before it stay.
func TestAuditTornLastLine(t *testing.T) {
	for name, tail := range map[string]string{
		"half a line": `{"event_id":4,"timestamp":"2025-03-04T05:0`,
		"zeroes":      "\x00\x00\x00\x00\x00\x00\x00\x00",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := openTestAudit(t, dir, AuditOptions{})
			for i := 1; i <= 3; i++ {
				l.Audit(testAuditEvent(i))
			}
			l.Close()
			path := filepath.Join(dir, "audit", "audit.log")
			whole, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			auditAppendFile(t, path, tail)
			sink := &auditLogSink{}
			l2 := openTestAudit(t, dir, AuditOptions{Logger: sink.logger()})
			if got := auditIDs(l2.Recent(10)); !slices.Equal(got, auditSeq(3, 1)) {
				t.Fatalf("events after the torn line: %v", got)
			}
			if data, _ := os.ReadFile(path); !bytes.Equal(data, whole) {
				t.Fatalf("the torn tail was not cut:\n%q", data[len(whole):])
			}
			if !strings.Contains(sink.String(), "torn") {
				t.Fatalf("no warning about the torn line: %s", sink.String())
			}
			l2.Audit(testAuditEvent(4))
			l2.Close()
			if !slices.Equal(auditFileIDs(t, dir), auditSeq(1, 4)) {
				t.Fatalf("file ids %v", auditFileIDs(t, dir))
			}
		})
	}
}

func auditAppendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A corrupt line in the middle is skipped with a warning; the others are
// read, and a damaged line whose event_id is still readable keeps that id
// from being used again.
func TestAuditCorruptLines(t *testing.T) {
	dir := t.TempDir()
	l := openTestAudit(t, dir, AuditOptions{})
	for i := 1; i <= 4; i++ {
		l.Audit(testAuditEvent(i))
	}
	l.Close()
	path := filepath.Join(dir, "audit", "audit.log")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "this is not JSON\n"                                         // event 2
	lines[2] = lines[2][:40] + "\x01garbage\n"                              // event 3, its id readable
	lines = append(lines[:4], `{"event_id":9,"timestamp":"nonsense"}`+"\n") // a whole line, bad timestamp
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	sink := &auditLogSink{}
	l2 := openTestAudit(t, dir, AuditOptions{Logger: sink.logger()})
	if got := auditIDs(l2.Recent(10)); !slices.Equal(got, []int64{4, 1}) {
		t.Fatalf("events read back: %v", got)
	}
	if n := strings.Count(sink.String(), "corrupt line"); n != 3 {
		t.Fatalf("%d warnings about corrupt lines, want 3:\n%s", n, sink.String())
	}
	l2.Audit(testAuditEvent(10))
	if got := l2.Recent(1)[0].ID; got != 10 {
		t.Fatalf("the next id after a damaged line naming 9 is %d", got)
	}
}

// Rotation keeps every event exactly once: each rotated file is named by
// its first event_id, stays within MaxFileBytes, and ids continue after a
// reopen.
func TestAuditRotationKeepsEveryEvent(t *testing.T) {
	dir := t.TempDir()
	const maxBytes = 1000
	o := AuditOptions{MaxFileBytes: maxBytes}
	l := openTestAudit(t, dir, o)
	for i := 1; i <= 40; i++ {
		l.Audit(testAuditEvent(i))
	}
	l.Close()
	l2 := openTestAudit(t, dir, o)
	for i := 41; i <= 60; i++ {
		l2.Audit(testAuditEvent(i))
	}
	l2.Close()
	if got := auditFileIDs(t, dir); !slices.Equal(got, auditSeq(1, 60)) {
		t.Fatalf("ids across the files: %v", got)
	}
	rotated, err := auditRotatedFiles(vfs.Default, filepath.Join(dir, "audit"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rotated) < 5 {
		t.Fatalf("only %d rotated files", len(rotated))
	}
	for _, rf := range rotated {
		data, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxBytes {
			t.Errorf("%s has %d bytes", rf.path, len(data))
		}
		first, _, _ := bytes.Cut(data, []byte{'\n'})
		if auditLineID(first) != rf.first {
			t.Errorf("%s starts with event %d", rf.path, auditLineID(first))
		}
	}
}

// Concurrent events get distinct ids and all reach the file.
func TestAuditConcurrent(t *testing.T) {
	dir := t.TempDir()
	l := openTestAudit(t, dir, AuditOptions{MaxFileBytes: 16 << 10})
	const workers, each = 16, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				l.Audit(testAuditEvent(w*each + i))
				if i%10 == 0 {
					l.Recent(5)
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := auditFileIDs(t, dir); !slices.Equal(got, auditSeq(1, workers*each)) {
		t.Fatalf("file ids: %d of them, want 1..%d", len(got), workers*each)
	}
	if l.Failures() != 0 {
		t.Fatalf("%d failures", l.Failures())
	}
}

// Events that arrive while a sync runs share the next one: ten waiting
// callers cost one sync.
func TestAuditGroupCommit(t *testing.T) {
	dir := t.TempDir()
	var syncs atomic.Int64
	started, release := make(chan struct{}), make(chan struct{})
	l := openTestAudit(t, dir, AuditOptions{syncFile: func(f vfs.File) error {
		if syncs.Add(1) == 1 {
			close(started)
			<-release
		}
		return f.Sync()
	}})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); l.Audit(testAuditEvent(0)) }()
	<-started // the first event's sync is running
	const waiting = 10
	for i := range waiting {
		wg.Add(1)
		go func() { defer wg.Done(); l.Audit(testAuditEvent(i + 1)) }()
	}
	for auditQueued(l) < waiting {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if n := syncs.Load(); n != 2 {
		t.Fatalf("%d syncs for 1+%d events, want 2", n, waiting)
	}
	l.Close()
	if got := auditFileIDs(t, dir); !slices.Equal(got, auditSeq(1, waiting+1)) {
		t.Fatalf("file ids %v", got)
	}
}

func auditQueued(l *AuditLog) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.mu.queue.ids)
}

// A failing disk neither panics nor blocks Audit: the events stay in
// memory, are counted, and the error is logged once, not per event.
func TestAuditDiskFailure(t *testing.T) {
	dir := t.TempDir()
	sink := &auditLogSink{}
	l := openTestAudit(t, dir, AuditOptions{Logger: sink.logger(), syncFile: func(f vfs.File) error {
		f.Close() // every later write fails too
		return errors.New("injected: input/output error")
	}})
	for i := 1; i <= 5; i++ {
		l.Audit(testAuditEvent(i))
	}
	if got := auditIDs(l.Recent(10)); !slices.Equal(got, auditSeq(5, 1)) {
		t.Fatalf("events in memory: %v", got)
	}
	if l.Failures() != 5 {
		t.Fatalf("%d failures counted, want 5", l.Failures())
	}
	if n := sink.errs.Load(); n != 1 {
		t.Fatalf("%d errors logged, want 1:\n%s", n, sink.String())
	}
	l.Close()
	// After Close, events are still taken, in memory.
	l.Audit(testAuditEvent(6))
	if got := l.Recent(1); got[0].ID != 6 || l.Failures() != 6 {
		t.Fatalf("after close: %v, %d failures", auditIDs(got), l.Failures())
	}
}

// A disk that does not answer holds Audit back for waitLimit only.
func TestAuditHungDisk(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	l := openTestAudit(t, dir, AuditOptions{waitLimit: 50 * time.Millisecond, syncFile: func(f vfs.File) error {
		<-release
		return f.Sync()
	}})
	start := time.Now()
	l.Audit(testAuditEvent(1))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Audit waited %v on a hung disk", d)
	}
	if l.Failures() != 1 || len(l.Recent(1)) != 1 {
		t.Fatalf("failures %d, recent %v", l.Failures(), l.Recent(1))
	}
	close(release)
	// Close waits waitLimit too, which a loaded machine may pass; the
	// writer ends all the same, and then the event is in the file.
	if err := l.Close(); err != nil && !strings.Contains(err.Error(), "did not answer") {
		t.Fatal(err)
	}
	<-l.finished
	if got := auditFileIDs(t, dir); !slices.Equal(got, []int64{1}) {
		t.Fatalf("file ids %v", got)
	}
}

// Control characters, separators, bidirectional overrides and invalid
// UTF-8 are removed or replaced, and each field is capped, so one event
// is one bounded line.
func TestAuditSanitises(t *testing.T) {
	dir := t.TempDir()
	l := openTestAudit(t, dir, AuditOptions{})
	l.Audit(engine.AuditEvent{
		Category:  "authentication",
		Action:    "login\n{\"event_id\":999}",
		Outcome:   "fail\x00ure\x7f\u0085",
		Principal: "ad\u202emin\u2028x",
		Address:   "1.2.3.4\xff",
		Detail:    strings.Repeat("é", 3000) + `"\`,
	})
	l.Close()
	r := l.Recent(1)[0]
	if r.Action != `login{"event_id":999}` || r.Outcome != "failure" || r.Principal != "adminx" || r.Address != "1.2.3.4\uFFFD" {
		t.Fatalf("sanitised record %+v", r.AuditEvent)
	}
	if len(r.Detail) > auditMaxFieldBytes || len(r.Detail) < auditMaxFieldBytes-1 || strings.Trim(r.Detail, "é") != "" {
		t.Fatalf("detail of %d bytes: %q…", len(r.Detail), r.Detail[:10])
	}
	lines := auditFileLines(t, dir)
	if len(lines) != 1 || lines[0]["action"] != r.Action || lines[0]["detail"] != r.Detail {
		t.Fatalf("file lines %v", lines)
	}
	for in, want := range map[string]string{
		"plain":            "plain",
		"tab\there":        "tabhere",
		"\u200fx\u2066y":   "xy",
		"ok \u00e9 \u4e16": "ok \u00e9 \u4e16",
	} {
		if got := auditSanitize(in); got != want {
			t.Errorf("auditSanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// Without a data directory the trail lives in memory: ids, Recent and
// Close work and nothing is written.
func TestAuditInMemory(t *testing.T) {
	l := openTestAudit(t, "", AuditOptions{ringSize: 4})
	for i := 1; i <= 6; i++ {
		l.Audit(testAuditEvent(i))
	}
	if got := auditIDs(l.Recent(10)); !slices.Equal(got, auditSeq(6, 3)) {
		t.Fatalf("Recent = %v", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.Audit(testAuditEvent(7))
	if got := l.Recent(1)[0].ID; got != 7 || l.Failures() != 0 {
		t.Fatalf("after close: id %d, %d failures", got, l.Failures())
	}
}
