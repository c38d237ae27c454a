package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// TestBaseRoundTrip writes random graphs (the model test's: mixed column
// types, side values, lists and maps, deletions, rolled-back id holes,
// overlays) as a base, reads them back, and compares the result with the
// model and with the written snapshot, and checks its invariants.
func TestBaseRoundTrip(t *testing.T) {
	base := time.Now().UnixNano()
	for i := int64(0); i < 4; i++ {
		seed := base + i
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d", seed)
			s, m := buildModel(t, seed, i == 0)
			addTemporalAndSchema(t, s, m)
			dir := t.TempDir()
			got := saveAndOpen(t, s, dir)
			compare(t, "opened base", got.Snapshot(), m, got.Catalog())
			equalSnapshots(t, s.Snapshot(), got.Snapshot())
			if got.Snapshot().Schema().Index("ix") == nil || got.Snapshot().Schema().Constraint("u") == nil {
				t.Fatalf("schema not rebuilt: %+v", got.Snapshot().Schema())
			}
			// New ids continue after the loaded bounds.
			tx := got.Begin()
			id, err := tx.CreateNode(nil, nil, nil)
			if err != nil || id != s.Snapshot().NodeIDBound() {
				t.Fatalf("new node id %d (%v), want %d", id, err, s.Snapshot().NodeIDBound())
			}
			mustCommit(t, tx)
			// Saving again replaces the base atomically; the old one is removed.
			if _, err := got.SaveBase(dir); err != nil {
				t.Fatal(err)
			}
			again, err := OpenBase(dir)
			if err != nil {
				t.Fatal(err)
			}
			if again.Snapshot().NodeCount() != s.Snapshot().NodeCount()+1 {
				t.Fatalf("second save: %d nodes", again.Snapshot().NodeCount())
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 2 {
				t.Fatalf("data dir holds %d entries after two saves, want manifest + one base", len(ents))
			}
		})
	}
}

