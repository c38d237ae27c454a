package engine

import (
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/errs"
)

// The change feed (engine/changes): after a commit is durable, every
// subscriber gets the commit's changes, one per node or relationship it
// created, updated or deleted, in commit (LSN) order, and nothing of a
// transaction that rolled back or failed. Writers never wait for a feed:
// one that falls behind is dropped and told so (ErrChangeFeedOverflow).
// The names below are the feed's, as the engine's API gives them.

type (
	// ChangeOp is what a commit did to an entity.
	ChangeOp = changes.Op
	// ChangeEntity is the kind of entity a change is about.
	ChangeEntity = changes.Entity
	// Property is one property of an entity.
	Property = changes.Property
	// Change is one entity a commit changed.
	Change = changes.Change
	// BulkChange summarizes a commit that changed more than
	// MaxChangesPerCommit entities.
	BulkChange = changes.Bulk
	// ChangeBatch is what one commit changed that a feed's patterns
	// select.
	ChangeBatch = changes.Batch
	// SubscribeOptions configure a change feed.
	SubscribeOptions = changes.Options
	// ChangeFeed is one subscriber of the change feed.
	ChangeFeed = changes.Feed
	// ChangePattern is a parsed change pattern (ParseChangePattern).
	ChangePattern = changes.Pattern
)

const (
	ChangeCreated      = changes.Created
	ChangeUpdated      = changes.Updated
	ChangeDeleted      = changes.Deleted
	ChangeNode         = changes.Node
	ChangeRelationship = changes.Relationship
	// MaxChangesPerCommit is the most entities a commit's events list;
	// a larger commit is one BulkChange.
	MaxChangesPerCommit = changes.MaxPerCommit
	// DefaultChangeBuffer is a feed's queue bound (SubscribeOptions.Buffer).
	DefaultChangeBuffer = changes.DefaultBuffer
	// MaxChangePatternBytes bounds a pattern's text.
	MaxChangePatternBytes = changes.MaxPatternBytes
)

var (
	// ErrChangeFeedOverflow is Next's error once the feed fell more than
	// its buffer behind the commits: it was dropped.
	ErrChangeFeedOverflow = changes.ErrOverflow
	// ErrChangeFeedClosed is Next's error after Close or once the
	// database closed.
	ErrChangeFeedClosed = changes.ErrClosed
)

// ParseChangePattern parses a change pattern (changes.ParsePattern).
func ParseChangePattern(text string) (*ChangePattern, error) { return changes.ParsePattern(text) }

// SubscribeChanges opens a change feed: it receives the changes of every
// transaction that commits after SubscribeChanges returns (and perhaps of
// some committing at that moment), once durable, in commit order,
// each commit at most once. Close it when done.
func (db *DB) SubscribeChanges(o SubscribeOptions) (*ChangeFeed, error) {
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	return db.changes.Subscribe(o)
}
