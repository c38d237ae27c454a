package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
)

// The power-loss test. kill -9 keeps the page cache, so it never shows
// whether the right things were synced; a power cut keeps only what was.
// This test runs a write workload — autocommit statements, explicit
// transactions (some rolled back), deletes, an index built and dropped
// on existing data, system records, CHECKPOINT statements, checkpoints
// the log size triggers in the background, log segments rolled every few
// commits — on vfs.MemFS, which keeps exactly what was synced. Before
// every sync, and at random operations between syncs, it takes the image
// a power cut would leave (strict: nothing unsynced survives; or torn: a
// prefix of the unsynced writes and some unsynced directory changes
// survive too), opens a database on it, and checks that
//
//   - recovery succeeds and the store's invariants hold (Check),
//   - the database is exactly the workload's state after some prefix of
//     its commits, at least every commit acknowledged before the cut and
//     at most the one in flight: no acknowledged commit is lost and no
//     commit is half there,
//   - for one image in eight, a commit made after recovery survives a
//     second power cut (the log recovered is one a new writer continues).
//
// By default one workload of 100 commits runs, cutting at one operation
// in eight between syncs: about 300 cuts in 3 s (25 commits under the
// race detector). QUIVER_POWERLOSS_WORKLOADS=n runs n workloads of 200
// commits, cutting at one operation in three (make powerloss-long: ten,
// thousands of cuts); QUIVER_POWERLOSS_SEED=n reruns one seed's workload
// and cut choices.

// plDir is the data directory on the MemFS.
const plDir = "/data/db"

// plOptions are the options of every open: segments of 16 KiB and a
// background checkpoint every 24 KiB of log, so that a workload of a few
// hundred commits rolls the log and checkpoints many times.
func plOptions(fsys vfs.FS) engine.Options {
	return engine.Options{FS: plWrap(fsys), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		WALSegmentSize: 16 << 10, CheckpointWALBytes: 24 << 10, CheckpointInterval: -1}
}

// plWrap is the filesystem the database runs on over the MemFS: the
// MemFS itself, or an encrypting one (TestPowerLossEncrypted).
var plWrap = func(m vfs.FS) vfs.FS { return m }

// plModel is the database's logical state as the workload sees it.
type plModel struct {
	nodes   map[int]int // tx id → nodes with that tx
	rels    map[int]int // tx id → relationships with that tx
	counter int
	index   bool
	sys     map[string]string
}

func (m *plModel) clone() *plModel {
	return &plModel{nodes: maps.Clone(m.nodes), rels: maps.Clone(m.rels), counter: m.counter, index: m.index, sys: maps.Clone(m.sys)}
}

// fingerprint is the state in the form plFingerprint reads it back.
func (m *plModel) fingerprint() string {
	var b strings.Builder
	for _, tx := range slices.Sorted(maps.Keys(m.nodes)) {
		fmt.Fprintf(&b, "n%d:%d ", tx, m.nodes[tx])
	}
	b.WriteString("| ")
	for _, tx := range slices.Sorted(maps.Keys(m.rels)) {
		fmt.Fprintf(&b, "r%d:%d ", tx, m.rels[tx])
	}
	fmt.Fprintf(&b, "| counter %d | index %v | ", m.counter, m.index)
	for _, k := range slices.Sorted(maps.Keys(m.sys)) {
		fmt.Fprintf(&b, "%s=%s ", k, m.sys[k])
	}
	return b.String()
}

// plStep is one step of a workload: a commit (or a rolled-back
// transaction, which commits nothing) or a CHECKPOINT.
type plStep struct {
	what   string
	commit bool // the step makes one commit
	run    func(ctx context.Context, db *engine.DB) error
}

