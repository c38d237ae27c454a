package engine

import (
	"math"
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The cdc.* procedures (docs/cdc.md): change capture without a socket.
// They read what reading the graph may (PrivRead), as the change stream
// does.

const (
	// DefaultCDCLimit is cdc.changes' page size when the call names none.
	DefaultCDCLimit = 1000
	// MaxCDCLimit bounds a page: a bigger one is refused (22023).
	MaxCDCLimit = 10000
)

var cdcChangeOutputs = []procs.Field{
	{Name: "position", Type: "STRING"}, {Name: "committed_at", Type: "ANY"}, {Name: "operation", Type: "STRING"},
	{Name: "entity", Type: "STRING"}, {Name: "id", Type: "INTEGER"}, {Name: "labels", Type: "LIST"},
	{Name: "type", Type: "STRING"}, {Name: "before", Type: "MAP"}, {Name: "after", Type: "MAP"},
}

func (db *DB) registerCDC() error {
	position := []procs.Field{{Name: "position", Type: "STRING"}}
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "cdc.current", Outputs: position, Requires: procs.PrivRead}, Fn: db.cdcCurrent},
		{Signature: procs.Signature{Name: "cdc.earliest", Outputs: position, Requires: procs.PrivRead}, Fn: db.cdcEarliest},
		{Signature: procs.Signature{Name: "cdc.changes",
			Inputs:  []procs.Field{{Name: "fromPosition", Type: "STRING"}, {Name: "options", Type: "MAP", Optional: true}},
			Outputs: cdcChangeOutputs, Requires: procs.PrivRead}, Fn: db.cdcChanges},
	} {
		if err := db.procs.Register(p); err != nil {
			return err
		}
	}
	return nil
}

// cdcLogWait is the change log, once it has recorded every commit
// acknowledged before the call (so that a client reads its own writes),
// or after cdcWaitTimeout.
func (db *DB) cdcLogWait(c *procs.Context) (*changes.Log, error) {
	l := db.changes.Log()
	if l == nil {
		return nil, errs.NotSupported("change capture is off: start the server with --cdc-retention (docs/cdc.md)")
	}
	if err := db.changes.WaitLogged(c.Ctx, db.store.Snapshot().TS(), cdcWaitTimeout); err != nil {
		return nil, err
	}
	return l, nil
}

// cdcWaitTimeout bounds how long a cdc.* call waits for the change log
// to record the commits acknowledged before it.
const cdcWaitTimeout = 5 * time.Second

func (db *DB) cdcCurrent(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	l, err := db.cdcLogWait(c)
	if err != nil {
		return nil, err
	}
	_, cur := l.Bounds()
	return [][]vector.Value{{cur.String()}}, nil
}

func (db *DB) cdcEarliest(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	l, err := db.cdcLogWait(c)
	if err != nil {
		return nil, err
	}
	e, _ := l.Bounds()
	return [][]vector.Value{{e.String()}}, nil
}

