package bench

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// Dataset describes a generated data set the harness runs: its CSV files,
// their columns, and from these how each engine loads them (Quiver's
// import inputs, Kùzu's CREATE TABLE and COPY statements), plus the suite
// a run uses unless told otherwise. The column lists are the one source
// of both the CSV headers and Kùzu's DDL, so the same files serve both
// engines: Kùzu's COPY FROM (header=true) skips the typed header and maps
// columns by position.
type Dataset struct {
	Name  string // "knows" or "snb", as -dataset names it
	Title string // for the report
	Nodes []Table
	Rels  []Table
	Suite []Query
}

// Table is one CSV file of a data set: the nodes of one label (key column
// id first) or relationships of one type between two labels (from, to
// first). Several relationship files may share a type (HAS_CREATOR from
// Post and from Comment): Kùzu makes them one REL TABLE with several
// FROM … TO pairs and needs the pair named in each COPY.
type Table struct {
	Name     string // node label or relationship type
	File     string // file name inside the data set directory
	From, To string // a relationship file's endpoint labels
	Cols     []Column
}

// Column is a property column after the key or endpoint columns.
type Column struct{ Name, Type string }

// Header is the file's typed CSV header row.
func (t Table) Header() string {
	var b strings.Builder
	if t.From == "" {
		b.WriteString("id:INT64")
	} else {
		b.WriteString("from:INT64,to:INT64")
	}
	for _, c := range t.Cols {
		b.WriteString("," + c.Name + ":" + c.Type)
	}
	return b.String()
}

// KnowsDataset is the Person/KNOWS power-law graph of Generate and
// Suite/WideSuite (persons.csv, knows.csv).
var KnowsDataset = &Dataset{
	Name:  "knows",
	Title: "Person/KNOWS power-law graph",
	Nodes: []Table{{Name: "Person", File: PersonsCSV, Cols: []Column{{"name", "STRING"}, {"age", "INT64"}, {"city", "STRING"}}}},
	Rels:  []Table{{Name: "KNOWS", File: KnowsCSV, From: "Person", To: "Person", Cols: []Column{{"since", "INT64"}}}},
	Suite: Suite,
}

// Datasets are the data sets by -dataset name.
var Datasets = map[string]*Dataset{"knows": KnowsDataset, "snb": SNBDataset}

// ImportInputs are the files as engine.Import takes them, in dir.
func (d *Dataset) ImportInputs(dir string) (nodes, rels []engine.ImportInput) {
	for _, t := range d.Nodes {
		nodes = append(nodes, engine.ImportInput{Name: t.Name, Path: filepath.Join(dir, t.File)})
	}
	for _, t := range d.Rels {
		rels = append(rels, engine.ImportInput{Name: t.Name, Path: filepath.Join(dir, t.File)})
	}
	return nodes, rels
}

// KuzuDDL is the CREATE NODE TABLE and CREATE REL TABLE statements, one
// REL TABLE per relationship type with a FROM … TO pair per file.
func (d *Dataset) KuzuDDL() ([]string, error) {
	var out []string
	for _, t := range d.Nodes {
		cols := "id INT64"
		for _, c := range t.Cols {
			cols += ", " + c.Name + " " + c.Type
		}
		out = append(out, fmt.Sprintf("CREATE NODE TABLE %s(%s, PRIMARY KEY (id))", t.Name, cols))
	}
	for i, t := range d.Rels {
		if d.relIndex(t.Name) != i {
			continue // a further pair of a type already created
		}
		var parts []string
		for _, u := range d.Rels {
			if u.Name != t.Name {
				continue
			}
			if fmt.Sprint(u.Cols) != fmt.Sprint(t.Cols) {
				return nil, fmt.Errorf("data set %s: the files of %s have different columns", d.Name, t.Name)
			}
			parts = append(parts, "FROM "+u.From+" TO "+u.To)
		}
		for _, c := range t.Cols {
			parts = append(parts, c.Name+" "+c.Type)
		}
		out = append(out, fmt.Sprintf("CREATE REL TABLE %s(%s)", t.Name, strings.Join(parts, ", ")))
	}
	return out, nil
}

// RelTypes is the number of relationship types.
func (d *Dataset) RelTypes() int {
	n := 0
	for i, t := range d.Rels {
		if d.relIndex(t.Name) == i {
			n++
		}
	}
	return n
}

// relIndex is the index of the first file of relationship type name.
func (d *Dataset) relIndex(name string) int {
	for i, t := range d.Rels {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// KuzuCopies are the COPY … FROM statements of the node files and of the
// relationship files in dir; a file of a type with several pairs names
// its pair.
func (d *Dataset) KuzuCopies(dir string) (nodes, rels []string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	quote := func(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }
	for _, t := range d.Nodes {
		nodes = append(nodes, fmt.Sprintf("COPY %s FROM %s (header=true)", t.Name, quote(filepath.Join(abs, t.File))))
	}
	for _, t := range d.Rels {
		opts := "header=true"
		pairs := 0
		for _, u := range d.Rels {
			if u.Name == t.Name {
				pairs++
			}
		}
		if pairs > 1 {
			opts = fmt.Sprintf("from='%s', to='%s', header=true", t.From, t.To)
		}
		rels = append(rels, fmt.Sprintf("COPY %s FROM %s (%s)", t.Name, quote(filepath.Join(abs, t.File)), opts))
	}
	return nodes, rels, nil
}
