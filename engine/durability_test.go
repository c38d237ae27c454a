package engine_test

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// durabilityQueries read back everything durabilityWrites changes.
var durabilityQueries = []string{
	"MATCH (n) RETURN labels(n) AS l, properties(n) AS p ORDER BY p.id",
	"MATCH (a)-[r]->(b) RETURN a.id, type(r), properties(r), b.id ORDER BY a.id, b.id",
	"SHOW INDEXES",
	"SHOW CONSTRAINTS",
	"MATCH (n:Person) WHERE n.id = 3 RETURN n.name",
}

func durabilityWrites(t *testing.T, db *engine.DB) {
	for _, q := range []string{
		"CREATE INDEX person_id FOR (p:Person) ON (p.id)",
		"CREATE CONSTRAINT person_name ON (p:Person) ASSERT p.name IS UNIQUE",
		"UNWIND range(1, 50) AS i CREATE (:Person {id: i, name: 'p' + toString(i), born: date('2001-01-01') + duration({days: i})})",
		"MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 CREATE (a)-[:KNOWS {since: a.id * 10, tags: ['x', a.id]}]->(b)",
		"MATCH (p:Person) WHERE p.id % 7 = 0 SET p.seven = true, p:Lucky REMOVE p.born",
		"MATCH (p:Person {id: 10}) DETACH DELETE p",
		"MATCH (a:Person {id: 20})-[r:KNOWS]->() DELETE r",
		"CREATE (:City {id: 1000, name: 'Zürich', geo: [47.37, 8.54]})",
		"DROP INDEX person_id",
	} {
		mustQuery(t, db, q, nil)
	}
}

func snapshotOf(t *testing.T, db *engine.DB) []string {
	t.Helper()
	var out []string
	for _, q := range durabilityQueries {
		out = append(out, q+" → "+strings.Join(mustQuery(t, db, q, nil), " | "))
	}
	return out
}

func sameState(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s:\n got %s\nwant %s", what, got[i], want[i])
		}
	}
}

// Every acknowledged commit survives a crash (no checkpoint ran: the log
// holds them all), and a clean close checkpoints so that the next open
// replays nothing.
func TestCommitsSurviveCrashAndRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	durabilityWrites(t, db)
	want := snapshotOf(t, db)
	if d := db.Durability(); !d.Enabled || d.WALLSN == 0 || d.LastCheckpointLSN != 0 {
		t.Fatalf("durability before the crash: %+v", d)
	}
	engine.Abandon(db)

	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "after a crash", snapshotOf(t, db), want)
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	// Writes after recovery go on from the recovered state.
	mustQuery(t, db, "CREATE (:Person {id: 99, name: 'late'})", nil)
	if _, err := db.Query(t.Context(), "CREATE (:Person {id: 98, name: 'p1'})", nil); err == nil {
		t.Fatal("the recovered UNIQUE constraint was not enforced")
	}
	want = snapshotOf(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sameState(t, "after a clean close", snapshotOf(t, db), want)
	if d := db.Durability(); d.WALLSN != d.LastCheckpointLSN || d.WALLSN == 0 {
		t.Fatalf("a clean close left the log past the checkpoint: %+v", d)
	}
}

// Changes on top of an imported graph are logged like any others, and a
// CHECKPOINT statement folds them into a new base.
func TestWritesOnImportedBaseAndCheckpoint(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"persons.csv": importPersons})
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := engine.Import(engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "Person", Path: filepath.Join(in, "persons.csv")}}}); err != nil {
		t.Fatal(err)
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "MATCH (p:Person) SET p.seen = 1", nil)
	mustQuery(t, db, "CREATE (:Person {id: 100})", nil)
	count := func(db *engine.DB) string {
		return strings.Join(mustQuery(t, db, "MATCH (p:Person) RETURN count(*), sum(p.seen)", nil), ",")
	}
	if got := count(db); got != "5, 4" && got != "5,4" {
		t.Logf("count %s", got)
	}
	want := count(db)
	engine.Abandon(db)
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(db); got != want {
		t.Fatalf("after a crash on an imported base: %s, want %s", got, want)
	}
	mustQuery(t, db, "CHECKPOINT", nil)
	d := db.Durability()
	if d.LastCheckpointLSN != d.WALLSN || d.Checkpoints != 1 {
		t.Fatalf("after CHECKPOINT: %+v", d)
	}
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Query(t.Context(), "CHECKPOINT", nil); !hasCode(err, "40000") {
		t.Fatalf("CHECKPOINT in a transaction: %v", err)
	}
	tx.Rollback()
	engine.Abandon(db)
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := count(db); got != want {
		t.Fatalf("after a checkpoint and a crash: %s, want %s", got, want)
	}
}

// walSegments lists the log's segment files, oldest first.
func walSegments(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, engine.WALDirName))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(dir, engine.WALDirName, e.Name()))
	}
	sort.Strings(out)
	return out
}

// A torn last record is cut and the commits before it kept; a corrupt
// record followed by intact ones stops the server from starting, naming
// the file.
func TestRecoveryTornTailAndCorruption(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		mustQuery(t, db, "CREATE (:N {i: $i})", engine.Params{"i": int64(i)})
	}
	engine.Abandon(db)
	segs := walSegments(t, dir)
	seg := segs[len(segs)-1]
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}

	// Torn: the last record loses its final bytes.
	if err := os.WriteFile(seg, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(mustQuery(t, db, "MATCH (n:N) RETURN n.i ORDER BY n.i", nil), ","); got != "0,1" {
		t.Fatalf("after a torn tail: %s, want 0,1", got)
	}
	engine.Abandon(db)

	// Corrupt: a byte in the middle of the first record, with intact ones
	// after it.
	data, err = os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	bad[20] ^= 0x5a
	if err := os.WriteFile(seg, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Open(dir, engine.Options{}); err == nil || !strings.Contains(err.Error(), filepath.Base(seg)) || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("open with a corrupt record before intact ones: %v", err)
	}
	// Nothing was cut: restoring the byte restores the database.
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := strings.Join(mustQuery(t, db, "MATCH (n:N) RETURN n.i ORDER BY n.i", nil), ","); got != "0,1" {
		t.Fatalf("after repair: %s", got)
	}
}

