package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

// smallParts cuts every CSR and column part of the bases a test writes
// down to a few nodes, slots and chunks, so that its round trips cross
// part boundaries everywhere.
func smallParts(t *testing.T) {
	n, s, c := csrPartNodes, csrPartSlots, colPartBytes
	csrPartNodes, csrPartSlots, colPartBytes = 3, 7, 1
	t.Cleanup(func() { csrPartNodes, csrPartSlots, colPartBytes = n, s, c })
}

// TestBaseRoundTripParts is TestBaseRoundTrip with tiny parts, on one
// core and on several: random graphs (whose relationship table is built
// at open) come back equal and checked.
func TestBaseRoundTripParts(t *testing.T) {
	smallParts(t)
	for i, procs := range []int{1, 4} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			s, m := buildModel(t, int64(11+i), true)
			got := saveAndOpen(t, s, t.TempDir())
			if got.Snapshot().derived != nil {
				t.Fatal("a graph with deletions opened with a derived table")
			}
			compare(t, "opened base", got.Snapshot(), m, got.Catalog())
			equalSnapshots(t, s.Snapshot(), got.Snapshot())
		})
	}
}

// saveAndOpen writes s as a base in dir, opens it and checks the opened
// store.
func saveAndOpen(t *testing.T, s *Store, dir string) *Store {
	t.Helper()
	if _, err := s.SaveBase(dir); err != nil {
		t.Fatal(err)
	}
	got, err := OpenBase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(); err != nil {
		t.Fatalf("Check after open: %v", err)
	}
	return got
}

