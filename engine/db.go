package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/quiverdb/quiver/engine/index"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/algo"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/durable"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plancache"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/settings"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storageprocs"
	"github.com/quiverdb/quiver/engine/system"
	"github.com/quiverdb/quiver/engine/timeseries"
	"github.com/quiverdb/quiver/vector"
)

// DB is an open Quiver database. It is safe for concurrent use.
type DB struct {
	dir    string
	fs     vfs.FS // the filesystem dir is on (Options.FS)
	writer uint64 // the writer id of this process in dir (DataDir)
	opts   Options
	log    *slog.Logger
	store  *storage.Store
	procs  *procs.Registry
	// secondary keeps the FULLTEXT and VECTOR indexes from commits (engine/index);
	// nil until Open recovered the store.
	secondary *index.Manager
	closed    atomic.Bool
	// settings are the operator's SET / SHOW parameters, the ceilings
	// of every session.
	settings *Settings
	// mem is the server-wide memory budget and its heap watchdog.
	mem *memory.Governor
	// unlockDir releases the data directory's lock (nil without a
	// directory).
	unlockDir func()
	// txns are the open explicit transactions (transactions.go): the
	// server's, shared by all its graphs.
	txns *txRegistry
	// graph is the name of the graph this database holds, root the
	// default graph's database (itself for the default graph), graphs
	// the other graphs (the default graph's only; graphs.go).
	graph  string
	root   *DB
	graphs *graphSet
	// quota is the graph's on-disk quota (quota.go).
	quota diskQuota
	// algoCache keeps algorithm projections between calls (nil: off).
	algoCache *algo.Cache
	// plans keeps optimized plans between runs of a text (nil: off;
	// engine/plancache).
	plans *plancache.Cache
	// dur is the write-ahead log and checkpointer (nil without a data
	// directory; engine/durable).
	dur durability
	// changes feeds the change subscribers (engine/changes).
	changes *changes.Hub
	// hooks are the system watchers and lead hooks (system_watch.go).
	hooks hooks
	// tde is encryption at rest; nil when off (encryption.go).
	tde *tde
	// rls caches the row-level security policies (rls.go).
	rls rlsCache
	// fle caches the field-level encryption config (fle.go).
	fle fleState
}

// Open opens the database in dir, creating the directory if needed. When
// dir holds a base (a manifest.json written by `quiver import` or
// DB.SaveBase; docs/storage-format.md) the graph is loaded from it.
//
// The process holds an exclusive lock on dir until Close: a second Open of
// it, here or in another process, and an import into it fail with a
// *storage.DirInUseError naming the holder.
//
// With a directory, every commit is durable before it is acknowledged:
// Open replays the write-ahead log D/wal onto the base, and checkpoints
// fold it into new bases (docs/durability.md). Without one (dir == ""),
// the database lives in memory only.
func Open(dir string, opts Options) (*DB, error) {
	if dir == "" {
		return open(nil, opts)
	}
	d, err := TakeDataDir(dir, opts)
	if err != nil {
		return nil, err
	}
	return d.Open(opts)
}

// DataDir is a data directory this process holds: created if it was
// missing, locked (one process per directory), its contents restricted
// to the owner (engine/durable). Open takes one; a server that keeps
// more than the database in the directory (the audit trail) takes it
// first with LockDataDir, so that nothing touches the directory before
// the lock is held, and opens the database on it with DataDir.Open.
type DataDir struct {
	*durable.Dir
	tde *tde // encryption at rest, nil when off (encryption.go)
	// kept: a database opened on it leaves it held when it closes
	// (OpenKept).
	kept bool
}

// TakeDataDir takes dir: the DataDir opts.LockedDir holds when it is
// still held (a server locks its directory before anything else touches
// it), or else a new lock on dir (LockDataDir). A held LockedDir for
// another path is an error, and is released. (A released LockedDir, its
// database closed, is locked again.)
func TakeDataDir(dir string, opts Options) (*DataDir, error) {
	if d := opts.LockedDir; d != nil && !d.Released() {
		if filepath.Clean(d.Path()) != filepath.Clean(dir) {
			d.Release()
			return nil, fmt.Errorf("the locked data directory %s is not %s", d.Path(), dir)
		}
		return d, nil
	}
	return LockDataDir(dir, opts)
}

