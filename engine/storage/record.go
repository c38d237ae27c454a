package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// A commit record is the logical WAL payload of one commit (the WAL
// frames, compresses and checksums it; engine/storage/wal):
//
//	┌──────┬───────┬────────┬────────────┬────────┬─────────────────┬─────────┬──────┐
//	│ ver  │ flags │ writer │ prev       │ ts     │ names: labels,  │ n ops   │ ops… │
//	│ u8=2 │ u8    │ u64 LE │ u64 LE     │ uvarint│ types, keys     │ uvarint │      │
//	│      │       │        │ if flags&1 │        │ each: first id, │         │      │
//	│      │       │        │            │        │ count, names    │         │      │
//	└──────┴───────┴────────┴────────────┴────────┴─────────────────┴─────────┴──────┘
//
//	flags bit 0: the first record of its writer; prev is the writer it
//	took over from (writer.go). Other bits are zero.
//
//	op: kind u8, then by kind (integers uvarint, strings length-prefixed)
//	  CreateNode        id, labels, props
//	  CreateRel         id, type, src, dst, props
//	  SetNodeProps      id, props (a null value removes the key)
//	  SetRelProps       id, props
//	  AddLabels         id, labels
//	  RemoveLabels      id, labels
//	  DeleteRel         id, type, src, dst
//	  DeleteNode        id
//	  CreateIndex       name, type u8, label, keys, owning constraint
//	                    [secondary types: rel u8, analyzer]
//	  DropIndex         name
//	  CreateConstraint  name, kind u8, label, key
//	  DropConstraint    name
//	  SetSystem         key, flag u8 (0 delete, 1 set), then if set: value
//	                    (uvarint length, bytes)
//	labels: count, ids · props: count, count × (key id, value)
//
// Values use the base format's generic encoding (base_value.go).
// SetSystem (system records, system.go) came after the others: an older
// log never holds it, so it needed no new version. Version 1 records
// (ver u8=1, then ts and the rest, without flags, writer or prev) are
// still read, as records of writer 0.
//
// Catalog names are not transactional: a name is registered when a
// statement first uses it, whether or not it commits. A record carries
// the names registered since the previous record (ids first..first+n-1),
// so replay registers them in the same order and every id in the ops
// means what it meant when it was logged.
const recordVersion = 2

// recordFirst is the flag of a writer's first record.
const recordFirst = 1

// catalogTail is the names a record carries: per kind, the first id and
// the names from it on.
type catalogTail struct {
	firstLabel, firstType, firstKey int
	labels, types, keys             []string
}

// tailSince is the catalog's names past the counts already logged.
func tailSince(cat *catalog.Catalog, labels, types, keys int) catalogTail {
	t := catalogTail{firstLabel: labels, firstType: types, firstKey: keys}
	for i := labels; i < cat.NumLabels(); i++ {
		t.labels = append(t.labels, cat.LabelName(catalog.LabelID(i)))
	}
	for i := types; i < cat.NumTypes(); i++ {
		t.types = append(t.types, cat.TypeName(catalog.TypeID(i)))
	}
	for i := keys; i < cat.NumKeys(); i++ {
		t.keys = append(t.keys, cat.KeyName(catalog.KeyID(i)))
	}
	return t
}

// encodeRecord appends the commit record of ops committed at ts, by
// writer 0 (tests).
func encodeRecord(b []byte, ts uint64, names catalogTail, ops []Op) []byte {
	return encodeRecordBy(b, writerSession{logged: true}, ts, names, ops)
}

