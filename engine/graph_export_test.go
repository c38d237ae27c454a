package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// exportGraph builds a random graph with every property type the export
// carries, nulls (absent properties), nodes of several labels and of
// none, deleted nodes (holes in the ids), self-loops, parallel
// relationships and relationships between labels, and a schema of every
// kind. withCSV keeps to the types the importer's CSV reads.
func exportGraph(t *testing.T, db *engine.DB, seed int64, csv bool) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	labelSets := [][]string{{"Person"}, {"Person", "Employee"}, {"City"}, nil, {"weird label"}}
	strs := []string{"", "plain", `with "quotes"`, "comma, inside", "ünïcødé ✓", " spaced ", "NULL", "0"}
	var value func(kind int) vector.Value
	value = func(kind int) vector.Value {
		switch kind {
		case 0:
			return []int64{0, -1, math.MaxInt64, math.MinInt64, r.Int63()}[r.Intn(5)]
		case 1:
			return []float64{0, -0.5, 1e300, math.Inf(1), math.Inf(-1), 5e-324, r.NormFloat64()}[r.Intn(7)]
		case 2:
			return r.Intn(2) == 0
		case 3:
			return strs[r.Intn(len(strs))]
		case 4:
			return temporal.Date{Days: int64(r.Intn(200000) - 100000)}
		case 5:
			return temporal.LocalTime{Nanos: r.Int63n(temporal.NanosPerDay)}
		case 6:
			return temporal.LocalDateTime{Sec: r.Int63n(8e9) - 4e9, Nanos: int32(r.Intn(1e9))}
		case 7: // in UTC, at an offset, in a named zone: one column
			sec, nanos := r.Int63n(8e9)-4e9, int32(r.Intn(1e9))
			switch r.Intn(3) {
			case 0:
				return temporal.DateTime{Sec: sec, Nanos: nanos}
			case 1:
				return temporal.DateTime{Sec: sec, Nanos: nanos, Offset: int32(r.Intn(97)-48) * 900}
			}
			dt, err := temporal.AtInstant(sec, nanos, 0, []string{"Europe/Paris", "America/New_York", "Asia/Kolkata"}[r.Intn(3)])
			if err != nil {
				t.Fatal(err)
			}
			return dt
		case 8:
			return temporal.Time{Nanos: r.Int63n(temporal.NanosPerDay), Offset: int32(r.Intn(97)-48) * 900}
		case 9:
			return temporal.NewDuration(r.Int63n(2000)-1000, r.Int63n(2000)-1000, r.Int63n(1e9)-5e8, r.Int63n(2e9)-1e9)
		default: // a LIST of one element kind (by key), empty or with nulls at times
			l := []vector.Value{}
			for range r.Intn(4) {
				if r.Intn(5) == 0 {
					l = append(l, nil)
				} else {
					l = append(l, value(kind-10))
				}
			}
			return l
		}
	}
	kinds := 20 // 10..19: lists of the scalar kinds
	if csv {
		kinds = 10 // no LIST: the importer's CSV has none
	}
	var nodes []engine.TestNode
	for i := 0; i < 300; i++ {
		props := map[string]vector.Value{}
		bare := i%7 == 0 && i%len(labelSets) >= 2 // no uid; unlabelled ones no property at all
		if !bare {
			props["uid"] = int64(i)
		}
		for k := 0; k < kinds; k++ {
			if r.Intn(3) > 0 && !(bare && i%len(labelSets) == 3) { // a third of the values are null
				props[fmt.Sprintf("p%d", k)] = value(k)
			}
		}
		if i%4 == 0 {
			// Past 2262: written in microseconds (nanoseconds since 1970
			// do not reach it in 64 bits).
			props["far"] = temporal.LocalDateTime{Sec: 40e9 + r.Int63n(1e9), Nanos: int32(r.Intn(1e6) * 1000)}
		}
		// A key of several types in one label set: one file per type.
		if m := r.Intn(4); m < 3 || !csv {
			props["mix"] = []vector.Value{int64(i), fmt.Sprint("s", i), i%2 == 0, []vector.Value{int64(i)}}[m]
		}
		if i%11 == 0 {
			props["_id"] = "a property named as the key column"
		}
		nodes = append(nodes, engine.TestNode{Labels: labelSets[i%len(labelSets)], Props: props})
	}
	var rels []engine.TestRel
	for i := 0; i < 900; i++ {
		from, to := r.Intn(len(nodes)), r.Intn(len(nodes))
		if i%50 == 0 {
			to = from
		}
		props := map[string]vector.Value{}
		for k := 0; k < kinds; k++ {
			if r.Intn(2) == 0 {
				props[fmt.Sprintf("w%d", k)] = value(k)
			}
		}
		if i%13 == 0 {
			props["_from"] = int64(i)
		}
		if i%3 == 0 {
			props["wmix"] = []vector.Value{int64(i), float64(i) / 2}[r.Intn(2)]
		}
		rels = append(rels, engine.TestRel{Type: []string{"KNOWS", "LIVES_IN", "ODD-type"}[i%3], From: from, To: to, Props: props})
	}
	if err := engine.LoadForTest(db, nodes, rels); err != nil {
		t.Fatal(err)
	}
	// Holes in the ids: deleted nodes and relationships.
	mustQuery(t, db, "MATCH (n:City) WHERE n.uid % 3 = 0 DETACH DELETE n", nil)
	mustQuery(t, db, "MATCH ()-[k:KNOWS]->() WHERE k.w0 = 0 DELETE k", nil)
	for _, q := range []string{
		"CREATE INDEX person_uid FOR (n:Person) ON (n.uid)",
		"CREATE HASH INDEX `odd name` FOR (n:City) ON (n.p3, n.p0)",
		"CREATE CONSTRAINT uid_unique ON (n:Employee) ASSERT n.uid IS UNIQUE",
		"CREATE CONSTRAINT person_has_uid ON (n:Person) ASSERT EXISTS(n.uid)",
	} {
		mustQuery(t, db, q, nil)
	}
}