// LockDataDir creates dir if it is missing (owner-only), takes its lock,
// and narrows to the owner the modes of what the directory holds
// (durable.Lock), on opts.FS and logging through opts.Logger. The lock is
// held until DataDir.Release or the database Open returns is closed.
func LockDataDir(dir string, opts Options) (*DataDir, error) {
	d, err := durable.Lock(dir, opts.FS, opts.Logger)
	if err != nil {
		return nil, err
	}
	t, err := setupEncryption(d, opts.Encryption, opts.Logger)
	if err != nil {
		d.Release()
		return nil, err
	}
	return &DataDir{Dir: d, tde: t}, nil
}

// Open opens the database in the directory d holds, as Open does, and
// takes d over: closing the database releases it, and so does a failed
// Open. opts.FS is d's.
func (d *DataDir) Open(opts Options) (*DB, error) {
	if d.Released() {
		return nil, errors.New("the data directory was released")
	}
	opts.FS, opts.LockedDir = d.FS(), nil
	return open(d, opts)
}

// OpenKept opens the database on d as Open does, but leaves d held: a
// failed Open or the database's Close does not release it, and a
// database may be opened on it again. A cluster member reopens its
// database so after installing a snapshot: on the same encrypting
// filesystem as the raft stores beside it, so that a re-encryption sees
// the files they hold open. The caller releases d.
func (d *DataDir) OpenKept(opts Options) (*DB, error) {
	if d.Released() {
		return nil, errors.New("the data directory was released")
	}
	opts.FS, opts.LockedDir = d.FS(), nil
	return open(&DataDir{Dir: d.Dir, tde: d.tde, kept: true}, opts)
}

