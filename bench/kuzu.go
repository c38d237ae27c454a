package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Kuzu drives bench/kuzu/run.js, a Node.js process holding one Kùzu
// database, over its line protocol (one JSON request per line in, one JSON
// answer per line out; see run.js).
type Kuzu struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// KuzuAnswer is one line of run.js's output.
type KuzuAnswer struct {
	OK      bool    `json:"ok"`
	Error   string  `json:"error"`
	MS      float64 `json:"ms"`
	NodesMS float64 `json:"nodes_ms"`
	EdgesMS float64 `json:"edges_ms"`
	Version string  `json:"version"`
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
	cmd := exec.Command("node", "run.js")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting Kùzu runner (node %s/run.js): %w", dir, err)
	}
	return &Kuzu{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Pid is the Node process's id (for its peak RSS).
func (k *Kuzu) Pid() int { return k.cmd.Process.Pid }

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

// Close ends the runner.
func (k *Kuzu) Close() error {
	json.NewEncoder(k.in).Encode(map[string]any{"op": "quit"})
	k.in.Close()
	return k.cmd.Wait()
}

func (k *Kuzu) call(req map[string]any) (KuzuAnswer, error) {
	if err := json.NewEncoder(k.in).Encode(req); err != nil {
		return KuzuAnswer{}, fmt.Errorf("kuzu runner: %w", err)
	}
	line, err := k.out.ReadBytes('\n')
	if err != nil {
		return KuzuAnswer{}, fmt.Errorf("kuzu runner ended: %w", err)
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