// graphState is a database's graph as sorted text: every node (labels and
// properties), every relationship (type, properties and both endpoints'
// text), and the schema.
func graphState(t *testing.T, db *engine.DB) []string {
	t.Helper()
	nodeText := map[uint64]string{}
	var out []string
	props := func(m map[string]vector.Value) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%T:%#v;", k, m[k], m[k])
		}
		return b.String()
	}
	db.Inspect(func(n engine.NodeState) {
		slices.Sort(n.Labels)
		s := fmt.Sprintf("(%s %s)", strings.Join(n.Labels, ":"), props(n.Props))
		nodeText[n.ID] = s
		out = append(out, "node "+s)
	}, nil)
	db.Inspect(nil, func(r engine.RelState) {
		out = append(out, fmt.Sprintf("rel %s-[%s %s]->%s", nodeText[r.Start], r.Type, props(r.Props), nodeText[r.End]))
	})
	sort.Strings(out)
	for _, q := range []string{"SHOW INDEXES", "SHOW CONSTRAINTS"} {
		rows := mustQuery(t, db, q, nil)
		sort.Strings(rows)
		for _, row := range rows {
			out = append(out, q+": "+row)
		}
	}
	return out
}

// roundTrip exports db as format, imports the folder into a new data
// directory, replays the schema, and returns the new database.
func roundTrip(t *testing.T, db *engine.DB, format string) *engine.DB {
	t.Helper()
	work := t.TempDir()
	out := filepath.Join(work, "out")
	sum, err := db.Export(engine.ExportOptions{Dir: out, Format: format, BatchRows: 37})
	if err != nil {
		t.Fatal(err)
	}
	var o engine.ImportOptions
	o.Dir = filepath.Join(work, "data")
	m, err := engine.ImportFromExport(&o, out)
	if err != nil {
		t.Fatal(err)
	}
	if m.NodeCount != sum.Nodes || m.RelationshipCount != sum.Relationships || m.Format != format {
		t.Fatalf("manifest %+v, summary %+v", m, sum)
	}
	isum, err := engine.Import(o)
	if err != nil {
		t.Fatal(err)
	}
	if isum.Nodes != sum.Nodes || isum.Relationships != sum.Relationships {
		t.Fatalf("imported %d nodes and %d relationships, exported %d and %d", isum.Nodes, isum.Relationships, sum.Nodes, sum.Relationships)
	}
	back, err := engine.Open(o.Dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { back.Close() })
	script, err := os.ReadFile(filepath.Join(out, m.Schema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.ApplySchemaScript(context.Background(), string(script)); err != nil {
		t.Fatal(err)
	}
	return back
}

// import(export(G)) equals G: every node with its labels and properties,
// every relationship with its type, properties and endpoints, and the
// schema, in both formats, over several generated graphs.
func TestExportRoundTrip(t *testing.T) {
	for _, format := range []string{engine.ExportParquet, engine.ExportCSV} {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/%d", format, seed), func(t *testing.T) {
				db := openTestDB(t)
				exportGraph(t, db, seed, format == engine.ExportCSV)
				want := graphState(t, db)
				got := graphState(t, roundTrip(t, db, format))
				if !slices.Equal(got, want) {
					diff(t, want, got)
				}
			})
		}
	}
}

