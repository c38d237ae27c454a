package load

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzGraphalytics feeds arbitrary vertex and edge files to the
// Graphalytics reader: an error or a consistent result, never a panic.
func FuzzGraphalytics(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"), []byte("1 2 0.5\n2 3 1\n"), false)
	f.Add([]byte("10\n20\n"), []byte("10\t20\n"), true)
	f.Add([]byte("18446744073709551615\n"), []byte(""), true)
	f.Add([]byte("1\n\n"), []byte("1 1 x\n"), false)
	f.Fuzz(func(t *testing.T, v, e []byte, directed bool) {
		dir := t.TempDir()
		props := "graph.g.directed = false\n"
		if directed {
			props = "graph.g.directed = true\n"
		}
		for name, body := range map[string][]byte{"g.properties": []byte(props), "g.v": v, "g.e": e} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := ReadGraphalytics(filepath.Join(dir, "g"))
		if err != nil {
			t.Fatal(err)
		}
		bn, br, _, err := graphalyticsSets(g, nil)
		if err != nil {
			return
		}
		if len(br.Src) != len(br.Dst) || len(bn.Cols[0].I64) != bn.Count {
			t.Fatalf("%d sources, %d targets; %d ids for %d nodes", len(br.Src), len(br.Dst), len(bn.Cols[0].I64), bn.Count)
		}
		for i := range br.Src {
			if int(br.Src[i]) >= bn.Count || int(br.Dst[i]) >= bn.Count {
				t.Fatalf("edge %d: %d→%d of %d nodes", i, br.Src[i], br.Dst[i], bn.Count)
			}
		}
		for _, c := range br.Cols {
			if len(c.F64)+len(c.I64) != len(br.Src) {
				t.Fatalf("column %s: %d values for %d edges", c.Key, len(c.F64)+len(c.I64), len(br.Src))
			}
		}
	})
}
