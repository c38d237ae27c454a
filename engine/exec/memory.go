package exec

import (
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// MemTracker bounds the memory one query's operators hold
// (max_memory_per_query). Operators that accumulate rows — hash
// aggregation, DISTINCT, sort, the buffers of CrossProduct and of writes,
// collect() — charge an estimate of what they keep, once per batch.
// Streaming operators hold a batch at a time and charge nothing.
//
// The figure is an estimate of live bytes, not an allocator count: fixed
// widths per typed value (8 bytes, 1 for a boolean), string bytes plus a
// 16-byte header, 16 bytes per generic value plus its strings and
// elements, and a fixed overhead per hash-map entry. Memory is never
// returned while the query runs: what an operator keeps, it keeps to the
// end, except that a top-k sort gives back the rows it prunes.
//
// The workers of a parallel pipeline charge the query's tracker at once,
// so the total is kept with atomic adds; a worker's Context holds a
// tracker that forwards to the query's (shared).
type MemTracker struct {
	// Limit is the ceiling in bytes; zero or less means none.
	Limit  int64
	used   int64
	shared *MemTracker
}

// Used is the bytes charged so far.
func (m *MemTracker) Used() int64 {
	if m.shared != nil {
		return m.shared.Used()
	}
	return atomic.LoadInt64(&m.used)
}

// mapEntryBytes is the overhead of one Go map entry with a string key
// (bucket slot, tophash, string header), measured roughly on amd64.
const mapEntryBytes = 48

// charge adds n bytes and fails once the total passes the limit.
func (m *MemTracker) charge(n int64) error {
	if m.shared != nil {
		return m.shared.charge(n)
	}
	if used := atomic.AddInt64(&m.used, n); m.Limit > 0 && used > m.Limit {
		return errs.New(errs.CodeOutOfMemory, errs.CatResource,
			"query stopped: it needs more than max_memory_per_query (%d bytes) to hold its intermediate rows", m.Limit).
			Suggest("add LIMIT or a narrower WHERE, or raise max_memory_per_query with SET max_memory_per_query = '…MB'")
	}
	return nil
}

// release gives back n bytes an operator no longer holds.
func (m *MemTracker) release(n int64) {
	if m.shared != nil {
		m.shared.release(n)
		return
	}
	atomic.AddInt64(&m.used, -n)
}

// chargeBatch charges the selected rows of b, which the caller keeps, and
// returns the bytes charged (none without a limit: the estimate is then
// not worth its loop over strings).
func (c *Context) chargeBatch(b *vector.Batch) (int64, error) {
	if c.Mem.Limit <= 0 {
		return 0, nil
	}
	n := batchBytes(b)
	return n, c.Mem.charge(n)
}

// batchBytes estimates the bytes of b's selected rows once copied.
func batchBytes(b *vector.Batch) int64 {
	n := int64(b.Rows())
	var total int64
	for _, v := range b.Cols {
		switch v.Type {
		case vector.Bool:
			total += n
		case vector.String:
			total += 16 * n
			for i := 0; i < b.Rows(); i++ {
				total += int64(len(v.Str[b.Row(i)]))
			}
		case vector.Any:
			for i := 0; i < b.Rows(); i++ {
				total += valueBytes(v.Any[b.Row(i)])
			}
		default:
			total += 8 * n
		}
	}
	return total
}

// valueBytes estimates a generic value's size.
func valueBytes(x vector.Value) int64 {
	switch x := x.(type) {
	case string:
		return 16 + int64(len(x))
	case []vector.Value:
		s := int64(24)
		for _, e := range x {
			s += valueBytes(e)
		}
		return s
	case map[string]vector.Value:
		s := int64(48)
		for k, e := range x {
			s += mapEntryBytes + int64(len(k)) + valueBytes(e)
		}
		return s
	}
	return 16
}
