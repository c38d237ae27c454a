package engine_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestEncryptionCost measures encryption at rest against a plain data
// directory in the same run (docs/encryption.md, "Costs"): import (for an
// encrypted directory: import, then EncryptDataDir), restart (Open of a
// checkpointed directory), a scan-heavy query, and autocommit commits per
// second. It runs only with QUIVER_TDE_COST=1; QUIVER_TDE_COST_NODES and
// QUIVER_TDE_COST_RELS set the size (default 1M nodes, 3M relationships).
func TestEncryptionCost(t *testing.T) {
	if os.Getenv("QUIVER_TDE_COST") == "" {
		t.Skip("QUIVER_TDE_COST=1 runs it")
	}
	envInt := func(name string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
			return n
		}
		return def
	}
	nodes, rels := envInt("QUIVER_TDE_COST_NODES", 1_000_000), envInt("QUIVER_TDE_COST_RELS", 3_000_000)
	work := t.TempDir()
	persons, knows := filepath.Join(work, "persons.csv"), filepath.Join(work, "knows.csv")
	writeCSV(t, persons, "id,name,age,city", nodes, func(w *bufio.Writer, i int, r *rand.Rand) {
		fmt.Fprintf(w, "%d,person-%d,%d,city-%d\n", i, i, 18+r.IntN(60), r.IntN(500))
	})
	writeCSV(t, knows, "from,to", rels, func(w *bufio.Writer, i int, r *rand.Rand) {
		fmt.Fprintf(w, "%d,%d\n", r.IntN(nodes), r.IntN(nodes))
	})
	key := bytes.Repeat([]byte{0x11}, 32)
	enc := &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
	in := func(dir string) engine.ImportOptions {
		return engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "Person", Path: persons}}, Rels: []engine.ImportInput{{Name: "KNOWS", Path: knows}}}
	}
	plainDir, encDir := filepath.Join(work, "plain"), filepath.Join(work, "enc")
	start := time.Now()
	if _, err := engine.Import(in(plainDir)); err != nil {
		t.Fatal(err)
	}
	importPlain := time.Since(start)
	start = time.Now()
	if _, err := engine.Import(in(encDir)); err != nil {
		t.Fatal(err)
	}
	importOnly := time.Since(start)
	if _, err := engine.EncryptDataDir(encDir, key, nil); err != nil {
		t.Fatal(err)
	}
	importEnc := time.Since(start)
	// The two imports do the same work: the faster is the plain cost,
	// and the encrypted one adds EncryptDataDir to it.
	encrypt := importEnc - importOnly
	base := min(importPlain, importOnly)
	t.Logf("import: %v and %v (plain, twice); quiver encrypt %v: encrypted import %.2fx", importPlain.Round(time.Millisecond),
		importOnly.Round(time.Millisecond), encrypt.Round(time.Millisecond), (base+encrypt).Seconds()/base.Seconds())

	open := func(dir string, e *engine.Encryption) (*engine.DB, time.Duration) {
		start := time.Now()
		db, err := engine.Open(dir, engine.Options{Encryption: e, CheckpointInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		return db, time.Since(start)
	}
	// Restart: alternate, best of five each.
	var rp, re time.Duration
	for i := range 5 {
		db, d := open(plainDir, nil)
		db.Close()
		db2, d2 := open(encDir, enc)
		db2.Close()
		if i == 0 || d < rp {
			rp = d
		}
		if i == 0 || d2 < re {
			re = d2
		}
	}
	t.Logf("restart (best of 5): plain %v, encrypted %v: %.2fx", rp.Round(time.Millisecond), re.Round(time.Millisecond), re.Seconds()/rp.Seconds())

	pdb, _ := open(plainDir, nil)
	defer pdb.Close()
	edb, _ := open(encDir, enc)
	defer edb.Close()
	scan := "MATCH (p:Person)-[:KNOWS]->(q:Person) WHERE p.age > 40 AND q.city <> 'city-7' RETURN count(*), avg(q.age)"
	timed := func(db *engine.DB) time.Duration {
		start := time.Now()
		mustQuery(t, db, scan, nil)
		return time.Since(start)
	}
	timed(pdb)
	timed(edb) // warm both
	var sps, ses []time.Duration
	for range 9 { // alternating, medians: the machine is shared
		sps = append(sps, timed(pdb))
		ses = append(ses, timed(edb))
	}
	sp, se := median(sps), median(ses)
	t.Logf("scan-heavy query (median of 9, alternating): plain %v, encrypted %v: %+.1f%%", sp.Round(time.Microsecond), se.Round(time.Microsecond), 100*(se.Seconds()/sp.Seconds()-1))

	commits := func(db *engine.DB) float64 {
		n, start := 0, time.Now()
		for time.Since(start) < 2*time.Second {
			if _, err := runRows(context.Background(), db, "CREATE (:W {i: $i})", engine.Params{"i": int64(n)}); err != nil {
				t.Fatal(err)
			}
			n++
		}
		return float64(n) / time.Since(start).Seconds()
	}
	// Time per commit, alternating to share the machine's noise.
	var cps, ces []time.Duration
	for range 5 {
		cps = append(cps, time.Duration(1e9/commits(pdb)))
		ces = append(ces, time.Duration(1e9/commits(edb)))
	}
	cp, ce := 1e9/float64(median(cps)), 1e9/float64(median(ces))
	t.Logf("autocommit commits/s (median of 5 × 2 s each, alternating): plain %.0f, encrypted %.0f: %+.1f%%", cp, ce, 100*(ce/cp-1))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func writeCSV(t *testing.T, path, header string, n int, row func(*bufio.Writer, int, *rand.Rand)) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header + "\n")
	r := rand.New(rand.NewPCG(uint64(n), 3))
	for i := range n {
		row(w, i, r)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