// plPlan builds the workload of a seed: its steps and the fingerprint of
// the state after each number of commits (fps[0]: the empty database).
func plPlan(seed uint64, commits int) (steps []plStep, fps []string) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	m := &plModel{nodes: map[int]int{}, rels: map[int]int{}, sys: map[string]string{}}
	empty := m.clone()
	empty.counter = -1 // no Counter node yet
	fps = append(fps, empty.fingerprint())
	query := func(q string, p engine.Params) func(ctx context.Context, db *engine.DB) error {
		return func(ctx context.Context, db *engine.DB) error { return plRun(ctx, db, q, p) }
	}
	add := func(s plStep, apply func()) {
		steps = append(steps, s)
		if s.commit {
			apply()
			fps = append(fps, m.fingerprint())
		}
	}
	add(plStep{what: "create the counter", commit: true, run: query("CREATE (:Counter {v: 0})", nil)}, func() {})
	for tx := 1; len(fps) <= commits; tx++ {
		if tx%15 == 0 {
			add(plStep{what: "CHECKPOINT", run: func(ctx context.Context, db *engine.DB) error { return plRun(ctx, db, "CHECKPOINT", nil) }}, nil)
		}
		switch r := rng.IntN(100); {
		case r < 30:
			add(plStep{what: fmt.Sprintf("autocommit tx %d", tx), commit: true,
				run: query("CREATE (:T {tx: $tx, k: 0})-[:R {tx: $tx}]->(:T {tx: $tx, k: 1})", engine.Params{"tx": int64(tx)})},
				func() { m.nodes[tx], m.rels[tx] = 2, 1 })
		case r < 50:
			n, rollback := 2+rng.IntN(4), rng.IntN(8) == 0
			add(plStep{what: fmt.Sprintf("transaction tx %d (%d statements, rollback %v)", tx, n+1, rollback), commit: !rollback,
				run: func(ctx context.Context, db *engine.DB) error {
					t, err := db.BeginTransaction(engine.TransactionOptions{})
					if err != nil {
						return err
					}
					for k := range n {
						if err := plRunIn(ctx, t, "CREATE (:T {tx: $tx, k: $k})", engine.Params{"tx": int64(tx), "k": int64(k)}); err != nil {
							return err
						}
					}
					if err := plRunIn(ctx, t, "MATCH (c:Counter) SET c.v = $tx", engine.Params{"tx": int64(tx)}); err != nil {
						return err
					}
					if rollback {
						_, err = t.Rollback()
					} else {
						_, err = t.Commit()
					}
					return err
				}},
				func() { m.nodes[tx], m.counter = n, tx })
		case r < 63:
			add(plStep{what: fmt.Sprintf("counter %d", tx), commit: true,
				run: query("MATCH (c:Counter) SET c.v = $tx", engine.Params{"tx": int64(tx)})},
				func() { m.counter = tx })
		case r < 73 && len(m.nodes) > 0:
			keys := slices.Sorted(maps.Keys(m.nodes))
			old := keys[rng.IntN(len(keys))]
			add(plStep{what: fmt.Sprintf("delete tx %d", old), commit: true,
				run: query("MATCH (n:T {tx: $old}) DETACH DELETE n", engine.Params{"old": int64(old)})},
				func() { delete(m.nodes, old); delete(m.rels, old) })
		case r < 83:
			key := "pl/" + strconv.Itoa(rng.IntN(6))
			val := []byte(strconv.Itoa(tx))
			if rng.IntN(4) == 0 {
				val = nil
			}
			add(plStep{what: fmt.Sprintf("system record %s=%s", key, val), commit: true,
				run: func(ctx context.Context, db *engine.DB) error {
					return db.SystemPut(ctx, []engine.SystemRecord{{Key: key, Value: val}})
				}},
				func() {
					if val == nil {
						delete(m.sys, key)
					} else {
						m.sys[key] = string(val)
					}
				})
		case r < 89:
			q := "CREATE INDEX pl_tx FOR (n:T) ON (n.tx)"
			if m.index {
				q = "DROP INDEX pl_tx"
			}
			add(plStep{what: q, commit: true, run: query(q, nil)}, func() { m.index = !m.index })
		default:
			// A large record: the log rolls past its 16 KiB segments.
			pad := make([]byte, 2000+rng.IntN(6000))
			for i := range pad {
				pad[i] = byte('a' + rng.IntN(26))
			}
			add(plStep{what: fmt.Sprintf("large tx %d", tx), commit: true,
				run: query("CREATE (:T {tx: $tx, k: 0, pad: $pad})", engine.Params{"tx": int64(tx), "pad": string(pad)})},
				func() { m.nodes[tx] = 1 })
		}
	}
	return steps, fps
}

func plRun(ctx context.Context, db *engine.DB, q string, p engine.Params) error {
	res, err := db.Query(ctx, q, p)
	if err != nil {
		return err
	}
	_, err = drain(res)
	return err
}