func open(dd *DataDir, opts Options) (*DB, error) {
	db, err := openGraph(dd, opts, nil)
	if err != nil {
		return nil, err
	}
	if err := db.openGraphs(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openGraph opens a graph's database: the default graph's when parent is
// nil, else one of the others, which shares the default graph's
// settings, transaction registry and server-wide procedures, and whose
// memory budget is part of the server's (graphs.go).
func openGraph(dd *DataDir, opts Options, parent *graphParent) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	dir, fsys, unlock, writer := "", vfs.FS(nil), func() {}, uint64(0)
	var enc *tde
	if dd != nil {
		dir, fsys, writer, enc = dd.Path(), dd.FS(), dd.Writer(), dd.tde
		if !dd.kept {
			unlock = dd.Release
		}
	}
	if opts.Replication != nil && dir == "" {
		unlock()
		return nil, errors.New("a replicated database needs a data directory")
	}
	for _, r := range opts.DisabledRules {
		if !plan.IsRule(r) {
			unlock()
			return nil, fmt.Errorf("unknown optimizer rule %q", r)
		}
	}
	store := storage.New()
	switch {
	case dir == "":
	case storage.HasBaseFS(fsys, dir):
		var err error
		if store, err = storage.OpenBaseFS(fsys, dir); err != nil {
			unlock()
			return nil, fmt.Errorf("cannot open data directory %s: %w", dir, err)
		}
		s := store.Snapshot()
		log.Info("opened an existing database", "dir", dir, "nodes", s.NodeCount(), "relationships", s.RelCount())
	case dd.Created():
		// A mistyped --data-dir lands here: say so loudly.
		log.Warn("created a new, empty database: the data directory did not exist", "dir", dir)
	default:
		if ents, err := fsys.ReadDir(dir); err == nil && !storage.EmptyDatabaseDirFS(fsys, dir, ents) && durable.WALHoldsRecords(fsys, dir) {
			log.Info("the data directory has no checkpoint yet: its commits are in the write-ahead log", "dir", dir)
		} else {
			log.Info("the data directory holds no database yet: starting an empty one", "dir", dir)
		}
	}
	budget := opts.MaxMemory
	if budget == 0 {
		budget = memory.DefaultMaxMemory()
	}
	db := &DB{dir: dir, fs: fsys, writer: writer, opts: opts, log: log, store: store, procs: procs.NewRegistry(), settings: settings.New(settings.Defaults{QueryTimeout: opts.QueryTimeout, MaxConnections: opts.MaxConnections,
		MaxMemoryPerQuery: opts.MaxMemoryPerQuery, IdleTimeout: opts.IdleTimeout}),
		mem: memory.NewGovernor(budget, opts.WatchHeap), unlockDir: unlock}
	db.graph, db.root, db.txns = DefaultGraph, db, &txRegistry{}
	if parent != nil {
		root := parent.root
		db.mem.Close()
		db.mem = memory.NewGraphGovernor(parent.meta.MaxMemory, root.mem, "graph "+parent.name)
		db.graph, db.root, db.txns, db.settings = parent.name, root, root.txns, root.settings
		db.procs.Under(root.procs)
		db.quota.limit.Store(parent.meta.MaxDisk)
	}
	db.changes = changes.NewHub(store, db.closed.Load)
	db.algoCache = algo.CacheFor(opts.AlgoCacheBytes, budget)
	db.plans = plancache.New(opts.PlanCacheEntries)
	if db.algoCache != nil {
		db.mem.SetCache(db.algoCache)
	}
	db.mem.SetReleaseAfter(memory.ReleaseThreshold(db.settings.MaxMemoryPerQuery()))
	err := storageprocs.Register(db.procs, db.storageSource())
	if err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := algo.RegisterProcedures(db.procs, db.algoCache, db.longWork()); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := timeseries.Register(db.procs); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := db.registerExport(); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := db.registerCDC(); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if parent == nil {
		if err := db.registerGraphProcedures(); err != nil {
			panic("BUG: engine: " + err.Error())
		}
		// Encryption at rest is the data directory's: every graph's
		// procedures are the default graph's (procs.Under).
		if err := db.registerTDE(enc); err != nil {
			panic("BUG: engine: " + err.Error())
		}
	}
	if err := db.registerRLS(); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := db.registerFLE(); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	db.installFieldEncryption()
	cdcLog, err := db.openChangeLog()
	if err != nil {
		db.mem.Close()
		unlock()
		return nil, err
	}
	fail := func(err error) (*DB, error) {
		if cdcLog != nil {
			cdcLog.Close()
		}
		db.mem.Close()
		unlock()
		return nil, err
	}
	if dir != "" && opts.Replication != nil {
		if db.dur, err = openReplicated(store, fsys, dir, writer, log, opts); err != nil {
			return fail(err)
		}
		opts.Replication.SetLeadHook(db.led)
	} else if dir != "" {
		cfg := durable.Config{Store: store, FS: fsys, Dir: dir, Writer: writer, Logger: log, Progress: db.longWork(),
			SegmentSize: opts.WALSegmentSize, CheckpointInterval: opts.CheckpointInterval, CheckpointWALBytes: opts.CheckpointWALBytes}
		db.watchRecovery(&cfg, cdcLog)
		if db.dur, err = durable.Open(cfg); err != nil {
			return fail(err)
		}
	}
	db.openSecondaryIndexes()
	db.startChangeLog(cdcLog)
	return db, nil
}

// SaveBase writes the latest committed version to the data directory as
// a new base, atomically (the manifest is replaced last): a checkpoint.
// It returns the bytes written.
func (db *DB) SaveBase() (int64, error) {
	if db.dir == "" {
		return 0, fmt.Errorf("the database has no data directory")
	}
	_, n, err := db.checkpoint("SaveBase")
	return n, err
}

// Close releases the database: open transactions are rolled back, a
// last checkpoint is written, the log is closed. Queries after Close fail.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	if db.root == db {
		db.closeGraphs()
	}
	db.txns.rollbackOf(db)
	db.changes.Close()
	if db.secondary != nil {
		db.secondary.Close()
	}
	var err error
	if db.dur != nil {
		if err = db.dur.Close(); err != nil {
			db.log.Error("closing the database", "err", err)
		}
	}
	db.mem.Close()
	db.store.WaitCompaction() // no background work outlives the database
	db.tde.close()
	db.unlockDir()
	return err
}