// addTemporalAndSchema adds nodes with temporal property values, an index
// and a UNIQUE constraint, in the model too.
func addTemporalAndSchema(t *testing.T, s *Store, m *model) {
	cat := s.Catalog()
	l := cat.EnsureLabel("Temporal")
	k := cat.EnsureKey("when")
	u := cat.EnsureKey("uid")
	vals := []vector.Value{temporal.Date{Days: -3}, temporal.LocalTime{Nanos: 5}, temporal.Time{Nanos: 7, Offset: -3600},
		temporal.LocalDateTime{Sec: 99, Nanos: 1}, temporal.DateTime{Sec: 1e9, Nanos: 2, Offset: 7200, Zone: "Europe/Paris"},
		temporal.Duration{Months: 1, Days: -2, Seconds: 3, Nanos: 4}}
	tx := s.Begin()
	for i, v := range vals {
		id, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k, u}, []vector.Value{v, int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		m.nodes[id] = &mNode{labels: map[catalog.LabelID]bool{l: true}, props: map[catalog.KeyID]vector.Value{k: v, u: int64(i)}}
	}
	if err := tx.CreateIndex(catalog.Index{Name: "ix", Type: catalog.Hash, Label: "Temporal", Keys: []string{"when"}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateConstraint(catalog.Constraint{Name: "u", Kind: catalog.Unique, Label: "Temporal", Key: "uid"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
}

// equalSnapshots walks two versions and fails at the first difference in
// what a reader can observe.
func equalSnapshots(t *testing.T, a, b *Snapshot) {
	t.Helper()
	if a.NodeIDBound() != b.NodeIDBound() || a.NodeCount() != b.NodeCount() || a.RelCount() != b.RelCount() || a.relBound != b.relBound {
		t.Fatalf("bounds differ: %d/%d/%d/%d vs %d/%d/%d/%d", a.NodeIDBound(), a.NodeCount(), a.RelCount(), a.relBound,
			b.NodeIDBound(), b.NodeCount(), b.RelCount(), b.relBound)
	}
	if !a.LiveNodes().Equals(b.LiveNodes()) {
		t.Fatal("live nodes differ")
	}
	for l := 0; l < max(len(a.labels), len(b.labels)); l++ {
		if !a.LabelNodes(catalog.LabelID(l)).Equals(b.LabelNodes(catalog.LabelID(l))) {
			t.Fatalf("label %d differs", l)
		}
	}
	props := func(each func(uint64, func(catalog.KeyID, vector.Value)), id uint64) map[catalog.KeyID]vector.Value {
		m := map[catalog.KeyID]vector.Value{}
		each(id, func(k catalog.KeyID, v vector.Value) { m[k] = v })
		return m
	}
	for k := 0; k < max(len(a.nodeCols), len(b.nodeCols)); k++ {
		if a.NodePropType(catalog.KeyID(k)) != b.NodePropType(catalog.KeyID(k)) {
			t.Fatalf("node key %d type %s vs %s", k, a.NodePropType(catalog.KeyID(k)), b.NodePropType(catalog.KeyID(k)))
		}
	}
	for id := uint64(0); id < a.NodeIDBound(); id++ {
		pa, pb := props(a.NodeProps, id), props(b.NodeProps, id)
		if len(pa) != len(pb) {
			t.Fatalf("node %d props %v vs %v", id, pa, pb)
		}
		for k, v := range pa {
			if !valEqual(v, pb[k]) {
				t.Fatalf("node %d key %d: %v vs %v", id, k, v, pb[k])
			}
		}
	}
	for id := uint64(0); id < a.relBound; id++ {
		ta, sa, da, oka := a.Rel(id)
		tb, sb, db, okb := b.Rel(id)
		if oka != okb || ta != tb || sa != sb || da != db {
			t.Fatalf("rel %d: %v %d %d->%d vs %v %d %d->%d", id, oka, ta, sa, da, okb, tb, sb, db)
		}
		pa, pb := props(a.RelProps, id), props(b.RelProps, id)
		if len(pa) != len(pb) {
			t.Fatalf("rel %d props %v vs %v", id, pa, pb)
		}
		for k, v := range pa {
			if !valEqual(v, pb[k]) {
				t.Fatalf("rel %d key %d: %v vs %v", id, k, v, pb[k])
			}
		}
	}
	for ty := 0; ty < max(len(a.adj), len(b.adj)); ty++ {
		for _, d := range []Direction{Outgoing, Incoming} {
			x, y := a.Adjacency(catalog.TypeID(ty), d), b.Adjacency(catalog.TypeID(ty), d)
			if (x == nil) != (y == nil) {
				t.Fatalf("type %d %s: adjacency presence differs", ty, d)
			}
			if x == nil {
				continue
			}
			for v := uint64(0); v < a.NodeIDBound(); v++ {
				n1, r1 := x.AppendNeighbors(nil, nil, v)
				n2, r2 := y.AppendNeighbors(nil, nil, v)
				if fmt.Sprint(n1, r1) != fmt.Sprint(n2, r2) {
					t.Fatalf("type %d %s node %d: %v %v vs %v %v", ty, d, v, n1, r1, n2, r2)
				}
			}
		}
	}
}

// TestOpenBaseCorrupt: truncated, flipped and missing files are clear
// errors naming the file.
func TestOpenBaseCorrupt(t *testing.T) {
	s, _ := buildModel(t, 7, false)
	src := t.TempDir()
	if _, err := s.SaveBase(src); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(src, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	_, mf, err := parseManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mf.Files {
		for _, damage := range []string{"truncate", "flip", "remove"} {
			err := openDamaged(t, src, mf.Base, f.Name, damage, 2)
			if !errors.Is(err, ErrCorruptBase) {
				t.Fatalf("%s %s: error %v, want ErrCorruptBase", damage, f.Name, err)
			}
			if want := f.Name; !contains(err.Error(), want) {
				t.Fatalf("%s %s: error %q does not name the file", damage, f.Name, err)
			}
		}
	}
	// A manifest of another format version.
	dir := t.TempDir()
	copyDir(t, src, dir)
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format_version": 99}`), 0o644)
	if _, err := OpenBase(dir); !errors.Is(err, ErrCorruptBase) || !contains(err.Error(), "format_version 99") {
		t.Fatalf("version error: %v", err)
	}
}

// openDamaged opens a copy of the base directory src whose file name
// (in folder base) is damaged: cut to half its length, a byte flipped at
// len/at, or removed.
func openDamaged(t *testing.T, src, base, name, damage string, at int) error {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, src, dir)
	p := filepath.Join(dir, base, name)
	b, _ := os.ReadFile(p)
	switch damage {
	case "truncate":
		os.WriteFile(p, b[:len(b)/2], 0o644)
	case "flip":
		b[len(b)/at] ^= 0x40
		os.WriteFile(p, b, 0o644)
	case "remove":
		os.Remove(p)
	}
	_, err := OpenBase(dir)
	return err
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzOpenBase feeds arbitrary bytes to the decoders of the base format:
// the manifest, column files, slot view headers, roaring bitmaps and the
// whole open path with a fuzzed column. Any input must give a value or an error, never a panic.
func FuzzOpenBase(f *testing.F) {
	s, _ := buildModel(&testing.T{}, 3, false)
	dir := f.TempDir()
	if _, err := s.SaveBase(dir); err != nil {
		f.Fatal(err)
	}
	m, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	f.Add(m)
	v := s.Snapshot()
	for _, c := range v.nodeCols {
		if c != nil {
			f.Add(encodeColumn(c))
		}
	}
	f.Add(bitmapBytes(v.live))
	f.Add([]byte(colMagic + "\x01\x00\x02"))
	// A column of one flat chunk: a VECTORS record (chunk_vector.go).
	flat := newChunk(0, vector.Any)
	flat.set(0, []vector.Value{1.5, -2.0})
	flat.set(3, []vector.Value{0.0, 4.0})
	f.Add(flat.appendEncoded(binary.AppendUvarint([]byte{1}, 0)))
	f.Add([]byte(slotsMagic + "\x01\x01\x00\x05\x04\x02\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseManifest(b)
		parseSlotHeader(b)
		decodeColumn(b, 5000)
		decodeBitmap(b)
		d := &decoder{b: b}
		d.value(0)
	})
}

// TestDecodeChunkRowCountOverflow: a chunk's row count past MaxInt64 (a
// case the fuzzer found) is refused, not wrapped to a negative count that
// slices out of range.
func TestDecodeChunkRowCountOverflow(t *testing.T) {
	for _, typ := range []vector.Type{vector.Int64, vector.Float64, vector.String} {
		b := []byte{1, 0, byte(typ)}               // one chunk, group 0, its type
		b = append(b, make([]byte, validBytes)...) // validity
		b = binary.AppendUvarint(b, 1<<63|12345)   // the row count
		b = append(b, make([]byte, 64)...)
		_, err := decodeColumn(b, 5000)
		if err == nil || !strings.Contains(err.Error(), "rows in a chunk") {
			t.Fatalf("%v: error %v, want a refused row count", typ, err)
		}
	}
}