func plRunIn(ctx context.Context, t *engine.Transaction, q string, p engine.Params) error {
	res, err := t.Query(ctx, q, p)
	if err != nil {
		return err
	}
	_, err = drain(res)
	return err
}

// plFingerprint reads the state back in plModel.fingerprint's form.
func plFingerprint(db *engine.DB) (string, error) {
	ctx := context.Background()
	var b strings.Builder
	rows := func(q string) ([]string, error) {
		res, err := db.Query(ctx, q, nil)
		if err != nil {
			return nil, err
		}
		return drain(res)
	}
	nodes, err := rows("MATCH (n:T) RETURN n.tx AS tx, count(*) AS c ORDER BY tx")
	if err != nil {
		return "", err
	}
	for _, r := range nodes {
		tx, c, _ := strings.Cut(r, " | ")
		fmt.Fprintf(&b, "n%s:%s ", tx, c)
	}
	b.WriteString("| ")
	rels, err := rows("MATCH (:T)-[r:R]->(:T) RETURN r.tx AS tx, count(*) AS c ORDER BY tx")
	if err != nil {
		return "", err
	}
	for _, r := range rels {
		tx, c, _ := strings.Cut(r, " | ")
		fmt.Fprintf(&b, "r%s:%s ", tx, c)
	}
	counter, err := rows("MATCH (c:Counter) RETURN c.v")
	if err != nil {
		return "", err
	}
	switch len(counter) {
	case 0:
		counter = []string{"-1"}
	case 1:
	default:
		return "", fmt.Errorf("%d Counter nodes", len(counter))
	}
	idx, err := rows("CALL db.indexes() YIELD name WHERE name = 'pl_tx' RETURN count(*)")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "| counter %s | index %v | ", counter[0], idx[0] == "1")
	for _, r := range db.SystemScan("pl/") {
		fmt.Fprintf(&b, "%s=%s ", r.Key, r.Value)
	}
	return b.String(), nil
}

// plRunner runs one workload and checks the images of its cuts.
type plRunner struct {
	t        *testing.T
	seed     uint64
	fps      []string
	started  atomic.Int64 // commits begun (the one in flight included)
	acked    atomic.Int64 // commits acknowledged
	rng      *rand.Rand   // the cut choices (under the MemFS lock)
	between  int          // 1 in between operations that are not syncs is cut
	cuts     int
	syncCuts int
	torn     int
	again    int
	failed   atomic.Bool
	mu       sync.Mutex // serializes checks (the hook runs in the committer and the checkpointer)
	stepName atomic.Pointer[string]
}

// hook is the MemFS hook: it decides the cuts and checks each image at
// once, the workload waiting meanwhile.
func (r *plRunner) hook(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
	if r.failed.Load() {
		return
	}
	lo, hi := int(r.acked.Load()), int(r.started.Load())
	if op.Kind.IsSync() {
		r.syncCuts++
		r.check(op, crash(nil), lo, hi, false)
		if r.rng.IntN(4) == 0 {
			r.check(op, crash(r.rng), lo, hi, true)
		}
		return
	}
	if r.rng.IntN(r.between) == 0 {
		torn := r.rng.IntN(2) == 0
		var tr *rand.Rand
		if torn {
			tr = r.rng
		}
		r.check(op, crash(tr), lo, hi, torn)
	}
}

// check opens a database on img and compares it with the states after
// lo to hi commits.
func (r *plRunner) check(op vfs.Op, img *vfs.MemFS, lo, hi int, torn bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cuts++
	if torn {
		r.torn++
	}
	step := ""
	if p := r.stepName.Load(); p != nil {
		step = *p
	}
	fail := func(format string, args ...any) {
		r.failed.Store(true)
		r.t.Errorf("seed %d, cut %d before %v (torn %v) during %q, %d commits acknowledged, %d begun: %s",
			r.seed, r.cuts, op, torn, step, lo, hi, fmt.Sprintf(format, args...))
	}
	db, err := engine.Open(plDir, plOptions(img))
	if err != nil {
		fail("recovery failed: %v", err)
		return
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		fail("the recovered store is inconsistent: %v", err)
		return
	}
	got, err := plFingerprint(db)
	if err != nil {
		fail("cannot read the recovered database: %v", err)
		return
	}
	match := slices.Contains(r.fps[lo:min(hi, len(r.fps)-1)+1], got)
	if !match {
		fail("the recovered database is no state between the last acknowledged commit and the one in flight\n got:  %s\n want: %s (after %d commits)",
			got, r.fps[lo], lo)
		return
	}
	if r.cuts%8 != 0 {
		return
	}
	// A commit after recovery survives a second cut.
	r.again++
	ctx := context.Background()
	if err := plRun(ctx, db, "CREATE (:After)", nil); err != nil {
		fail("cannot commit after recovery: %v", err)
		return
	}
	img2 := img.Crash(nil)
	again, err := engine.Open(plDir, plOptions(img2))
	if err != nil {
		fail("recovery after a commit on the recovered database failed: %v", err)
		return
	}
	defer again.Close()
	n, err := plCount(again, "MATCH (n:After) RETURN count(*)")
	if err != nil || n != 1 {
		fail("the commit after recovery: %d :After nodes (%v), want 1", n, err)
	}
	if got2, err := plFingerprint(again); err != nil || got2 != got {
		fail("a second recovery changed the state (%v)\n got:  %s\n want: %s", err, got2, got)
	}
}

