package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Loader fills the Quiver side from a data set directory of CSVs
// (persons.csv, knows.csv): an OnlineLoader loads into an open database,
// a Builder (bulk import, the default) builds the directory before it is
// opened.
type Loader interface{ Name() string }

// OnlineLoader loads into an open database.
type OnlineLoader interface {
	Loader
	Load(ctx context.Context, db *engine.DB, dir string) (LoadTimes, error)
}

// LoadTimes are the wall-clock milliseconds of the two load phases, and
// for a Builder the opening of the directory it built (OpenMS; 0 for an
// online loader, which loads into an open database).
type LoadTimes struct {
	NodesMS, EdgesMS float64
	OpenMS           float64
}

// CypherLoader loads through ordinary Cypher statements: persons by
// UNWIND … CREATE in batches, an index on Person.id, then relationships by
// UNWIND … MATCH … CREATE in batches.
type CypherLoader struct {
	Batch int       // rows per statement; 0 means 50,000
	Log   io.Writer // progress every million rows; nil is silent
}

// Name implements Loader.
func (l CypherLoader) Name() string { return "Cypher UNWIND batches" }

// Load implements Loader.
func (l CypherLoader) Load(ctx context.Context, db *engine.DB, dir string) (LoadTimes, error) {
	batch := l.Batch
	if batch <= 0 {
		batch = 50_000
	}
	var t LoadTimes
	done := 0
	progress := func(what string, n int) {
		if l.Log != nil && (done+n)/1_000_000 > done/1_000_000 {
			fmt.Fprintf(l.Log, "quiver: %d %s loaded\n", done+n, what)
		}
		done += n
	}
	sw := startWatch()
	err := readCSV(filepath.Join(dir, PersonsCSV), PersonsHeader, batch, func(rows [][]string) error {
		list := make([]vector.Value, len(rows))
		for i, r := range rows {
			id, err1 := strconv.ParseInt(r[0], 10, 64)
			age, err2 := strconv.ParseInt(r[2], 10, 64)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("persons.csv: bad row %v", r)
			}
			list[i] = map[string]vector.Value{"id": id, "name": r[1], "age": age, "city": r[3]}
		}
		progress("persons", len(rows))
		return execStmt(ctx, db, "UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name, age: r.age, city: r.city})",
			engine.Params{"rows": list})
	})
	if err != nil {
		return t, err
	}
	if err := execStmt(ctx, db, "CREATE INDEX FOR (p:Person) ON (p.id)", nil); err != nil {
		return t, err
	}
	t.NodesMS = sw.ms()
	sw, done = startWatch(), 0
	err = readCSV(filepath.Join(dir, KnowsCSV), KnowsHeader, batch, func(rows [][]string) error {
		list := make([]vector.Value, len(rows))
		for i, r := range rows {
			from, err1 := strconv.ParseInt(r[0], 10, 64)
			to, err2 := strconv.ParseInt(r[1], 10, 64)
			since, err3 := strconv.ParseInt(r[2], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				return fmt.Errorf("knows.csv: bad row %v", r)
			}
			list[i] = map[string]vector.Value{"from": from, "to": to, "since": since}
		}
		progress("relationships", len(rows))
		return execStmt(ctx, db, "UNWIND $rels AS r MATCH (a:Person {id: r.from}), (b:Person {id: r.to}) CREATE (a)-[:KNOWS {since: r.since}]->(b)",
			engine.Params{"rels": list})
	})
	t.EdgesMS = sw.ms()
	return t, err
}

// execStmt runs a statement to completion.
func execStmt(ctx context.Context, db *engine.DB, text string, params engine.Params) error {
	res, err := db.Query(ctx, text, params)
	if err != nil {
		return err
	}
	for {
		b, err := res.Next()
		if err != nil {
			res.Close()
			return err
		}
		if b == nil {
			return res.Close()
		}
	}
}

// readCSV streams a CSV of simple fields (no quoting: the generator writes
// none) in chunks of n rows, after checking the header.
func readCSV(path, header string, n int, chunk func([][]string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	if !s.Scan() || s.Text() != header {
		return fmt.Errorf("%s: header is not %q", path, header)
	}
	width := strings.Count(header, ",") + 1
	rows := make([][]string, 0, n)
	for s.Scan() {
		r := strings.Split(s.Text(), ",")
		if len(r) != width {
			return fmt.Errorf("%s: row %q has %d fields, want %d", path, s.Text(), len(r), width)
		}
		rows = append(rows, r)
		if len(rows) == n {
			if err := chunk(rows); err != nil {
				return err
			}
			rows = rows[:0]
		}
	}
	if err := s.Err(); err != nil {
		return err
	}
	if len(rows) > 0 {
		return chunk(rows)
	}
	return nil
}

// QueryEmbedded runs text on db and returns its normalised rows.
func QueryEmbedded(ctx context.Context, db *engine.DB, text string) (Rows, error) {
	return QueryEmbeddedParams(ctx, db, text, nil)
}

// QueryEmbeddedParams is QueryEmbedded with query parameters.
func QueryEmbeddedParams(ctx context.Context, db *engine.DB, text string, params engine.Params) (Rows, error) {
	res, err := db.Query(ctx, text, params)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var out Rows
	for {
		b, err := res.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		for i := 0; i < b.Rows(); i++ {
			row := b.Row(i)
			cells := make([]any, len(b.Cols))
			for c, v := range b.Cols {
				cells[c] = Normalize(v.Get(row))
			}
			out = append(out, cells)
		}
	}
}
