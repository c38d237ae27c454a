package engine

import (
	"log/slog"
	"time"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plancache"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Options configure an open database.
type Options struct {
	// QueryTimeout bounds each query's run time; zero means no limit.
	QueryTimeout time.Duration
	// MaxConnections is the connection ceiling the server starts with,
	// reported as the max_connections setting; zero keeps the default.
	MaxConnections int
	// IdleTimeout is the listener's keep-alive idle timeout, reported as
	// the connection_timeout setting; zero keeps the default.
	IdleTimeout time.Duration
	// MaxMemoryPerQuery is the operator's max_memory_per_query in bytes:
	// zero keeps the default (1 GiB), a negative value means no limit.
	MaxMemoryPerQuery int64
	// MaxMemory is the server-wide memory budget in bytes, shared by all
	// running statements: past it the statement holding the most fails
	// with 53200 (engine/memory). Zero means DefaultMaxMemory(), a negative
	// value no budget. The embedding process should set its GOMEMLIMIT
	// to the same figure (quiver serve does).
	MaxMemory int64
	// WatchHeap makes the whole process's live heap count against
	// MaxMemory too, for a process that serves this one database (quiver
	// serve): the accountant's figures are estimates, and when the heap
	// the collector measures nears the budget the largest statement fails
	// as well (engine/memory). Off for embedders with other work in the
	// process.
	WatchHeap bool
	// AlgoCacheBytes bounds the projection cache of the algo.*
	// procedures (docs/algorithms.md, "Projection cache"): graphs kept
	// between calls, outside any statement's accountant. Zero means
	// algo.DefaultCacheBytes(MaxMemory); a negative value disables it.
	AlgoCacheBytes int64
	// PlanCacheEntries bounds the database's cache of optimized plans
	// (docs/architecture.md, "Plan cache"): a repeated statement text
	// with parameters of the same types skips binding and optimizing.
	// Zero means DefaultPlanCacheEntries, a negative value no cache.
	PlanCacheEntries int
	// Parallelism is the number of worker goroutines a query may use;
	// zero means GOMAXPROCS.
	Parallelism int
	// DisabledRules names optimizer rules to switch off (the names are
	// listed in docs/architecture.md). Results never depend on them,
	// only speed; tests switch them off to compare.
	DisabledRules []string
	// Logger receives engine logs; nil means slog.Default().
	Logger *slog.Logger
	// ProgressLogAfter is how long a COPY … FROM, a checkpoint or an
	// algorithm's projection runs before its progress is logged
	// (engine/progress, Log); zero means progress.DefaultLogAfter (2 s),
	// a negative value never. ProgressLogEvery is the time between two
	// progress lines; zero means progress.DefaultLogEvery (5 s).
	ProgressLogAfter, ProgressLogEvery time.Duration
	// ImportDir is the directory COPY … FROM may read files from
	// (relative paths are resolved against it; paths outside it are
	// refused). Empty disables COPY FROM: a query would otherwise read
	// any file the server process can (docs/import.md).
	ImportDir string
	// ExportDir is the directory statements that write files on the
	// server (CALL quiver.export) may write under: relative paths are
	// resolved against it, and paths leading outside it, lexically or
	// through a symbolic link, are refused (export.Resolve). Empty
	// disables them (docs/export.md).
	ExportDir string
	// MaxTransactions bounds the open explicit transactions of the
	// server, MaxTransactionsPerClient those of one client; zero keeps
	// the defaults (DefaultMaxTransactions, DefaultMaxTransactionsPerClient).
	MaxTransactions          int
	MaxTransactionsPerClient int
	// CheckpointInterval is how often a checkpoint runs if anything
	// committed since the last one; zero keeps the default (5 minutes),
	// negative disables the timer.
	CheckpointInterval time.Duration
	// CheckpointWALBytes is the log growth since the last checkpoint that
	// starts one at once; zero keeps the default (256 MiB).
	CheckpointWALBytes int64
	// CDCRetention keeps every commit's changes in a change log for
	// cdc.changes and for change feeds that resume from a position
	// (docs/cdc.md): for a time, a size, or both (ParseCDCRetention).
	// Zero keeps none: change capture is off.
	CDCRetention CDCRetention
	// WALSegmentSize is the size at which the write-ahead log starts a new
	// segment file; zero keeps the default (64 MiB). Tests make it small
	// to roll the log often.
	WALSegmentSize int64
	// FS is the filesystem the data directory is on; nil means the
	// operating system's. Tests use vfs.MemFS to cut the power.
	FS vfs.FS
	// Encryption, when set, encrypts every file of the data directory
	// at rest (docs/encryption.md). A directory encrypted once needs it
	// at every Open.
	Encryption *Encryption
	// Observer, when set, is told of every statement and transaction
	// that ends (Observer): the server's metrics.
	Observer Observer
	// Replication, when set, makes the database a member of a replicated
	// cluster (package cluster; Replication): commits go through its
	// log, and writes are refused on a member that does not lead. It
	// needs a data directory.
	Replication Replication
	// Auditor, when set, receives the engine's audit events (engine/access):
	// permission denials, schema changes, session settings changes,
	// CHECKPOINT and COPY FROM. It is called synchronously.
	Auditor Auditor
	// LockedDir, when set, is the data directory Open's dir names, already
	// locked with LockDataDir: Open takes it over (as DataDir.Open) instead
	// of locking it again. A server that keeps more than the database in
	// the directory and opens it through a library calling Open (package
	// cluster) sets it. Once released (the database it opened was
	// closed), Open locks dir itself.
	LockedDir *DataDir
}

// DefaultMaxMemory is the server-wide memory budget when none is given
// (Options.MaxMemory): memory.DefaultMemoryFraction of the machine's
// memory, or 0 (no budget) when that cannot be read.
func DefaultMaxMemory() int64 { return memory.DefaultMaxMemory() }

// Observer is told of every statement and every transaction that ends,
// on any protocol: a metrics registry implements it (frontend/metrics).
// It is called synchronously, from the goroutine that ends the statement
// or transaction, and concurrently: it must be safe for concurrent use
// and cheap (a few atomic adds), as it runs on every statement's path.
//
// What counts (docs/operations.md, "Metrics", states the same for users):
//
//   - A statement ends once: when its Result finishes (its rows read to
//     the end, closed early, or failed while streaming), or when Run
//     returns an error (it never produced a Result). A statement an
//     explicit transaction refuses (it is busy, aborted or over) is a
//     failed statement too. Requests a frontend refuses before asking
//     the engine (malformed JSON, an unknown transaction id) are not
//     statements.
//   - A transaction ends once: each explicit transaction when it commits,
//     rolls back, fails to commit or expires; and each statement run
//     outside an explicit transaction, which is a transaction of its own
//     (auto-commit) — SET, SHOW, EXPLAIN and schema statements included.
type Observer interface {
	// StatementEnded reports a statement's wall time, from the call that
	// ran it to its end, and the error that ended it (nil: it succeeded,
	// or its Result was closed before its last row).
	StatementEnded(d time.Duration, err error)
	// TransactionEnded reports how a transaction ended.
	TransactionEnded(o TransactionOutcome)
}

// DefaultPlanCacheEntries is the plan cache's bound in entries when
// Options.PlanCacheEntries is zero.
const DefaultPlanCacheEntries = plancache.DefaultEntries

// TransactionOutcome is how a transaction ended.
type TransactionOutcome uint8

const (
	// TxCommitted: its writes (if any) are committed. An auto-commit
	// statement that succeeded, a read included; and one whose write
	// committed before its returned rows failed to stream.
	TxCommitted TransactionOutcome = iota + 1
	// TxRolledBack: the client asked for a rollback. Not a failure, even
	// of a transaction in which a statement had failed.
	TxRolledBack
	// TxFailed: it ended without committing because of an error: an
	// auto-commit statement that failed, a commit that failed (a 40001
	// conflict, a write error), a COMMIT of a transaction in which a
	// statement had failed, or expiry (its timeout, or the database
	// closing while it was open).
	TxFailed
)

func (o TransactionOutcome) String() string {
	switch o {
	case TxCommitted:
		return "committed"
	case TxRolledBack:
		return "rolled back"
	case TxFailed:
		return "failed"
	}
	return "unknown"
}