// The storage procedures report real figures: counts, the log position,
// the last checkpoint, dead id slots, and a passing integrity check.
func TestStorageProcedures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "UNWIND range(1, 5000) AS i CREATE (:P {i: i})-[:R]->(:Q)", nil)
	mustQuery(t, db, "MATCH (p:P) WHERE p.i <= 2100 DETACH DELETE p", nil)
	got := one(t, db, "CALL quiver.storage.stats() YIELD node_count, edge_count, label_count, format_version, wal_lsn, last_checkpoint_lsn, free_pages_nodes, free_pages_adj_out, free_pages_var RETURN *")
	d := db.Durability()
	// 7900 nodes (2900 P + 5000 Q), 2900 relationships, 2 labels; 2100
	// dead node ids and 2100 dead relationship ids: one 2048-id page each.
	want := strings.Join([]string{"2900", itoa(storage.FormatVersion), "1", "1", "0", "2", itoa(int(d.LastCheckpointLSN)), "7900", itoa(int(d.WALLSN))}, " | ")
	if got != want {
		t.Fatalf("stats: %s\nwant %s (RETURN * orders columns by name)", got, want)
	}
	mustQuery(t, db, "CHECKPOINT", nil)
	if got := one(t, db, "CALL quiver.storage.stats() YIELD wal_lsn, last_checkpoint_lsn RETURN wal_lsn = last_checkpoint_lsn AND wal_lsn > 0"); got != "true" {
		t.Fatalf("after CHECKPOINT: %s", got)
	}
	if got := one(t, db, "CALL quiver.storage.integrity()"); got != "true | true | 7900 | 0" {
		t.Fatalf("integrity: %s", got)
	}
	// The optional graph name: the one graph's name or null reads it;
	// another name is 42S02; a fourth argument is too many.
	for _, q := range []string{"CALL quiver.storage.stats('default') YIELD node_count RETURN node_count",
		"CALL quiver.storage.stats(null) YIELD node_count RETURN node_count"} {
		if got := one(t, db, q); got != "7900" {
			t.Fatalf("%s: %s", q, got)
		}
	}
	if e := queryErr(t, db, "CALL quiver.storage.stats('other')", nil); e.Code != errs.CodeNoObject ||
		!strings.Contains(e.Error(), `graph "other" does not exist`) {
		t.Fatalf("stats('other'): %v", e)
	}
	if e := queryErr(t, db, "CALL quiver.storage.stats('default', 1)", nil); e.Code != errs.CodeSyntax ||
		!strings.Contains(e.Error(), "takes 0 to 1 arguments, not 2: quiver.storage.stats(graph = null :: STRING)") {
		t.Fatalf("stats with two arguments: %v", e)
	}
}

// Cutting the log at every byte offset inside its last two records keeps
// exactly the commits whose records are whole.
// segmentBase is the log position a WAL segment starts at (its name).
func segmentBase(t *testing.T, path string) uint64 {
	t.Helper()
	base, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "wal-"), ".log"), 16, 64)
	if err != nil {
		t.Fatalf("segment name %s: %v", path, err)
	}
	return base
}

func TestRecoveryAtEveryTornOffset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// ends are the segment offsets where each commit's record ends. They
	// come from the log position, not the file's size: segments are
	// preallocated, so their size says nothing of what was written.
	var ends []int64
	seg := ""
	for i := 0; i < 4; i++ {
		mustQuery(t, db, "CREATE (:N {i: $i, pad: $pad})", engine.Params{"i": int64(i), "pad": strings.Repeat("x", 40*i)})
		segs := walSegments(t, dir)
		if seg != "" && segs[len(segs)-1] != seg {
			t.Fatal("the commits span two segments")
		}
		seg = segs[len(segs)-1]
		ends = append(ends, int64(db.Durability().WALLSN-segmentBase(t, seg)))
	}
	if ends[3]-ends[1] < 80 {
		t.Fatalf("commit records end at %v: too close to cut between", ends)
	}
	engine.Abandon(db)
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(t.TempDir(), "copy")
	for cut := ends[1]; cut < ends[3]; cut++ {
		if err := os.RemoveAll(scratch); err != nil {
			t.Fatal(err)
		}
		copyTree(t, dir, scratch)
		if err := os.WriteFile(filepath.Join(scratch, engine.WALDirName, filepath.Base(seg)), data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := engine.Open(scratch, engine.Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		want := 2
		if cut >= ends[2] {
			want = 3
		}
		if got := one(t, db, "MATCH (n:N) RETURN count(*)"); got != itoa(want) {
			t.Fatalf("cut at %d of %d: %s commits recovered, want %d", cut, ends[3], got, want)
		}
		engine.Abandon(db)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// COPY FROM is logged like any write.
func TestCopyFromIsDurable(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"persons.csv": importPersons})
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{ImportDir: in})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "COPY Person FROM 'persons.csv'", nil)
	want := one(t, db, "MATCH (p:Person) RETURN p.name, p.born ORDER BY p.name")
	engine.Abandon(db)
	db, err = engine.Open(dir, engine.Options{ImportDir: in})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := one(t, db, "MATCH (p:Person) RETURN p.name, p.born ORDER BY p.name"); got != want || got == "" {
		t.Fatalf("after a crash: %s, want %s", got, want)
	}
}