func plCount(db *engine.DB, q string) (int, error) {
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		return 0, err
	}
	rows, err := drain(res)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(rows[0])
}

// run executes the workload of r.seed with cuts, then checks the image
// of the cleanly closed database.
func (r *plRunner) run(commits int) {
	t := r.t
	steps, fps := plPlan(r.seed, commits)
	r.fps = fps
	m := vfs.NewMem()
	db, err := engine.Open(plDir, plOptions(m))
	if err != nil {
		t.Fatal(err)
	}
	m.SetHook(r.hook)
	ctx := context.Background()
	for _, s := range steps {
		if r.failed.Load() {
			break
		}
		name := s.what
		r.stepName.Store(&name)
		if s.commit {
			r.started.Add(1)
		}
		if err := s.run(ctx, db); err != nil {
			t.Fatalf("seed %d: %s: %v", r.seed, s.what, err)
		}
		if s.commit {
			r.acked.Add(1)
		}
	}
	closing := "Close"
	r.stepName.Store(&closing)
	if err := db.Close(); err != nil {
		t.Fatalf("seed %d: Close: %v", r.seed, err)
	}
	m.SetHook(nil)
	if r.failed.Load() {
		return
	}
	r.check(vfs.Op{Kind: vfs.OpSync, Path: "(after Close)"}, m.Crash(nil), len(fps)-1, len(fps)-1, false)
}

func TestPowerLoss(t *testing.T) { powerLoss(t) }

// TestPowerLossEncrypted runs the power-loss test on encrypted files:
// cryptfs over the MemFS, a new cryptfs for every image (a restart).
func TestPowerLossEncrypted(t *testing.T) {
	plWrap = func(m vfs.FS) vfs.FS {
		return cryptfs.New(m, cryptfs.StaticKey(bytes.Repeat([]byte{0x5a}, 32)), cryptfs.KeyringFile)
	}
	defer func() { plWrap = func(m vfs.FS) vfs.FS { return m } }()
	powerLoss(t)
}

func powerLoss(t *testing.T) {
	workloads, commits, between := 1, 100, 8
	if raceBuild {
		commits, between = 25, 16
	}
	if s := os.Getenv("QUIVER_POWERLOSS_WORKLOADS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("QUIVER_POWERLOSS_WORKLOADS=%q: want a positive number", s)
		}
		workloads, commits, between = n, 200, 3
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("QUIVER_POWERLOSS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("QUIVER_POWERLOSS_SEED=%q: %v", s, err)
		}
		seed, workloads = n, 1
	}
	start := time.Now()
	var cuts, syncCuts, torn, again int
	for w := range workloads {
		r := &plRunner{t: t, seed: seed + uint64(w), rng: rand.New(rand.NewPCG(seed+uint64(w), 7)), between: between}
		r.run(commits)
		cuts, syncCuts, torn, again = cuts+r.cuts, syncCuts+r.syncCuts, torn+r.torn, again+r.again
		if t.Failed() {
			t.Logf("rerun with QUIVER_POWERLOSS_SEED=%d", r.seed)
			return
		}
	}
	t.Logf("seed %d: %d workloads of %d commits, %d power cuts (%d at sync points, %d torn), %d second cuts after a commit on the recovered database, in %v",
		seed, workloads, commits, cuts, syncCuts, torn, again, time.Since(start).Round(time.Millisecond))
}
