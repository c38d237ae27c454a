package engine

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// BenchmarkTightLoop times Q2 (group by city: count and avg(age), top 10)
// and Q8 (top-10 out-degree with the node's id) through the engine and as
// a plain Go loop over the same data, lifted out of storage beforehand
// into flat arrays: dictionary codes and ages per node, the CSR's
// offsets. The loop is the floor an engine could reach on one core; the
// ratio of the two is what issue 17 tracks (benchstat the pairs).
func BenchmarkTightLoop(b *testing.B) {
	// Whole chunks of ids, so that every city has a dictionary code (a
	// partial last chunk is stored uncoded).
	db := importedBenchDB(b, 49*2048, 1_000_000)
	snap := db.store.Snapshot()
	cat := db.store.Catalog()
	person, _ := cat.LookupLabel("Person")
	knows, _ := cat.LookupType("KNOWS")
	cityKey, _ := cat.LookupKey("city")
	ageKey, _ := cat.LookupKey("age")
	idKey, _ := cat.LookupKey("id")
	nodes := snap.LabelNodes(person).ToArray()
	n := len(nodes)
	codes := make([]uint16, n)
	ages := make([]uint8, n)
	ids := make([]int64, n)
	batch := vector.New(vector.Node, vector.Capacity)
	buf := make([]int32, vector.Capacity)
	age := snap.NodeIntView(ageKey, 1<<30)
	id := snap.NodeIntView(idKey, 1<<30)
	if age == nil || id == nil {
		b.Fatal("no integer views")
	}
	for lo := 0; lo < n; lo += vector.Capacity {
		m := min(n-lo, vector.Capacity)
		for i := range m {
			batch.IDs[i] = uint64(nodes[lo+i])
		}
		if d, ok := snap.GatherNodePropCodes(cityKey, batch, nil, m, buf); !ok || d == nil {
			b.Fatal("no city codes")
		}
		for i := range m {
			if buf[i] < 0 {
				b.Fatal("a city without a code")
			}
			codes[lo+i] = uint16(buf[i])
			x, _ := age.Get(uint64(nodes[lo+i]))
			ages[lo+i] = uint8(x)
			y, _ := id.Get(uint64(nodes[lo+i]))
			ids[lo+i] = y
		}
	}
	offsets := snap.Adjacency(knows, storage.Outgoing).Base().Offsets()

	b.Run("Q2/engine", func(b *testing.B) {
		for b.Loop() {
			runToEnd(b, db, "MATCH (p:Person) RETURN p.city, count(*), avg(p.age) ORDER BY count(*) DESC LIMIT 10")
		}
	})
	b.Run("Q2/loop", func(b *testing.B) {
		cnt, sum := make([]int64, 1<<16), make([]int64, 1<<16)
		for b.Loop() {
			clear(cnt)
			clear(sum)
			for i, c := range codes {
				cnt[c]++
				sum[c] += int64(ages[i])
			}
			top := make([]int, 0, 1<<16)
			for c, k := range cnt {
				if k > 0 {
					top = append(top, c)
				}
			}
			slices.SortFunc(top, func(x, y int) int { return int(cnt[y] - cnt[x]) })
			_ = top[:min(10, len(top))]
		}
	})
	b.Run("Q8/engine", func(b *testing.B) {
		for b.Loop() {
			runToEnd(b, db, "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS d ORDER BY d DESC LIMIT 10")
		}
	})
	b.Run("Q8/loop", func(b *testing.B) {
		type row struct{ id, d int64 }
		for b.Loop() {
			var top [10]row
			k := 0
			for i, a := range nodes {
				d := int64(offsets[a+1] - offsets[a])
				if d == 0 || k == len(top) && d <= top[k-1].d {
					continue
				}
				j := min(k, len(top)-1)
				for j > 0 && top[j-1].d < d {
					top[j] = top[j-1]
					j--
				}
				top[j] = row{ids[i], d}
				k = min(k+1, len(top))
			}
		}
	})
}

// importedBenchDB imports (as quiver import does: dictionary-coded
// strings, compressed CSR) n Person nodes (id, age, city: one of 200,
// skewed as the bench generator's) and m random KNOWS relationships.
func importedBenchDB(b *testing.B, n, m int) *DB {
	in := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(name string, fill func(w *bufio.Writer)) string {
		return writeBenchCSV(b, in, name, fill)
	}
	persons := write("persons.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "id:INT64,age:INT64,city:STRING")
		for i := range n {
			fmt.Fprintf(w, "%d,%d,City%03d\n", i, 18+rng.IntN(63), min(rng.IntN(200), rng.IntN(200)))
		}
	})
	knows := write("knows.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "from,to")
		for range m {
			fmt.Fprintf(w, "%d,%d\n", rng.IntN(n), rng.IntN(n))
		}
	})
	dir := filepath.Join(b.TempDir(), "data")
	if _, err := Import(ImportOptions{Dir: dir, Nodes: []ImportInput{{Name: "Person", Path: persons}},
		Rels: []ImportInput{{Name: "KNOWS", Path: knows}}}); err != nil {
		b.Fatal(err)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// writeBenchCSV writes the file name in dir through fill and returns its
// path.
func writeBenchCSV(b *testing.B, dir, name string, fill func(w *bufio.Writer)) string {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fill(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
