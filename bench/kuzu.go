package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Kuzu drives bench/kuzu/run.js, a Node.js process holding one Kùzu
// database, over its line protocol (one JSON request per line in, one JSON
// answer per line out; see run.js).
type Kuzu struct{ nodeRunner }

// KuzuAnswer is one line of run.js's output.
type KuzuAnswer struct {
	peerAnswer
	// The writes answer: timed statements, their latencies in
	// microseconds, and count(*) of W afterwards.
	Commits int64   `json:"commits"`
	LatUS   []int64 `json:"lat_us"`
	Count   int64   `json:"count"`
	Columns []string
	Rows    Rows
}

// StartKuzu starts node on run.js in dir (bench/kuzu, npm-installed).
func StartKuzu(dir string) (*Kuzu, error) {
	r, err := startNodeRunner("Kùzu", dir)
	if err != nil {
		return nil, err
	}
	return &Kuzu{r}, nil
}

// Load creates data set ds's tables in a new database at dbPath and
// COPYs its files in dir into them: the node files' COPYs are timed as
// the node phase, the relationship files' as the edge phase.
func (k *Kuzu) Load(dbPath string, ds *Dataset, dir string) (KuzuAnswer, error) {
	ddl, err := ds.KuzuDDL()
	if err != nil {
		return KuzuAnswer{}, err
	}
	nodes, rels, err := ds.KuzuCopies(dir)
	if err != nil {
		return KuzuAnswer{}, err
	}
	return k.call(map[string]any{"op": "load", "db": dbPath, "ddl": ddl, "nodes": nodes, "rels": rels})
}

// Open opens the database at dbPath that an earlier runner loaded (the
// harness restarts the runner when its process dies on a query).
func (k *Kuzu) Open(dbPath string) error {
	_, err := k.call(map[string]any{"op": "open", "db": dbPath})
	return err
}

// Query runs one query; the answer carries Kùzu's time and rows.
func (k *Kuzu) Query(text string) (KuzuAnswer, error) {
	return k.call(map[string]any{"op": "query", "text": text})
}

// Writes creates a new database at dbPath with node table W and runs
// warmup untimed, then n timed auto-commit CREATE (:W {id: $id, c: $c})
// statements on one connection, prepared once; mode is "async" (await
// conn.execute) or "sync" (conn.executeSync). See run.js.
func (k *Kuzu) Writes(dbPath string, n, warmup int, mode string) (KuzuAnswer, error) {
	return k.call(map[string]any{"op": "writes", "db": dbPath, "n": n, "warmup": warmup, "mode": mode})
}

func (k *Kuzu) call(req map[string]any) (KuzuAnswer, error) {
	line, err := k.roundTrip(req)
	if err != nil {
		return KuzuAnswer{}, err
	}
	return ParseKuzuAnswer(line)
}

// ParseKuzuAnswer decodes one output line of run.js; a {"ok":false} answer
// becomes an error.
func ParseKuzuAnswer(line []byte) (KuzuAnswer, error) {
	var raw struct {
		KuzuAnswer
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return KuzuAnswer{}, fmt.Errorf("kuzu runner: bad answer %q: %w", line, err)
	}
	a := raw.KuzuAnswer
	if !a.OK {
		return a, fmt.Errorf("kuzu: %s", a.Error)
	}
	a.Columns = raw.Columns
	for _, r := range raw.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = Normalize(c)
		}
		a.Rows = append(a.Rows, row)
	}
	return a, nil
}