// cdcChanges is cdc.changes(fromPosition [, {patterns, limit}]).
func (db *DB) cdcChanges(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	l, err := db.cdcLogWait(c)
	if err != nil {
		return nil, err
	}
	tok, ok := args[0].(string)
	if !ok {
		return nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes needs a position: pass cdc.earliest(), cdc.current() or a position it returned")
	}
	from, err := changes.ParsePosition(tok)
	if err != nil {
		return nil, err
	}
	limit, patterns, err := cdcOptions(args[1])
	if err != nil {
		return nil, err
	}
	// Row-level security: the events a restricted caller may see.
	var restrict changes.Restrictor
	if p, ok := access.PrincipalFrom(c.Ctx); ok {
		if err := db.changesDecidable(p); err != nil {
			return nil, err
		}
		restrict = db.RestrictChanges(p)
	}
	var rows [][]vector.Value
	err = l.EachSized(from, math.MaxUint64, func(b *changes.Batch, n int) (bool, error) {
		if err := c.Ctx.Err(); err != nil {
			return false, err
		}
		// The decoded record is held while its rows are built.
		held := decodedRecordFactor * int64(n)
		defer c.Mem.Release(held)
		if err := c.Mem.Charge(held); err != nil {
			return false, err
		}
		fb, ok := b.Filter(patterns)
		if ok && restrict != nil {
			fb, ok = restrict(nil, fb)
		}
		if !ok {
			return true, nil
		}
		for _, r := range changeRows(fb) {
			if err := c.Mem.Charge(rowBytes(r)); err != nil {
				return false, err
			}
			rows = append(rows, r)
			if len(rows) == limit {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// decodedRecordFactor bounds a decoded change record's size over its
// encoding's (an estimate: the varint-packed ids, labels and property
// values decode to structs, string headers, interfaces and maps).
const decodedRecordFactor = 4

func cdcOptions(v vector.Value) (int, []*changes.Pattern, error) {
	limit := DefaultCDCLimit
	if v == nil {
		return limit, nil, nil
	}
	m, ok := v.(map[string]vector.Value)
	if !ok {
		return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: the options must be a map such as {limit: 100, patterns: ['(:Person)']}")
	}
	var patterns []*changes.Pattern
	for k, x := range m {
		if x == nil { // null is the option left out
			if k != "limit" && k != "patterns" {
				return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: unknown option %q (the options are patterns and limit)", k)
			}
			continue
		}
		switch k {
		case "limit":
			n, ok := x.(int64)
			if !ok || n < 1 || n > MaxCDCLimit {
				return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: limit must be an integer from 1 to %d", MaxCDCLimit)
			}
			limit = int(n)
		case "patterns":
			l, ok := x.([]vector.Value)
			if !ok {
				return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: patterns must be a list of change patterns such as '(:Person)'")
			}
			for _, e := range l {
				s, ok := e.(string)
				if !ok {
					return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: patterns must be a list of change patterns such as '(:Person)'")
				}
				p, err := changes.ParsePattern(s)
				if err != nil {
					return 0, nil, err
				}
				patterns = append(patterns, p)
			}
		default:
			return 0, nil, errs.DataCode(errs.CodeInvalidParam, "cdc.changes: unknown option %q (the options are patterns and limit)", k)
		}
	}
	return limit, patterns, nil
}

// changeRows are a commit's rows, one per change (one for a bulk
// commit), in cdcChangeOutputs' order.
func changeRows(b changes.Batch) [][]vector.Value {
	at := temporal.DateTime{Sec: b.CommittedAt.Unix(), Nanos: int32(b.CommittedAt.Nanosecond())}
	if s := b.Bulk; s != nil {
		after := map[string]vector.Value{
			"nodes_created": s.NodesCreated, "nodes_updated": s.NodesUpdated, "nodes_deleted": s.NodesDeleted,
			"relationships_created": s.RelationshipsCreated, "relationships_updated": s.RelationshipsUpdated,
			"relationships_deleted": s.RelationshipsDeleted, "types": strList(s.Types),
		}
		pos := changes.Position{TS: b.TS}
		return [][]vector.Value{{pos.String(), at, "bulk", "commit", nil, strList(s.Labels), nil, nil, after}}
	}
	rows := make([][]vector.Value, 0, len(b.Changes))
	for i := range b.Changes {
		c := &b.Changes[i]
		pos := changes.Position{TS: b.TS, Ordinal: c.Ordinal}
		var typ, labels vector.Value = nil, strList(c.Labels)
		if c.Entity == changes.Relationship {
			typ, labels = c.Type, nil
		}
		rows = append(rows, []vector.Value{pos.String(), at, c.Op.String(), c.Entity.String(), int64(c.ID), labels, typ,
			propMap(c.Before), propMap(c.After)})
	}
	return rows
}

func strList(l []string) []vector.Value {
	out := make([]vector.Value, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// propMap is nil for an entity that did not exist.
func propMap(ps []changes.Property) vector.Value {
	if ps == nil {
		return nil
	}
	m := make(map[string]vector.Value, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

// rowBytes estimates what a row holds, for the query's memory budget.
func rowBytes(r []vector.Value) int64 {
	n := int64(len(r)) * 16
	for _, v := range r {
		n += valueBytes(v)
	}
	return n
}

func valueBytes(v vector.Value) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x)) + 16
	case []vector.Value:
		n := int64(24)
		for _, e := range x {
			n += 16 + valueBytes(e)
		}
		return n
	case map[string]vector.Value:
		n := int64(48)
		for k, e := range x {
			n += int64(len(k)) + 32 + valueBytes(e)
		}
		return n
	}
	return 16
}
