package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/quiverdb/quiver/vector"
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
	// with 53200 (memory.go). Zero means DefaultMaxMemory(), a negative
	// value no budget. The embedding process should set its GOMEMLIMIT
	// to the same figure (quiver serve does).
	MaxMemory int64
	// WatchHeap makes the whole process's live heap count against
	// MaxMemory too, for a process that serves this one database (quiver
	// serve): the accountant's figures are estimates, and when the heap
	// the collector measures nears the budget the largest statement fails
	// as well (memory.go). Off for embedders with other work in the
	// process.
	WatchHeap bool
	// Parallelism is the number of worker goroutines a query may use;
	// zero means GOMAXPROCS.
	Parallelism int
	// DisabledRules names optimizer rules to switch off (the names are
	// listed in docs/architecture.md). Results never depend on them,
	// only speed; tests switch them off to compare.
	DisabledRules []string
	// Logger receives engine logs; nil means slog.Default().
	Logger *slog.Logger
	// ImportDir is the directory COPY … FROM may read files from
	// (relative paths are resolved against it; paths outside it are
	// refused). Empty disables COPY FROM: a query would otherwise read
	// any file the server process can (docs/import.md).
	ImportDir string
}

// Stats are whole-database counts at the latest committed snapshot.
type Stats struct {
	Nodes         int64
	Relationships int64
}

// Params are query parameters by name (without $). Values have the dynamic
// types of vector.Value: nil, bool, int64, float64, string, []any,
// map[string]any.
type Params = map[string]vector.Value

// Query runs one GQL statement as its own transaction, in a session of
// its own: a SET it makes lasts for this statement only. A read streams
// its rows through the returned Result; a statement with writes runs to
// completion and commits before Query returns. ctx cancels the query.
func (db *DB) Query(ctx context.Context, text string, params Params) (*Result, error) {
	return db.NewSession().Query(ctx, text, params)
}
