package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// System records: a small key-value space (string key → bytes) for the
// server's own state (users, roles, API keys, refresh tokens) that is as
// durable as the graph but is not part of it.
//
//   - Writes are ops (OpSetSystem) of an ordinary commit: logged in the
//     commit record, synced by the same group commit, replayed by the one
//     replay path, and published with the version, so a reader sees a
//     system record only once it is durable.
//   - Each version holds its map (Snapshot.sys) copy-on-write: the map is
//     split into sysBuckets hash buckets, and a transaction copies the
//     top-level table and only the buckets it writes, once (stamped with
//     its epoch, like chunks). Reads take no lock.
//   - A base stores the map in one file, system.kv (docs/storage-format.md);
//     a base without it (written before system records existed) holds none.
//   - Queries never read the map; conflict detection gives its ops no
//     footprint; the change feed is handed the commit's ops without them
//     (engine/changes), so a commit of system records only produces no events.
//     Two optimistic transactions writing the same key do not conflict:
//     the later commit wins (the engine writes them in pessimistic ones).

// Limits of system records, checked on every write and at replay.
const (
	// MaxSystemKeyBytes bounds a key; keys are 1 to this many bytes.
	MaxSystemKeyBytes = 1024
	// MaxSystemValueBytes bounds a value.
	MaxSystemValueBytes = 1 << 20
)

// CheckSystemRecord validates a system record: a key of 1 to
// MaxSystemKeyBytes bytes (any bytes: keys are opaque) and a value of at
// most MaxSystemValueBytes (nil deletes). 22023 when not.
func CheckSystemRecord(key string, value []byte) error {
	switch {
	case key == "":
		return errs.DataCode(errs.CodeInvalidParam, "system record key is empty")
	case len(key) > MaxSystemKeyBytes:
		return errs.DataCode(errs.CodeInvalidParam, "system record key is %d bytes, at most %d are allowed", len(key), MaxSystemKeyBytes)
	case len(value) > MaxSystemValueBytes:
		return errs.DataCode(errs.CodeInvalidParam, "system record %q: value is %d bytes, at most %d are allowed", key, len(value), MaxSystemValueBytes)
	}
	return nil
}

// sysBuckets is the number of hash buckets of a system map: a write
// copies one bucket (about n/sysBuckets entries) and the bucket table.
const sysBuckets = 256

// sysSeed places keys in buckets; the placement lives only in memory.
var sysSeed = maphash.MakeSeed()

func sysBucket(key string) int { return int(maphash.String(sysSeed, key) % sysBuckets) }

// sysMap is one version's system records. A map or bucket stamped with a
// transaction's epoch is private to it and mutated in place; any other is
// shared and read-only. nil is the empty map.
type sysMap struct {
	epoch   uint64
	n       int // records in all buckets
	buckets [sysBuckets]*sysBucketMap
}

type sysBucketMap struct {
	epoch uint64
	m     map[string][]byte // values are never mutated once stored
}

// setSystemLocked applies a validated OpSetSystem to the working version.
func (w *work) setSystemLocked(op *Op) {
	w.noteSealRecord(op)
	m := w.v.sys
	if m == nil || m.epoch != w.epoch {
		nm := &sysMap{epoch: w.epoch}
		if m != nil {
			nm.n, nm.buckets = m.n, m.buckets
		}
		w.v.sys, m = nm, nm
	}
	i := sysBucket(op.Name)
	b := m.buckets[i]
	if b == nil || b.epoch != w.epoch {
		nb := &sysBucketMap{epoch: w.epoch}
		if b != nil {
			nb.m = make(map[string][]byte, len(b.m)+1)
			for k, v := range b.m {
				nb.m[k] = v
			}
		} else {
			nb.m = map[string][]byte{}
		}
		m.buckets[i], b = nb, nb
	}
	_, had := b.m[op.Name]
	switch {
	case op.Value != nil:
		b.m[op.Name] = op.Value
		if !had {
			m.n++
		}
	case had:
		delete(b.m, op.Name)
		m.n--
	}
}

// SetSystem sets system record key to value in the transaction, or
// deletes it when value is nil (an empty non-nil value is a value). The
// value is copied. A pessimistic Tx takes the commit lock as any write
// does; see BeginWriteContext to bound that wait.
func (tx *Tx) SetSystem(key string, value []byte) error {
	if tx.done {
		return errDone
	}
	if err := CheckSystemRecord(key, value); err != nil {
		return err
	}
	w, err := tx.begin()
	if err != nil {
		return err
	}
	op := Op{Kind: OpSetSystem, Name: key}
	if value != nil {
		op.Value = append(make([]byte, 0, len(value)), value...)
	}
	w.mu.Lock()
	w.applyLocked(&op)
	w.mu.Unlock()
	w.ops = append(w.ops, op)
	w.system = true
	return nil
}

// SystemGet returns a copy of system record key's value.
func (s *Snapshot) SystemGet(key string) ([]byte, bool) {
	if s.sys == nil {
		return nil, false
	}
	b := s.sys.buckets[sysBucket(key)]
	if b == nil {
		return nil, false
	}
	v, ok := b.m[key]
	if !ok {
		return nil, false
	}
	return append(make([]byte, 0, len(v)), v...), true
}

