package changes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/quiverdb/quiver/engine/storage"
)

// The change log's record of one commit: its Batch, every change of it
// (patterns select when reading). Values are encoded as the WAL encodes
// them (storage.AppendValue).

const batchVersion = 1

func appendBatch(b []byte, x *Batch) []byte {
	b = append(b, batchVersion)
	b = binary.AppendUvarint(b, x.TS)
	b = binary.AppendUvarint(b, x.LSN)
	b = binary.AppendVarint(b, x.CommittedAt.UnixNano())
	if s := x.Bulk; s != nil {
		b = append(b, 1)
		for _, n := range []int64{s.NodesCreated, s.NodesUpdated, s.NodesDeleted, s.RelationshipsCreated, s.RelationshipsUpdated, s.RelationshipsDeleted} {
			b = binary.AppendVarint(b, n)
		}
		return appendStrs(appendStrs(b, s.Labels), s.Types)
	}
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(x.Changes)))
	for i := range x.Changes {
		c := &x.Changes[i]
		b = append(b, byte(c.Op), byte(c.Entity))
		b = binary.AppendUvarint(b, c.ID)
		b = binary.AppendUvarint(b, uint64(c.Ordinal))
		b = appendStrs(appendStrs(appendStrs(b, c.Labels), c.LabelsAdded), c.LabelsRemoved)
		b = appendStr(b, c.Type)
		b = binary.AppendUvarint(b, c.Start)
		b = binary.AppendUvarint(b, c.End)
		b = appendStrs(appendStrs(b, c.StartLabels), c.EndLabels)
		b = appendProps(appendProps(b, c.Before), c.After)
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendStrs writes a list; nil and empty are the same (no list is
// told apart by it).
func appendStrs(b []byte, l []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = appendStr(b, s)
	}
	return b
}

// appendProps keeps nil (the entity did not exist) apart from empty.
func appendProps(b []byte, ps []Property) []byte {
	if ps == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(ps))+1)
	for _, p := range ps {
		b = storage.AppendValue(appendStr(b, p.Key), p.Value)
	}
	return b
}

var errShort = errors.New("truncated change record")

// batchDecoder reads a record appendBatch wrote; every count is bounded
// by the bytes left, so a corrupt record fails instead of allocating.
type batchDecoder struct {
	b   []byte
	err error
}

func (d *batchDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *batchDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *batchDecoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errShort
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *batchDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errShort
		return 0
	}
	return int(n)
}

func (d *batchDecoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *batchDecoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *batchDecoder) props() []Property {
	n := d.uvarint() // one more than the properties; 0 for none at all
	if n == 0 || d.err != nil {
		return nil
	}
	if n-1 > uint64(len(d.b)) {
		d.err = errShort
		return nil
	}
	out := make([]Property, 0, n-1)
	for range n - 1 {
		k := d.str()
		if d.err != nil {
			return nil
		}
		v, used, err := storage.DecodeValue(d.b)
		if err != nil {
			d.err = err
			return nil
		}
		d.b = d.b[used:]
		out = append(out, Property{Key: k, Value: v})
	}
	return out
}

func decodeBatch(b []byte) (Batch, error) {
	d := &batchDecoder{b: b}
	if v := d.byte1(); d.err == nil && v != batchVersion {
		return Batch{}, fmt.Errorf("change record version %d is not known", v)
	}
	x := Batch{TS: d.uvarint(), LSN: d.uvarint()}
	x.CommittedAt = time.Unix(0, d.varint()).UTC()
	if d.byte1() == 1 {
		s := &Bulk{}
		for _, p := range []*int64{&s.NodesCreated, &s.NodesUpdated, &s.NodesDeleted, &s.RelationshipsCreated, &s.RelationshipsUpdated, &s.RelationshipsDeleted} {
			*p = d.varint()
		}
		s.Labels, s.Types = d.strs(), d.strs()
		x.Bulk = s
		return x, d.err
	}
	n := d.count()
	x.Changes = make([]Change, 0, n)
	for range n {
		if d.err != nil {
			break
		}
		c := Change{Op: Op(d.byte1()), Entity: Entity(d.byte1()), ID: d.uvarint(), Ordinal: uint32(d.uvarint())}
		c.Labels, c.LabelsAdded, c.LabelsRemoved = d.strs(), d.strs(), d.strs()
		c.Type, c.Start, c.End = d.str(), d.uvarint(), d.uvarint()
		c.StartLabels, c.EndLabels = d.strs(), d.strs()
		c.Before, c.After = d.props(), d.props()
		x.Changes = append(x.Changes, c)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("change record has trailing bytes")
	}
	return x, d.err
}