// Durability (docs/durability.md): every commit is a record in the
// write-ahead log under D/wal, synced before the commit is acknowledged;
// a checkpoint writes the latest durable version as a new base (manifest
// switch) and trims the log before it; Open loads the manifest's base and
// replays the log after its position (engine/durable).

// WALDirName is the write-ahead log's directory inside a data directory.
const WALDirName = durable.WALDirName

// Checkpoint triggers (Options overrides them).
const (
	// DefaultCheckpointInterval is how often a checkpoint runs when the
	// log has grown since the last one.
	DefaultCheckpointInterval = durable.DefaultCheckpointInterval
	// DefaultCheckpointWALBytes is the log growth since the last
	// checkpoint that starts one at once.
	DefaultCheckpointWALBytes = durable.DefaultCheckpointWALBytes
)

// DurabilityStats describes the log and the checkpoints.
type DurabilityStats = durable.Stats

// Durability reports the state of the log and the checkpoints.
func (db *DB) Durability() DurabilityStats {
	if db.dur == nil {
		return DurabilityStats{}
	}
	return db.dur.Stats()
}

// Checkpoint writes a checkpoint now (the CHECKPOINT statement) and
// returns its log position.
func (db *DB) Checkpoint() (uint64, error) {
	lsn, _, err := db.checkpoint("CHECKPOINT statement")
	return lsn, err
}

func (db *DB) checkpoint(reason string) (uint64, int64, error) {
	if db.dur == nil {
		return 0, 0, errs.New(errs.CodeNotSupported, errs.CatNotSupported, "the database has no data directory: there is nothing to checkpoint to")
	}
	return db.dur.Checkpoint(reason)
}

// SystemRecord is one entry of the database's system records: a small
// durable key-value space for the server's own state (engine/system).
type SystemRecord = system.Record

// Limits of SystemPut; beyond them it fails with 22023 and writes nothing.
const (
	MaxSystemKeyBytes      = system.MaxKeyBytes
	MaxSystemValueBytes    = system.MaxValueBytes
	MaxSystemRecordsPerPut = system.MaxRecordsPerPut
	MaxSystemPutBytes      = system.MaxPutBytes
)

// SystemGet returns a copy of the value stored under key, as of the
// latest durable commit. It takes no lock and never waits for a writer.
func (db *DB) SystemGet(key string) ([]byte, bool) {
	return db.store.Snapshot().SystemGet(key)
}

// SystemScan returns the records whose key starts with prefix, sorted by
// key; the values are copies. It reads one version (the latest durable
// one), so the records are consistent with each other.
func (db *DB) SystemScan(prefix string) []SystemRecord {
	return system.Scan(db.store.Snapshot(), prefix)
}

// SystemPut stores the records atomically, as one commit, and returns
// once it is as durable as data commits. Invalid input is a 22023 error
// and writes nothing (system.Check); ctx bounds the wait for the writer
// lock (system.Put has the rules).
func (db *DB) SystemPut(ctx context.Context, recs []SystemRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := db.checkSystemPut(recs); err != nil {
		return err
	}
	return system.Put(ctx, db.store, recs)
}

// checkSystemPut refuses a put of invalid records (22023), on a closed
// database, or on a member of a replicated cluster that does not lead
// (25006 naming the leader, before the commit lock is waited for).
func (db *DB) checkSystemPut(recs []SystemRecord) error {
	if err := system.Check(recs); err != nil {
		return err
	}
	if db.closed.Load() {
		return errs.New(errs.CodeUnavailable, errs.CatUnavailable, "cannot store system records: the database is closed")
	}
	return db.writable()
}

// Counts returns whole-database counts at the latest committed snapshot.
func (db *DB) Counts() Counts {
	s := db.store.Snapshot()
	return Counts{Nodes: s.NodeCount(), Relationships: s.RelCount()}
}

// Dir is the data directory the database was opened on; empty for an
// in-memory database.
func (db *DB) Dir() string { return db.dir }

// Check verifies the invariants of the stored graph (tests call it after
// mutating statements).
func (db *DB) Check() error { return db.store.Check() }