// SystemCount is the number of system records.
func (s *Snapshot) SystemCount() int {
	if s.sys == nil {
		return 0
	}
	return s.sys.n
}

// SystemScan calls fn for each system record whose key starts with
// prefix, in key order. value is shared and read-only: copy it to keep
// or change it. The cost is a pass over every record plus a sort of the
// matching keys: the space is small (users, keys, sessions).
func (s *Snapshot) SystemScan(prefix string, fn func(key string, value []byte)) {
	if s.sys == nil {
		return
	}
	var keys []string
	for _, b := range s.sys.buckets {
		if b == nil {
			continue
		}
		for k := range b.m {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		fn(k, s.sys.buckets[sysBucket(k)].m[k])
	}
}

// BeginWriteContext returns a pessimistic Tx that already holds the
// commit lock (as BeginWrite takes it), waiting for the lock only as long
// as ctx allows: a long write statement holds the lock for its whole run,
// and a caller with a deadline (a login storing a session) must not wait
// past it. On ctx's end it returns ctx's error, unwrapped.
func (s *Store) BeginWriteContext(ctx context.Context) (*Tx, error) {
	if err := s.lockWriter(ctx); err != nil {
		return nil, err
	}
	tx := &Tx{s: s, snap: s.head, locked: true}
	if _, err := tx.begin(); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// lockWriter takes the commit lock, or gives up when ctx ends. A mutex
// cannot be waited on with a deadline, so a helper goroutine waits; when
// the caller has given up, the helper releases the lock as soon as it
// gets it.
func (s *Store) lockWriter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.writer.TryLock() {
		return nil
	}
	got := make(chan struct{})    // unbuffered: a send succeeds only when the caller takes the lock
	gaveUp := make(chan struct{}) // closed when the caller returns without it
	go func() {
		s.writer.Lock()
		select {
		case got <- struct{}{}:
		case <-gaveUp:
			s.writer.Unlock()
		}
	}()
	select {
	case <-got:
		return nil
	case <-ctx.Done():
		close(gaveUp)
		return ctx.Err()
	}
}

// withoutSystemOps is ops without its system ops (for the change feed);
// ops itself when it has none.
func withoutSystemOps(ops []Op) []Op {
	i := slices.IndexFunc(ops, func(op Op) bool { return op.Kind == OpSetSystem })
	if i < 0 {
		return ops
	}
	out := slices.Clone(ops[:i])
	for j := i + 1; j < len(ops); j++ {
		if ops[j].Kind != OpSetSystem {
			out = append(out, ops[j])
		}
	}
	return out
}

// The base's system.kv (raw, before zstd):
//
//	"QSYS1" · n uvarint · n × (key: uvarint len, bytes · value: uvarint len, bytes)
//
// keys strictly increasing, each record within the limits.
const (
	systemFileName = "system.kv"
	systemMagic    = "QSYS1"
)

// encodeSystemFile is v's system.kv, nil when v holds no system records.
func (s *Snapshot) encodeSystemFile() []byte {
	if s.SystemCount() == 0 {
		return nil
	}
	b := binary.AppendUvarint([]byte(systemMagic), uint64(s.sys.n))
	s.SystemScan("", func(k string, v []byte) {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	})
	return b
}

// decodeSystemFile reads system.kv into a map owned by no transaction.
// Every count is bounded by the bytes left.
func decodeSystemFile(raw []byte) (*sysMap, error) {
	if !bytes.HasPrefix(raw, []byte(systemMagic)) {
		return nil, fmt.Errorf("not a system record file (no %s header)", systemMagic)
	}
	d := &decoder{b: raw, p: len(systemMagic)}
	n := d.count(2)
	m := &sysMap{}
	prev := ""
	for i := 0; i < n && d.err == nil; i++ {
		k := d.str()
		v := append([]byte{}, d.bytes(d.count(1))...)
		if d.err != nil {
			break
		}
		if err := CheckSystemRecord(k, v); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		if i > 0 && k <= prev {
			return nil, fmt.Errorf("record %d: key %q not after %q", i, k, prev)
		}
		prev = k
		bi := sysBucket(k)
		if m.buckets[bi] == nil {
			m.buckets[bi] = &sysBucketMap{m: map[string][]byte{}}
		}
		m.buckets[bi].m[k] = v
		m.n++
	}
	if d.err == nil && d.left() > 0 {
		d.fail("%d bytes after the last record", d.left())
	}
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}

// checkSystem verifies the system map: every record within the limits
// and in its bucket, and the count.
func (s *Snapshot) checkSystem() error {
	if s.sys == nil {
		return nil
	}
	n := 0
	for i, b := range s.sys.buckets {
		if b == nil {
			continue
		}
		for k, v := range b.m {
			if err := CheckSystemRecord(k, v); err != nil {
				return fmt.Errorf("system records: %w", err)
			}
			if v == nil {
				return fmt.Errorf("system record %q has a nil value", k)
			}
			if sysBucket(k) != i {
				return fmt.Errorf("system record %q in bucket %d, belongs in %d", k, i, sysBucket(k))
			}
		}
		n += len(b.m)
	}
	if n != s.sys.n {
		return fmt.Errorf("system records: count %d but %d records", s.sys.n, n)
	}
	return nil
}
