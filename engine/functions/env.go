package functions

import (
	"time"

	"github.com/quiverdb/quiver/vector"
)

// Env is what kernels read beyond their arguments: the statement's clock,
// its memory accountant, and the graph of its snapshot. engine/expr
// implements it over the statement's transaction, so that this package,
// which the planner reads signatures from, never reaches storage.
type Env interface {
	// Now is the statement's clock: every current-time function of a
	// statement agrees.
	Now() time.Time
	// Interrupted reports the statement's end (deadline, cancellation,
	// memory budget) to a kernel that loops long within one row.
	Interrupted() error
	// Reserve charges n bytes a kernel is about to build, and fails
	// (53200) before a value the statement cannot hold is allocated.
	Reserve(n int64) error
	// NodeLabels returns a node's label names; reading a node the
	// statement deleted is an error.
	NodeLabels(id uint64) ([]string, error)
	// Rel returns a relationship's type name and endpoints; a
	// relationship the statement deleted still answers, one that never
	// existed has ok false.
	Rel(id uint64) (typ string, src, dst uint64, ok bool)
	// Properties calls fn for each property of a node or relationship;
	// isEntity is false for any other value. Reading an entity the
	// statement deleted is an error.
	Properties(v vector.Value, fn func(key string, val vector.Value)) (isEntity bool, err error)
	// Degree counts a node's relationships of type typ ("" for every
	// type), outgoing or incoming; a self-loop counts once each way.
	Degree(id uint64, typ string, outgoing bool) int64
}
