package index

import (
	"context"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// DefaultAwaitSeconds is how long db.awaitIndexes() waits when not told.
const DefaultAwaitSeconds = 300

// Register adds Neo4j's db.awaitIndex(name [, timeOutSeconds]) and
// db.awaitIndexes([timeOutSeconds]): they return once the index (every
// index of the query's snapshot) is ONLINE, and fail with 40003 when the
// time runs out or with the index's error when it FAILED.
func Register(reg *procs.Registry, m *Manager) error {
	secs := procs.Field{Name: "timeOutSeconds", Type: "INTEGER", Optional: true}
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "db.awaitIndex", Inputs: []procs.Field{{Name: "indexName", Type: "STRING"}, secs}, Requires: procs.PrivRead},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
				name, _ := args[0].(string)
				def := c.Reader.Schema().Index(name)
				if def == nil {
					return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "there is no index named %s", name)
				}
				return nil, m.awaitOnline(c.Ctx, []*catalog.Index{def}, args[1])
			}},
		{Signature: procs.Signature{Name: "db.awaitIndexes", Inputs: []procs.Field{secs}, Requires: procs.PrivRead},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
				return nil, m.awaitOnline(c.Ctx, c.Reader.Schema().Indexes, args[0])
			}},
	} {
		if err := reg.Register(p); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) awaitOnline(ctx context.Context, defs []*catalog.Index, timeout vector.Value) error {
	secs := int64(DefaultAwaitSeconds)
	if n, ok := timeout.(int64); ok {
		secs = n
	}
	if secs < 0 {
		return errs.DataCode(errs.CodeInvalidParam, "timeOutSeconds must not be negative")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second)
	defer cancel()
	for _, def := range defs {
		if !def.Type.Secondary() {
			continue
		}
		e, err := m.Lookup(def)
		if err != nil {
			return err
		}
		if err := e.AwaitOnline(ctx); err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return errs.Timeout("index %s is not ONLINE after %d s", def.Name, secs)
			}
			return err
		}
	}
	return nil
}

// AwaitOnline returns once the index is ONLINE, its error once FAILED.
func (e *Entry) AwaitOnline(ctx context.Context) error {
	for {
		e.mu.Lock()
		st, err, ch := e.mu.state, e.mu.err, e.mu.changed
		e.mu.Unlock()
		switch st {
		case StateOnline:
			return nil
		case StateFailed:
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