// diff reports the first lines that differ between want and got.
func diff(t *testing.T, want, got []string) {
	t.Helper()
	t.Errorf("%d lines, want %d", len(got), len(want))
	shown := 0
	for i := 0; i < max(len(want), len(got)) && shown < 5; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("line %d:\n got  %s\n want %s", i, g, w)
			shown++
		}
	}
}

// CALL quiver.export writes under the export directory only, for an
// admin only, and its folder imports back to the same graph; every
// refusal is 42501 and leaves nothing behind.
func TestExportProcedure(t *testing.T) {
	base := t.TempDir()
	exports, outside := filepath.Join(base, "exports"), filepath.Join(base, "outside")
	for _, d := range []string{exports, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(exports, "link")); err != nil {
		t.Fatal(err)
	}
	trail := &auditLog{}
	db := openTestDBWith(t, engine.Options{ExportDir: exports, Auditor: trail})
	exportGraph(t, db, 7, false)
	want := graphState(t, db)

	refused := func(ctx context.Context, db *engine.DB, q, msg string) {
		t.Helper()
		res, err := db.NewSession().Run(ctx, engine.ModeAsWritten, q, nil)
		if err == nil {
			_, err = drain(res)
		}
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodePermission || !strings.Contains(e.Message, msg) {
			t.Errorf("%s: %v, want 42501 (%s)", q, err, msg)
		}
	}
	ctx := context.Background()
	refused(ctx, db, "CALL quiver.export('../outside/g')", "outside the export directory")
	refused(ctx, db, "CALL quiver.export('"+filepath.Join(outside, "g")+"')", "outside the export directory")
	refused(ctx, db, "CALL quiver.export('link/g')", "outside the export directory")
	for _, p := range []*engine.Principal{reader, editor, nobody} {
		refused(engine.WithPrincipal(ctx, p), db, "CALL quiver.export('g')", "")
	}
	noDir := openTestDB(t)
	refused(ctx, noDir, "CALL quiver.export('g')", "--export-dir")
	for _, d := range []string{exports, outside} {
		if names, _ := os.ReadDir(d); len(names) > 1 || (d == outside && len(names) > 0) {
			t.Fatalf("a refused export wrote into %s: %v", d, names)
		}
	}

	res, err := db.NewSession().Run(engine.WithPrincipal(ctx, admin), engine.ModeAsWritten,
		"CALL quiver.export('g', {format: 'parquet'}) YIELD dir, format, nodes, relationships, files RETURN *", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := drain(res)
	if err != nil || len(rows) != 1 || !strings.Contains(rows[0], filepath.Join(exports, "g")) {
		t.Fatalf("%v %v", rows, err)
	}
	// The trail has the refusals by the folder rules (denied) and the
	// export (success); the callers without the privilege were refused
	// before it ran (permission_denied).
	var got []string
	for _, e := range trail.take() {
		if e.Category == "admin" {
			got = append(got, e.Action+" "+e.Outcome+" "+e.Detail+" "+e.Principal)
		}
	}
	wantTrail := []string{"export denied ../outside/g ", "export denied " + filepath.Join(outside, "g") + " ", "export denied link/g ", "export success g ada"}
	if !slices.Equal(got, wantTrail) {
		t.Errorf("audit trail %q, want %q", got, wantTrail)
	}
	var o engine.ImportOptions
	o.Dir = filepath.Join(base, "data")
	m, err := engine.ImportFromExport(&o, filepath.Join(exports, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Import(o); err != nil {
		t.Fatal(err)
	}
	back, err := engine.Open(o.Dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	script, err := os.ReadFile(filepath.Join(exports, "g", m.Schema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.ApplySchemaScript(ctx, string(script)); err != nil {
		t.Fatal(err)
	}
	if got := graphState(t, back); !slices.Equal(got, want) {
		diff(t, want, got)
	}
	for q, msg := range map[string]string{
		"CALL quiver.export('h', {format: 'xml'})":  "format",
		"CALL quiver.export('h', {compress: true})": "unknown option",
		"CALL quiver.export('h', {format: 'csv'})":  "CSV cannot hold", // the graph has lists
		"CALL quiver.export('g')":                   "not empty",
	} {
		if _, err := queryAll(db, q, nil); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", q, err, msg)
		}
	}
}
