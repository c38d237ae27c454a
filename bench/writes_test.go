package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func msec(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestPercentile(t *testing.T) {
	var hundred []time.Duration
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, time.Duration(i))
	}
	var thousand []time.Duration
	for i := 1; i <= 1000; i++ {
		thousand = append(thousand, time.Duration(i))
	}
	for _, c := range []struct {
		xs   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{[]time.Duration{7}, 50, 7},
		{[]time.Duration{7}, 99, 7},
		{[]time.Duration{1, 2}, 50, 1}, // nearest rank: ceil(0.5·2) = 1st
		{[]time.Duration{1, 2, 3}, 50, 2},
		{[]time.Duration{1, 2, 3, 4}, 50, 2},
		{[]time.Duration{1, 2, 3, 4}, 99, 4},
		{hundred, 50, 50},
		{hundred, 99, 99}, // exactly 99 %, not rounded up to the 100th
		{hundred, 100, 100},
		{thousand, 99, 990},
		{thousand, 99.9, 999},
		{thousand, 0.1, 1},
	} {
		if got := Percentile(c.xs, c.p); got != c.want {
			t.Errorf("Percentile(%d values, %v) = %v, want %v", len(c.xs), c.p, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	lat := []time.Duration{msec(5), msec(1), msec(3), msec(2), msec(4)}
	s := Summarize(lat)
	want := LatencySummary{N: 5, P50: msec(3), P99: msec(5), Max: msec(5), Mean: msec(3)}
	if s != want {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
	if lat[0] != msec(1) {
		t.Fatal("Summarize did not sort its argument in place")
	}
	if (Summarize(nil) != LatencySummary{}) {
		t.Fatal("Summarize(nil) is not zero")
	}
	if MedianOf([]float64{3, 1, 2, 10}) != 2.5 || MedianOf([]time.Duration{4, 1, 9}) != 4 || MedianOf[int64](nil) != 0 {
		t.Fatal("MedianOf")
	}
}

func TestAppendWriteBody(t *testing.T) {
	body := AppendWriteBody(nil, WriteStatement, 12345, -7)
	var doc struct {
		Query      string           `json:"query"`
		Parameters map[string]int64 `json:"parameters"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if doc.Query != WriteStatement || doc.Parameters["id"] != 12345 || doc.Parameters["c"] != -7 || len(doc.Parameters) != 2 {
		t.Fatalf("decoded %+v from %s", doc, body)
	}
}

// Lines recorded from `quiver serve` (cmd/quiver/serve.go,
// engine/durability.go).
const (
	recordedListening  = `time=2026-11-25T05:42:15.157Z level=INFO msg=listening addr=127.0.0.1:37659 data_dir=/tmp/tmp.VidULvkXRJ/db version=0.1.0-dev`
	recordedCheckpoint = `time=2026-11-25T05:42:16.168Z level=INFO msg="wrote a checkpoint" reason="CHECKPOINT statement" lsn=40 bytes=950 took=9ms`
	recordedRecovered  = `time=2026-11-25T05:52:31.020Z level=INFO msg="recovered commits from the write-ahead log" records=1000000 from_lsn=0 to_lsn=39845812 nodes=1000000 relationships=0 took=4.398s`
	recordedQuoted     = `time=2026-11-25T05:42:08.137Z level=WARN msg="created a new, empty database: the data directory did not exist" dir="/tmp/a dir/db"`
)

func TestServerLogLines(t *testing.T) {
	if addr, ok := ParseListening(recordedListening); !ok || addr != "127.0.0.1:37659" {
		t.Fatalf("ParseListening = %q, %v", addr, ok)
	}
	for _, line := range []string{recordedCheckpoint, recordedQuoted, `msg=listening`, `garbage`, ``} {
		if _, ok := ParseListening(line); ok {
			t.Errorf("ParseListening(%q) recognised it", line)
		}
	}
	c, err := ParseCheckpointLine(recordedCheckpoint)
	if err != nil || c != (CheckpointLog{Reason: "CHECKPOINT statement", Bytes: 950, Took: 9 * time.Millisecond}) {
		t.Fatalf("ParseCheckpointLine = %+v, %v", c, err)
	}
	if _, err := ParseCheckpointLine(recordedListening); err == nil {
		t.Fatal("a listening line parsed as a checkpoint")
	}
	for key, want := range map[string]string{"records": "1000000", "took": "4.398s", "msg": "recovered commits from the write-ahead log", "nodes": "1000000", "absent": ""} {
		if got := SlogField(recordedRecovered, key); got != want {
			t.Errorf("SlogField(recovered, %s) = %q, want %q", key, got, want)
		}
	}
	if got := SlogField(recordedQuoted, "dir"); got != "/tmp/a dir/db" {
		t.Errorf("quoted value %q", got)
	}
	if got := SlogField(`msg="unterminated`, "msg"); got != "" {
		t.Errorf("malformed line gave %q", got)
	}
}

// A line recorded from run.js's writes op (Kùzu 0.11.3), latencies cut.
const recordedKuzuWrites = `{"ok":true,"commits":5,"ms":5.156000000000006,"lat_us":[1078,1498,743,684,1138],"count":7,"version":"0.11.3"}`

func TestParseKuzuWrites(t *testing.T) {
	a, err := ParseKuzuAnswer([]byte(recordedKuzuWrites))
	if err != nil {
		t.Fatal(err)
	}
	if a.Commits != 5 || a.Count != 7 || len(a.LatUS) != 5 || a.LatUS[2] != 743 || a.Version != "0.11.3" {
		t.Fatalf("writes answer %+v", a)
	}
	s := Summarize([]time.Duration{1078, 1498, 743, 684, 1138})
	if s.P50 != 1078 || s.P99 != 1498 {
		t.Fatalf("%+v", s)
	}
}

func TestParseHost(t *testing.T) {
	const mountinfo = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
30 22 0:26 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k
31 22 0:27 / /data\040disk rw shared:6 - xfs /dev/vdb rw
32 30 0:28 / /tmp/inner rw shared:7 - ext4 /dev/vdc rw`
	for path, want := range map[string]string{
		"/work/main":         "ext4 /dev/vda /",
		"/tmp":               "tmpfs tmpfs /tmp",
		"/tmp/x/y":           "tmpfs tmpfs /tmp",
		"/tmpfoo":            "ext4 /dev/vda /",
		"/tmp/inner/db":      "ext4 /dev/vdc /tmp/inner",
		"/data disk/quiver":  "xfs /dev/vdb /data disk",
		"/data disk":         "xfs /dev/vdb /data disk",
		"/data diskette/abc": "ext4 /dev/vda /",
	} {
		fs, err := ParseMountinfo(mountinfo, path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fs.Type + " " + fs.Source + " " + fs.MountPoint; got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	if fs, _ := ParseMountinfo(mountinfo, "/tmp/x"); !fs.InMemory() {
		t.Error("tmpfs is not in memory")
	}
	if _, err := ParseMountinfo("", "/"); err == nil {
		t.Error("no mounts, no error")
	}

	avg, err := ParseLoadAvg("0.22 0.57 0.77 1/234 5678\n")
	if err != nil || avg != [3]float64{0.22, 0.57, 0.77} {
		t.Fatalf("ParseLoadAvg = %v, %v", avg, err)
	}
	if _, err := ParseLoadAvg("0.22"); err == nil {
		t.Error("short loadavg parsed")
	}
	// The command name may hold spaces and parentheses.
	cpu, err := ParseProcStatCPU("1234 (quiver (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 100 1000 50")
	if err != nil || cpu != 325 {
		t.Fatalf("ParseProcStatCPU = %d, %v", cpu, err)
	}
	busy, err := ParseProcStatBusy("cpu  748080 1973 239120 4960716 12509 0 9484 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	if err != nil || busy != 748080+1973+239120+9484 {
		t.Fatalf("ParseProcStatBusy = %d, %v", busy, err)
	}
	const diskstats = ` 254       0 vda 585287 125905 26161522 349029 750256 192547 30108648 173513 0 211804 631489 509729 1051 33203240 76681 210973 32265
 254      16 vdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17`
	if n, ok := ParseDiskFlushes(diskstats, "vda"); !ok || n != 210973 {
		t.Fatalf("ParseDiskFlushes(vda) = %d, %v", n, ok)
	}
	if n, ok := ParseDiskFlushes(diskstats, "vdb"); !ok || n != 16 {
		t.Fatalf("ParseDiskFlushes(vdb) = %d, %v", n, ok)
	}
	if _, ok := ParseDiskFlushes(diskstats, "sda"); ok {
		t.Fatal("an absent device has flushes")
	}
}

func TestSpliceSection(t *testing.T) {
	const doc = "# Results\n\ntext\n\n## Queries\n\nq\n"
	sec := WritesHeading + "\n\nfirst\n\n### Measures\n\nm\n"
	once := SpliceSection(doc, WritesHeading, sec)
	if once != doc+"\n"+sec {
		t.Fatalf("appended:\n%s", once)
	}
	if got := ExtractSection(once, WritesHeading); got != sec {
		t.Fatalf("extracted %q", got)
	}
	// Replacing keeps what follows the section.
	withTail := once + "\n## The suite\n\nQ1\n"
	sec2 := WritesHeading + "\n\nsecond\n"
	got := SpliceSection(withTail, WritesHeading, sec2)
	want := doc + "\n" + sec2 + "\n## The suite\n\nQ1\n"
	if got != want {
		t.Fatalf("replaced:\n%q\nwant\n%q", got, want)
	}
	if SpliceSection(got, WritesHeading, sec2) != got {
		t.Fatal("splicing the same section twice changed the document")
	}
	// A report rewritten by `run` keeps the section.
	if kept := SpliceSection(doc, WritesHeading, ExtractSection(got, WritesHeading)); ExtractSection(kept, WritesHeading) != sec2 {
		t.Fatalf("kept:\n%s", kept)
	}
	if ExtractSection(doc, WritesHeading) != "" {
		t.Fatal("a document without the section has one")
	}
	if SpliceSection("", WritesHeading, sec) != sec {
		t.Fatal("into an empty document")
	}
	if s := SpliceSection(sec+"\n## Next\n", WritesHeading, sec2); s != sec2+"\n## Next\n" {
		t.Fatalf("a section at the start: %q", s)
	}
}

func TestVerdictAndText(t *testing.T) {
	for _, c := range []struct {
		got, goal float64
		atLeast   bool
		want      string
	}{
		{25000, 20000, true, "yes: 1.25× the goal"},
		{12000, 20000, true, "**no**: 0.60× the goal, short by 40%"},
		{2.5, 5, false, "yes: 50% of the bound"},
		{6, 5, false, "**no**: 1.20× the bound, over by 20%"},
		{1, 0, true, ""},
	} {
		if got := verdict(c.got, c.goal, c.atLeast); got != c.want {
			t.Errorf("verdict(%v, %v, %v) = %q, want %q", c.got, c.goal, c.atLeast, got, c.want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -20000: "-20,000"} {
		if got := countText(n); got != want {
			t.Errorf("countText(%d) = %q, want %q", n, got, want)
		}
	}
	if durText(542*time.Microsecond) != "542 µs" || durText(msec(2.98)) != "2.98 ms" {
		t.Error("durText")
	}
}

// A report of recorded numbers renders with its measures and verdicts.
func TestWriteWritesSection(t *testing.T) {
	q := func(clients int, rate float64, p50, p99 time.Duration) WriteResult {
		return WriteResult{Clients: clients, Commits: int64(rate * 10), Elapsed: 10 * time.Second,
			Latency: LatencySummary{P50: p50, P99: p99, Max: p99}, ServerCPU: 5 * time.Second, ClientCPU: 2 * time.Second, OtherCPU: -1, DiskFlushes: -1}
	}
	r := &WritesReport{
		WritesConfig: WritesConfig{Clients: []int{1, 32}, Duration: 10 * time.Second, KuzuWrites: 20000, TempDir: "/tmp", Commit: "abc1234"},
		Date:         time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC), KuzuVersion: "0.11.3",
		FS: Filesystem{MountPoint: "/", Type: "ext4", Source: "/dev/vda", Options: "rw"},
		Rounds: []WritesRound{
			{Quiver: []WriteResult{q(1, 1900, msec(0.5), msec(1)), q(32, 11000, msec(2.9), msec(7))},
				Embedded: []WriteResult{q(1, 2600, msec(0.35), msec(0.8))},
				Kuzu:     []KuzuWrites{{Mode: "async", Commits: 20000, Elapsed: 10 * time.Second}, {Mode: "sync", Commits: 20000, Elapsed: 8 * time.Second}}},
			{Quiver: []WriteResult{q(1, 2100, msec(0.4), msec(1)), q(32, 12000, msec(2.5), msec(7))},
				Floor: []WriteResult{q(1, 8000, msec(0.1), msec(0.2)), q(32, 16000, msec(1.5), msec(5))}},
			{Quiver: []WriteResult{q(1, 2000, msec(0.45), msec(1)), q(32, 13000, msec(2.4), msec(6))},
				Floor: []WriteResult{q(1, 8000, msec(0.1), msec(0.2)), q(32, 20000, msec(1.4), msec(5))}},
		},
		Recovery: &RecoveryResult{Write: WriteResult{Clients: 32, Commits: 1_000_000, Elapsed: 100 * time.Second}, WALBytes: 40 << 20, WALSegments: 1,
			Warm: []RestartTiming{{Ready: msec(4400)}}, Cold: []RestartTiming{{Ready: msec(4600)}}, Open: []time.Duration{msec(4300)}},
		Checkpoint: &CheckpointResult{Import: []time.Duration{msec(3800)}, Checkpoint: []time.Duration{msec(2400)}, Engine: []time.Duration{msec(2390)}},
	}
	var b strings.Builder
	if err := WriteWritesSection(&b, r, "Limits, by hand."); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		WritesHeading + "\n",
		// The median round of each client count; Kùzu's faster mode (sync: 2,500/s).
		"| auto-commit `CREATE` over HTTP, 1 client (commits/s) | ≥ Kùzu in-process, same run: 2,500/s (sync) | 2,000/s | **no**: 0.80× the goal, short by 20% |",
		// Each round's commit rate against its own rate without a write
		// (0.75 and 0.65; the first round measured none): the median.
		"| auto-commit `CREATE` over HTTP, 32 clients (commits/s) | ≥ 0.8× the rate without a write, same run (`RETURN $id + $c AS x`: 16,000/s) | 12,000/s; 0.65× the rate without a write (median of the rounds' ratios) | **no**: 0.81× the goal, short by 19% |",
		"| median / p99 latency, 32 clients | reported | 2.50 ms / 7.00 ms | |",
		"| ≤ 5.00 s | 4.40 s (page cache warm), 4.60 s (log evicted from it) | yes: 92% of the bound |",
		"| ≤ import of M: 3.80 s | 2.40 s (ratio 0.63) | yes: 63% of the bound |",
		"| 1 | 0.00 | 0/s (0 µs) | Quiver, 1 client | 1,900/s | 500 µs | 1.00 ms | 1.00 ms | 50% | 20% | – | – |",
		"| Quiver embedded (engine in-process, no HTTP), 1 writer: commits/s, median / p99 | reported | 2,600/s, 350 µs / 800 µs | |",
		"| 1 | | | Quiver embedded, 1 writer (no HTTP) | 2,600/s | 350 µs | 800 µs | 800 µs | 20% (engine and writers) | | | |",
		"### What limits each number\n\nLimits, by hand.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the section lacks %q:\n%s", want, out)
		}
	}
}

// The load driver against Quiver's HTTP server in this process (loopback
// only): every acknowledged commit is in the database, and a failing
// statement counts as a failure, not a commit.
func TestWriteLoad(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := StartHTTP(db)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	res, err := WriteLoad{Addr: addr, Clients: 4, Count: 200, Warmup: 20 * time.Millisecond}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != 200 || res.Failures != 0 || res.Latency.N != 200 || res.Latency.P50 <= 0 || res.Latency.P99 < res.Latency.P50 {
		t.Fatalf("result %+v", res)
	}
	rows, err := srv.Query(ctx, "MATCH (n:W) RETURN count(*), count(DISTINCT n.id)")
	if err != nil {
		t.Fatal(err)
	}
	want := res.Commits + res.Warmup
	if len(rows) != 1 || rows[0][0] != want || rows[0][1] != want {
		t.Fatalf("the database holds %v, want %d nodes with distinct ids", rows, want)
	}
	res, err = WriteLoad{Addr: addr, Clients: 2, Count: 10, Statement: "CREATE (:W {id: $id, c: $c}) RETURN nosuch"}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != 0 || res.Failures != 10 || !strings.Contains(res.FirstErr, "HTTP 4") {
		t.Fatalf("failing statement: %+v", res)
	}
}

// The embedded writers on an in-memory database: every commit counted is
// in it (EmbeddedWrites checks), and the latencies are summarized.
func TestEmbeddedWrites(t *testing.T) {
	res, err := EmbeddedWrites(context.Background(), "", 3, 30*time.Millisecond, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits == 0 || res.Failures != 0 || res.Latency.N != int(res.Commits) || res.Rate() <= 0 {
		t.Fatalf("result %+v", res)
	}
}