// planOptions are the optimizer rules queries run with.
func (db *DB) planOptions() plan.Options {
	if len(db.opts.DisabledRules) == 0 {
		return plan.Options{}
	}
	o := plan.Options{Disabled: map[string]bool{}}
	for _, r := range db.opts.DisabledRules {
		o.Disabled[r] = true
	}
	return o
}

// trail is the database's audit trail (Options.Auditor).
func (db *DB) trail() access.Trail { return access.Trail{Auditor: db.opts.Auditor} }

// longWork is how the database logs the progress of long work
// (Options.ProgressLogAfter and ProgressLogEvery).
func (db *DB) longWork() progress.Log {
	return progress.Log{Logger: db.log, After: db.opts.ProgressLogAfter, Every: db.opts.ProgressLogEvery}
}

// parallelism is the number of workers a read query may use while
// enable_parallel_scan is on (Session.parallelism).
func (db *DB) parallelism() int {
	if db.opts.Parallelism > 0 {
		return db.opts.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// OptimizerRules lists the names of the optimizer rules Options.DisabledRules
// may switch off.
func OptimizerRules() []string { return plan.RuleNames() }

// Counts are whole-database counts at the latest committed snapshot.
type Counts struct {
	Nodes         int64
	Relationships int64
}

// Params are query parameters by name (without $). Values have the dynamic
// types of vector.Value: nil, bool, int64, float64, string, []any,
// map[string]any.
type Params = map[string]vector.Value

// MemoryCharged is what the statements running on db are charged
// together (their accountants' figures, as the server's budget sums
// them); 0 without a budget (Options.MaxMemory).
func (db *DB) MemoryCharged() int64 {
	if db.mem.Budget() == nil {
		return 0
	}
	return db.mem.Budget().Used() - db.mem.Budget().Held()
}

// MemoryHeld is what the server holds against its budget outside
// statements: the secondary indexes' structures (engine/index); 0
// without a budget.
func (db *DB) MemoryHeld() int64 { return db.mem.Budget().Held() }

// Compact folds the relationship overlays of the latest version into
// their base CSRs now (normally a background compactor does it when an
// overlay grows large). Readers are not blocked; writers wait only while
// the result is installed.
func (db *DB) Compact() { db.store.Compact() }

// NodeState is one node as Inspect reports it.
type NodeState struct {
	ID     uint64
	Labels []string
	Props  map[string]vector.Value
}

// RelState is one relationship as Inspect reports it.
type RelState struct {
	ID         uint64
	Type       string
	Start, End uint64
	Props      map[string]vector.Value
}

// Inspect calls node for every live node and rel for every relationship
// of the latest committed snapshot, in id order for nodes. It reads the
// store directly rather than through queries, so that tools comparing
// graph states (the TCK runner's side-effect check) do not depend on the
// query language. Either callback may be nil.
func (db *DB) Inspect(node func(NodeState), rel func(RelState)) {
	s := db.store.Snapshot()
	cat := db.store.Catalog()
	var labels []catalog.LabelID
	var nbrs, rels []uint64
	it := s.LiveNodes().Iterator()
	for it.HasNext() {
		id := uint64(it.Next())
		if node != nil {
			n := NodeState{ID: id, Props: map[string]vector.Value{}}
			labels = s.AppendNodeLabels(labels[:0], id)
			for _, l := range labels {
				n.Labels = append(n.Labels, cat.LabelName(l))
			}
			s.NodeProps(id, func(k catalog.KeyID, v vector.Value) { n.Props[cat.KeyName(k)] = v })
			node(n)
		}
		if rel == nil {
			continue
		}
		// Every relationship is found once, from its start node.
		for _, t := range cat.Types() {
			adj := s.Adjacency(t, storage.Outgoing)
			if adj == nil {
				continue
			}
			nbrs, rels = adj.AppendNeighbors(nbrs[:0], rels[:0], id)
			for i, r := range rels {
				st := RelState{ID: r, Type: cat.TypeName(t), Start: id, End: nbrs[i], Props: map[string]vector.Value{}}
				s.RelProps(r, func(k catalog.KeyID, v vector.Value) { st.Props[cat.KeyName(k)] = v })
				rel(st)
			}
		}
	}
}