// encodeRecordBy appends the commit record of ops committed at ts by w.
func encodeRecordBy(b []byte, w writerSession, ts uint64, names catalogTail, ops []Op) []byte {
	b = append(b, recordVersion)
	if w.logged || w.id == 0 {
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint64(b, w.id)
	} else {
		b = append(b, recordFirst)
		b = binary.LittleEndian.AppendUint64(b, w.id)
		b = binary.LittleEndian.AppendUint64(b, w.prev)
	}
	b = binary.AppendUvarint(b, ts)
	for _, part := range [3]struct {
		first int
		names []string
	}{{names.firstLabel, names.labels}, {names.firstType, names.types}, {names.firstKey, names.keys}} {
		b = binary.AppendUvarint(b, uint64(part.first))
		b = binary.AppendUvarint(b, uint64(len(part.names)))
		for _, n := range part.names {
			b = appendString(b, n)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for i := range ops {
		b = appendOp(b, &ops[i])
	}
	return b
}

func appendOp(b []byte, op *Op) []byte {
	b = append(b, byte(op.Kind))
	switch op.Kind {
	case OpCreateNode, OpAddLabels, OpRemoveLabels:
		b = binary.AppendUvarint(b, op.ID)
		b = binary.AppendUvarint(b, uint64(len(op.Labels)))
		for _, l := range op.Labels {
			b = binary.AppendUvarint(b, uint64(l))
		}
		if op.Kind == OpCreateNode {
			b = appendProps(b, op)
		}
	case OpCreateRel, OpDeleteRel:
		b = binary.AppendUvarint(b, op.ID)
		b = binary.AppendUvarint(b, uint64(op.Type))
		b = binary.AppendUvarint(b, op.Src)
		b = binary.AppendUvarint(b, op.Dst)
		if op.Kind == OpCreateRel {
			b = appendProps(b, op)
		}
	case OpSetNodeProps, OpSetRelProps:
		b = binary.AppendUvarint(b, op.ID)
		b = appendProps(b, op)
	case OpDeleteNode:
		b = binary.AppendUvarint(b, op.ID)
	case OpCreateIndex:
		ix := op.Index
		b = appendString(b, ix.Name)
		b = append(b, byte(ix.Type))
		b = appendString(b, ix.Label)
		b = binary.AppendUvarint(b, uint64(len(ix.Keys)))
		for _, k := range ix.Keys {
			b = appendString(b, k)
		}
		b = appendString(b, ix.Constraint)
		if ix.Type.Secondary() {
			// Only secondary indexes carry these: older records stay
			// byte-identical.
			rel := byte(0)
			if ix.Rel {
				rel = 1
			}
			b = append(b, rel)
			b = appendString(b, ix.Analyzer)
		}
		if ix.Type == catalog.Vector {
			vo := ix.Vector
			if vo == nil {
				vo = &catalog.VectorOptions{}
			}
			b = binary.AppendUvarint(b, uint64(vo.Dimensions))
			b = appendString(b, vo.Similarity)
			b = binary.AppendUvarint(b, uint64(vo.M))
			b = binary.AppendUvarint(b, uint64(vo.EfConstruction))
		}
	case OpCreateConstraint:
		c := op.Constraint
		b = appendString(b, c.Name)
		b = append(b, byte(c.Kind))
		b = appendString(b, c.Label)
		b = appendString(b, c.Key)
	case OpDropIndex, OpDropConstraint:
		b = appendString(b, op.Name)
	case OpSetSystem:
		b = appendString(b, op.Name)
		if op.Value == nil {
			b = append(b, 0)
		} else {
			b = binary.AppendUvarint(append(b, 1), uint64(len(op.Value)))
			b = append(b, op.Value...)
		}
	default:
		panic("BUG: storage: encoding an unknown op kind")
	}
	return b
}

func appendProps(b []byte, op *Op) []byte {
	b = binary.AppendUvarint(b, uint64(len(op.Keys)))
	for i, k := range op.Keys {
		b = binary.AppendUvarint(b, uint64(k))
		b = appendValue(b, op.Vals[i])
	}
	return b
}

// decodedRecord is a commit record read back.
type decodedRecord struct {
	// writer wrote the record; prev is the writer it took over from
	// when first is set; legacy marks a version 1 record (writer.go).
	writer, prev  uint64
	first, legacy bool
	ts            uint64
	names         catalogTail
	ops           []Op
}

// decodeRecord reads a commit record. Every count is bounded by the
// bytes left, so a corrupt record fails instead of allocating without
// bound; ids are checked against the catalog and the store at replay.
func decodeRecord(b []byte) (*decodedRecord, error) {
	d := &decoder{b: b}
	r := &decodedRecord{}
	switch v := d.u8(); {
	case d.err != nil:
	case v == 1:
		r.legacy = true
	case v == recordVersion:
		flags := d.u8()
		if flags&^recordFirst != 0 {
			d.fail("unknown record flags %#x", flags)
		}
		r.first = flags&recordFirst != 0
		r.writer = d.u64()
		if r.first {
			r.prev = d.u64()
		}
	default:
		return nil, fmt.Errorf("commit record version %d, want %d", v, recordVersion)
	}
	r.ts = d.uvarint()
	for _, part := range [3]struct {
		first *int
		names *[]string
	}{{&r.names.firstLabel, &r.names.labels}, {&r.names.firstType, &r.names.types}, {&r.names.firstKey, &r.names.keys}} {
		*part.first = int(min(d.uvarint(), 1<<32))
		n := d.count(1)
		for i := 0; i < n && d.err == nil; i++ {
			*part.names = append(*part.names, d.str())
		}
	}
	n := d.count(2)
	r.ops = make([]Op, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		r.ops = append(r.ops, d.op())
	}
	if d.err == nil && d.left() > 0 {
		d.fail("%d bytes after the last op", d.left())
	}
	if d.err != nil {
		return nil, fmt.Errorf("bad commit record: %w", d.err)
	}
	return r, nil
}

func (d *decoder) op() Op {
	op := Op{Kind: OpKind(d.u8())}
	switch op.Kind {
	case OpCreateNode, OpAddLabels, OpRemoveLabels:
		op.ID = d.uvarint()
		n := d.count(1)
		op.Labels = make([]catalog.LabelID, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			op.Labels = append(op.Labels, catalog.LabelID(d.id32()))
		}
		if op.Kind == OpCreateNode {
			d.props(&op)
		}
	case OpCreateRel, OpDeleteRel:
		op.ID = d.uvarint()
		op.Type = catalog.TypeID(d.id32())
		op.Src, op.Dst = d.uvarint(), d.uvarint()
		if op.Kind == OpCreateRel {
			d.props(&op)
		}
	case OpSetNodeProps, OpSetRelProps:
		op.ID = d.uvarint()
		d.props(&op)
	case OpDeleteNode:
		op.ID = d.uvarint()
	case OpCreateIndex:
		ix := &catalog.Index{Name: d.str(), Type: catalog.IndexType(d.u8()), Label: d.str()}
		n := d.count(1)
		for i := 0; i < n && d.err == nil; i++ {
			ix.Keys = append(ix.Keys, d.str())
		}
		ix.Constraint = d.str()
		if ix.Type.Secondary() {
			ix.Rel = d.u8() == 1
			ix.Analyzer = d.str()
		}
		if ix.Type == catalog.Vector {
			ix.Vector = &catalog.VectorOptions{Dimensions: int(d.uvarint()), Similarity: d.str(), M: int(d.uvarint()), EfConstruction: int(d.uvarint())}
		}
		op.Index = ix
	case OpCreateConstraint:
		op.Constraint = &catalog.Constraint{Name: d.str(), Kind: catalog.ConstraintKind(d.u8()), Label: d.str(), Key: d.str()}
	case OpDropIndex, OpDropConstraint:
		op.Name = d.str()
	case OpSetSystem:
		op.Name = d.str()
		switch flag := d.u8(); flag {
		case 0:
		case 1:
			// A copy: the record's buffer is the log reader's.
			op.Value = append([]byte{}, d.bytes(d.count(1))...)
		default:
			d.fail("system record flag %d", flag)
		}
	default:
		d.fail("unknown op kind %d", op.Kind)
	}
	return op
}

// id32 reads a catalog id, which must fit 32 bits.
func (d *decoder) id32() uint32 {
	x := d.uvarint()
	if x > 1<<32-1 {
		d.fail("catalog id %d out of range", x)
		return 0
	}
	return uint32(x)
}

func (d *decoder) props(op *Op) {
	n := d.count(2)
	op.Keys = make([]catalog.KeyID, 0, n)
	op.Vals = make([]vector.Value, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		op.Keys = append(op.Keys, catalog.KeyID(d.id32()))
		op.Vals = append(op.Vals, d.value(0))
	}
}