// bulkGraph bulk-loads 3000 nodes (two groups, the second partial) with
// an integer, a plain string and a low-cardinality string property, and
// three relationship types, one with a property; type C spans more than
// a group of ids.
func bulkGraph(t *testing.T, seed uint64) *Store {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 3000
	id, name, city := make([]int64, n), make([]string, n), make([]string, n)
	for i := range n {
		id[i], name[i], city[i] = int64(i)*7, fmt.Sprintf("n%d", rng.IntN(1e6)), fmt.Sprintf("c%d", rng.IntN(5))
	}
	nodes := []BulkNodes{{Labels: []string{"P"}, Count: n, Cols: []BulkColumn{
		{Key: "id", Type: vector.Int64, I64: id}, {Key: "name", Type: vector.String, Str: name}, {Key: "city", Type: vector.String, Str: city}}}}
	var rels []BulkRels
	for _, set := range []struct {
		typ string
		m   int
	}{{"A", 700}, {"B", 50}, {"C", 2*GroupSize + 300}} {
		src, dst, w := make([]uint32, set.m), make([]uint32, set.m), make([]int64, set.m)
		for r := range set.m {
			src[r], dst[r], w[r] = uint32(rng.IntN(n)), uint32(rng.IntN(n)), int64(r)
			if r%50 == 1 {
				src[r], dst[r] = src[r-1], dst[r-1] // parallel edges
			}
			if r%77 == 0 {
				dst[r] = src[r] // self-loops
			}
		}
		rels = append(rels, BulkRels{Type: set.typ, Src: src, Dst: dst, Cols: []BulkColumn{{Key: "w", Type: vector.Int64, I64: w}}})
	}
	s, err := BulkLoad(nodes, rels)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// relRow is a relationship table row, for comparisons.
type relRow struct {
	t        catalog.TypeID
	src, dst uint64
}

func relRows(v *Snapshot) map[uint64]relRow {
	out := map[uint64]relRow{}
	for id := range v.relBound {
		if t, s, d, ok := v.Rel(id); ok {
			out[id] = relRow{t, s, d}
		}
	}
	return out
}

// TestDerivedRels: a bulk-loaded base opens with its relationship table
// derived from the forward CSRs; reads, writes (deleting base
// relationships in several groups, creating ones in the base's last group
// and past it, a DETACH DELETE, relationship properties), Check and
// Stats behave as with a built table, and the checkpoint written after
// the writes (no longer sequential) opens with a built one.
func TestDerivedRels(t *testing.T) {
	smallParts(t)
	s := bulkGraph(t, 1)
	dir := t.TempDir()
	got := saveAndOpen(t, s, dir)
	v := got.Snapshot()
	if v.derived == nil || v.rels != nil {
		t.Fatal("bulk-loaded base opened without a derived table")
	}
	equalSnapshots(t, s.Snapshot(), v)
	if st := v.Stats(); st.LiveRels != v.RelCount() {
		t.Fatalf("Stats: %d live relationships, RelCount %d", st.LiveRels, v.RelCount())
	}
	want := relRows(v)
	cat := got.Catalog()
	w, _ := cat.LookupKey("w")
	tA, _ := cat.LookupType("A")
	tx := got.Begin()
	for _, id := range []uint64{0, 5, 701, GroupSize + 3, v.relBound - 1} {
		if ok, err := tx.DeleteRel(id); err != nil || !ok {
			t.Fatalf("delete %d: %v %v", id, ok, err)
		}
		delete(want, id)
	}
	if err := tx.SetRelProps(GroupSize+4, []catalog.KeyID{w}, []vector.Value{int64(-1)}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		id, err := tx.CreateRel(tA, uint64(i), uint64(2999-i), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = relRow{tA, uint64(i), uint64(2999 - i)}
	}
	if _, _, err := tx.DeleteNode(42, true); err != nil {
		t.Fatal(err)
	}
	for id, r := range want {
		if r.src == 42 || r.dst == 42 {
			delete(want, id)
		}
	}
	mustCommit(t, tx)
	v = got.Snapshot()
	if err := got.Check(); err != nil {
		t.Fatal(err)
	}
	if st := v.Stats(); st.LiveRels != v.RelCount() || v.RelCount() != int64(len(want)) {
		t.Fatalf("Stats: %d live relationships, RelCount %d, want %d", st.LiveRels, v.RelCount(), len(want))
	}
	if rows := relRows(v); fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("relationship table after writes differs")
	}
	if p := v.RelProp(GroupSize+4, w); p != int64(-1) {
		t.Fatalf("w of %d = %v", GroupSize+4, p)
	}
	again := saveAndOpen(t, got, dir)
	if again.Snapshot().derived != nil {
		t.Fatal("a base with deleted relationships opened with a derived table")
	}
	equalSnapshots(t, v, again.Snapshot())
}

// TestOpenBaseCorruptSections flips a byte in every section of every
// sectioned file of two bases (a built and a derived relationship
// table, tiny parts): each is an ErrCorruptBase naming the file and the
// section, found by its checksum before anything is decoded.
func TestOpenBaseCorruptSections(t *testing.T) {
	smallParts(t)
	model, _ := buildModel(t, 5, false)
	for _, s := range []*Store{model, bulkGraph(t, 2)} {
		src := t.TempDir()
		if _, err := s.SaveBase(src); err != nil {
			t.Fatal(err)
		}
		mb, _ := os.ReadFile(filepath.Join(src, ManifestName))
		files, m, err := parseManifest(mb)
		if err != nil {
			t.Fatal(err)
		}
		for name, bf := range files {
			if !strings.HasSuffix(name, ".col") && !strings.HasPrefix(name, "csr.") {
				continue
			}
			f, err := vfs.Default.OpenFile(filepath.Join(src, m.Base, name), os.O_RDONLY)
			if err != nil {
				t.Fatal(err)
			}
			sf, err := readSectionTable(f, bf)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// The first, a middle and the last stored section of each
			// file: every kind of section is covered without opening the
			// base once per tiny part.
			p := filepath.Join(src, m.Base, name)
			orig, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range sampleSections(sf.secs) {
				sec := sf.secs[i]
				b := append([]byte(nil), orig...)
				b[sec.off+sec.stored/2] ^= 0x10
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := OpenBase(src)
				if !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), name) ||
					!strings.Contains(err.Error(), fmt.Sprintf("section %d: checksum mismatch", i)) {
					t.Fatalf("%s section %d flipped: %v", name, i, err)
				}
			}
			if err := os.WriteFile(p, orig, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sampleSections returns the indexes of the first, a middle and the
// last section that hold stored bytes.
func sampleSections(secs []section) []int {
	var stored []int
	for i, sec := range secs {
		if sec.stored > 0 {
			stored = append(stored, i)
		}
	}
	if len(stored) <= 3 {
		return stored
	}
	return []int{stored[0], stored[len(stored)/2], stored[len(stored)-1]}
}

// TestOpenBaseInconsistentCSRs: directions that disagree (each valid on
// its own, checksums intact) and types whose sequential ids overlap are
// refused when opening.
func TestOpenBaseInconsistentCSRs(t *testing.T) {
	for _, c := range []struct {
		name, want string
		hack       func(v *Snapshot)
	}{
		{"backward of another graph", "csr.0.in: does not hold the relationships of the forward adjacency", func(v *Snapshot) {
			in := v.adj[0][Incoming].Base()
			var edges []csr.Edge
			for dst := range uint64(in.NumNodes()) {
				nbrs, rels := in.AppendNeighbors(nil, dst), in.AppendRels(nil, dst)
				for i := range nbrs {
					edges = append(edges, csr.Edge{Src: dst, Dst: (nbrs[i] + 1) % uint64(in.NumNodes()), Rel: rels[i]})
				}
			}
			v.adj[0][Incoming] = csr.NewAdjacency(csr.Build(in.NumNodes(), edges))
		}},
		{"overlapping ids", "overlap", func(v *Snapshot) {
			v.adj[1][Outgoing] = csr.NewAdjacency(v.adj[1][Outgoing].Base().WithSequentialRels(0))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := bulkGraph(t, 3)
			c.hack(s.cur.Load())
			dir := t.TempDir()
			if _, err := s.SaveBase(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenBase(dir); !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("opened: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestOpenBaseFormat1: a base of the previous format is refused with a
// message that says what to do.
func TestOpenBaseFormat1(t *testing.T) {
	dir := t.TempDir()
	if _, err := bulkGraph(t, 4).SaveBase(dir); err != nil {
		t.Fatal(err)
	}
	mb, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	version := func(v int) {
		cur := fmt.Sprintf(`"format_version": %d`, FormatVersion)
		if !strings.Contains(string(mb), cur) {
			t.Fatalf("the manifest does not say %s", cur)
		}
		os.WriteFile(filepath.Join(dir, ManifestName), []byte(strings.Replace(string(mb), cur, fmt.Sprintf(`"format_version": %d`, v), 1)), 0o644)
	}
	version(1)
	if _, err := OpenBase(dir); !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), "older base format") {
		t.Fatalf("format 1: %v", err)
	}
	version(FormatVersion + 1)
	if _, err := OpenBase(dir); !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), "this build reads 2 and 3") {
		t.Fatalf("format %d: %v", FormatVersion+1, err)
	}
	// Format 2 is format 3 without flat vector chunks (which this graph
	// has none of): it opens.
	version(2)
	if _, err := OpenBase(dir); err != nil {
		t.Fatalf("format 2: %v", err)
	}
}
