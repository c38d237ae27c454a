package engine_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Metamorphic tests: optimizer rules and parallelism change how a query is
// computed, never its result. Every read query of the corpus and a set of
// generated queries over a random graph run with all rules on at
// parallelism 1 (the baseline), with each rule off, and on 4 workers (with
// all rules on, and all off); the results must be equal bags of rows (in
// order where the order is specified).

var metaSeed = flag.Uint64("metamorphic.seed", 0, "seed of the metamorphic random graph and queries (0: from the clock)")

type metaConfig struct {
	name string
	opts engine.Options
	// compact folds the loaded graph into the CSR base before the queries,
	// so kernels that read a bare base take their clean path.
	compact bool
	// rule is the index of the rule this configuration switches off, -1
	// for the others.
	rule int
}

// metaStride: make test runs a read query under one configuration in
// metaStride (one rule-off configuration in metaRuleStride in the batch2
// build, whose corpus already runs at batch size 2 with all rules on in
// TestQueryCorpus; one configuration in metaRuleStride under the race
// detector, ten times slower), rotating with the query's number and an offset drawn
// per run, so that every configuration meets every kind of query across
// the corpus and the runs, at a fraction of the cost. make test-long
// sets QUIVER_METAMORPHIC_FULL=1: every query under every configuration.
const (
	metaStride     = 4
	metaRuleStride = 8
)

// The model tests (metamorphic, row-level security, field-level
// encryption) call t.Parallel: Go runs them after the package's
// sequential tests, side by side, so that the engine's test binary uses
// both cores of CI's machine for its longest minute instead of one. They
// share no hook or variable, and no test that measures memory or time
// runs beside them.
var (
	metaFull   = os.Getenv("QUIVER_METAMORPHIC_FULL") != ""
	metaOffset = int(time.Now().UnixNano() % (metaStride * metaRuleStride))
)

// metaPicked reports whether read query number q runs under
// configuration number i, c.
func metaPicked(q, i int, c metaConfig) bool {
	if metaFull {
		return true
	}
	stride := metaStride
	if c.rule >= 0 && vector.Capacity < 64 || raceBuild {
		stride = metaRuleStride
	}
	return (q+i+metaOffset)%stride == 0
}

// metaSampled reports whether a model test runs its query number q: one
// in metaStride, rotating as metaPicked does; all with
// QUIVER_METAMORPHIC_FULL.
func metaSampled(q int) bool {
	return metaFull || (q+metaOffset)%metaStride == 0
}

// metaAnyPicked reports whether read query number q runs under some
// configuration but the baseline: when none, the baseline need not run
// it either (under the race detector, half the queries).
func metaAnyPicked(q int, cs []metaConfig) bool {
	for i := range cs[1:] {
		if metaPicked(q, i+1, cs[i+1]) {
			return true
		}
	}
	return false
}

func metaConfigs() []metaConfig {
	cs := []metaConfig{{name: "baseline", opts: engine.Options{Parallelism: 1}, rule: -1}}
	for i, r := range engine.OptimizerRules() {
		if raceBuild {
			break
		}
		cs = append(cs, metaConfig{name: "no-" + r, opts: engine.Options{Parallelism: 1, DisabledRules: []string{r}}, rule: i})
	}
	if !raceBuild {
		// The baseline caches plans; this one plans every statement (one
		// goroutine: nothing for the race detector to see).
		cs = append(cs, metaConfig{name: "no-plan-cache", opts: engine.Options{Parallelism: 1, PlanCacheEntries: -1}, rule: -1})
	}
	cs = append(cs, metaConfig{name: "parallel-4", opts: engine.Options{Parallelism: 4}, rule: -1})
	if !raceBuild {
		// Compacted storage read by one goroutine: nothing for the race
		// detector either.
		cs = append(cs, metaConfig{name: "compacted", opts: engine.Options{Parallelism: 1}, compact: true, rule: -1})
	}
	return append(cs, metaConfig{name: "parallel-4-no-rules", opts: engine.Options{Parallelism: 4, DisabledRules: engine.OptimizerRules()}, rule: -1})
}

// openMetaDBs opens a database per configuration, in memory: the
// configurations differ in planning and execution, not in durability
// (which the durability and crash tests hold), and a data directory's
// synced commits made the corpus three times slower.
func openMetaDBs(t *testing.T, cs []metaConfig) []*engine.DB {
	dbs := make([]*engine.DB, len(cs))
	for i, c := range cs {
		db, err := engine.Open("", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	return dbs
}

var writeClause = regexp.MustCompile(`(?i)\b(CREATE|MERGE|DELETE|DETACH|SET|REMOVE|INSERT)\b`)

func TestMetamorphicCorpus(t *testing.T) {
	t.Parallel() // beside the other model tests (metamorphic_test.go)
	files, err := filepath.Glob("../testdata/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no query corpus found: %v", err)
	}
	// The corpus writes as it goes; compacting once up front means nothing.
	logMetaSampling(t)
	cs := slices.DeleteFunc(metaConfigs(), func(c metaConfig) bool { return c.compact })
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) {
			blocks := parseBlocks(t, f)
			dbs := openMetaDBs(t, cs)
			compared, reads := 0, 0
			for _, b := range blocks {
				if b.directive == "reset" {
					// Closed now, not when the file's test ends: a file
					// with many resets would otherwise hold a graph per
					// configuration and reset.
					for _, db := range dbs {
						db.Close()
					}
					dbs = openMetaDBs(t, cs)
					continue
				}
				where := fmt.Sprintf("%s:%d", filepath.Base(f), b.line)
				text := strings.Join(b.query, "\n")
				if !strings.HasPrefix(b.directive, "query") {
					for _, db := range dbs {
						runBlock(t, db, nil, b, where)
					}
					continue
				}
				write := writeClause.MatchString(text)
				if !write && !metaAnyPicked(reads+1, cs) {
					reads++
					continue
				}
				base := runBlock(t, dbs[0], nil, b, where)
				if write {
					// Run once on every database to keep them equal.
					for i, db := range dbs[1:] {
						got := runBlock(t, db, nil, b, where)
						compareMeta(t, where, cs[i+1].name, text, b.directive, base, got)
					}
					continue
				}
				var diffs []string
				reads++
				for i, db := range dbs[1:] {
					if !metaPicked(reads, i+1, cs[i+1]) {
						continue
					}
					got := runBlock(t, db, nil, b, where)
					if d := metaDiff(text, b.directive, base, got); d != "" {
						diffs = append(diffs, fmt.Sprintf("%s [%s]: %s\n%s", where, cs[i+1].name, text, d))
					}
				}
				// A difference counts only for a deterministic query: one
				// that answers otherwise when run again (rand(), the clock)
				// has nothing to compare. The check runs only when needed.
				if len(diffs) > 0 {
					if again := runBlock(t, dbs[0], nil, b, where); !equalMeta(base, again, true) {
						continue
					}
					for _, d := range diffs {
						t.Error(d)
					}
				}
				compared++
			}
			t.Logf("%d read queries compared under %d configurations", compared, len(cs)-1)
		})
	}
}

// compareMeta reports a configuration whose output differs from the
// baseline's: as bags, in order when the query says so, or only in size
// when LIMIT or SKIP without ORDER BY picks rows arbitrarily.
func compareMeta(t *testing.T, where, config, text, directive string, base, got []string) {
	t.Helper()
	if d := metaDiff(text, directive, base, got); d != "" {
		t.Errorf("%s [%s]: %s\n%s", where, config, text, d)
	}
}

// metaDiff says how got differs from base, or "" when it does not.
func metaDiff(text, directive string, base, got []string) string {
	upper := strings.ToUpper(text)
	arbitrary := (strings.Contains(upper, "LIMIT") || strings.Contains(upper, "SKIP")) && !strings.Contains(upper, "ORDER BY")
	if arbitrary {
		if len(base) != len(got) || len(base) > 0 && base[0] != got[0] {
			return fmt.Sprintf("row counts differ: got %d, baseline %d", len(got), len(base))
		}
		return ""
	}
	if !equalMeta(got, base, strings.HasSuffix(directive, "ordered")) {
		return fmt.Sprintf("got:\n%s\nbaseline:\n%s", strings.Join(got, "\n"), strings.Join(base, "\n"))
	}
	return ""
}

var floatLit = regexp.MustCompile(`-?\d+\.\d+(e[-+]?\d+)?`)

// equalMeta compares two outputs as equalOutput does, but floats within
// a relative 1e-9: sums, averages and deviations added in another order
// (by workers that took other morsels, at another batch size) differ in
// the last bits. Rounding both to a number of digits is not enough: a
// value on a rounding boundary rounds apart. Unordered rows are sorted
// on their floats rounded to 6 digits, then paired.
func equalMeta(got, want []string, ordered bool) bool {
	if len(got) != len(want) {
		return false
	}
	if len(got) == 0 {
		return true
	}
	if got[0] != want[0] {
		return false
	}
	g, w := append([]string(nil), got[1:]...), append([]string(nil), want[1:]...)
	if !ordered {
		byRounded := func(rows []string) {
			sort.SliceStable(rows, func(i, j int) bool { return roundFloats(rows[i], 6) < roundFloats(rows[j], 6) })
		}
		sort.Strings(g)
		sort.Strings(w)
		byRounded(g)
		byRounded(w)
	}
	for i := range g {
		if !sameMetaRow(g[i], w[i]) {
			return false
		}
	}
	return true
}

// roundFloats rounds the float literals of a row to digits significant
// digits.
func roundFloats(row string, digits int) string {
	return floatLit.ReplaceAllStringFunc(row, func(s string) string {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		return strconv.FormatFloat(f, 'g', digits, 64)
	})
}

// sameMetaRow reports whether two rows are equal but for floats within a
// relative 1e-9.
func sameMetaRow(a, b string) bool {
	if a == b {
		return true
	}
	fa, fb := floatLit.FindAllString(a, -1), floatLit.FindAllString(b, -1)
	if len(fa) != len(fb) || floatLit.ReplaceAllString(a, "#") != floatLit.ReplaceAllString(b, "#") {
		return false
	}
	for i := range fa {
		x, err1 := strconv.ParseFloat(fa[i], 64)
		y, err2 := strconv.ParseFloat(fb[i], 64)
		if err1 != nil || err2 != nil {
			if fa[i] != fb[i] {
				return false
			}
			continue
		}
		if math.Abs(x-y) > 1e-9*max(math.Abs(x), math.Abs(y), 1e-300) {
			return false
		}
	}
	return true
}

// metaGraph is a random graph big enough for several morsels at any batch
// size: labels A, B, C (a node may have none or several), relationship
// types R and S with a few hubs, properties with nulls.
func metaGraph(rng *rand.Rand) ([]engine.TestNode, []engine.TestRel) {
	n := max(600, 24*vector.Capacity)
	names := []string{"ann", "bob", "cy", "dee", "eve"}
	nodes := make([]engine.TestNode, n)
	for i := range nodes {
		var ls []string
		for _, l := range []string{"A", "B", "C"} {
			if rng.IntN(3) == 0 {
				ls = append(ls, l)
			}
		}
		props := map[string]vector.Value{"uid": int64(i), "g": int64(rng.IntN(10))}
		if rng.IntN(10) > 0 {
			props["x"] = int64(rng.IntN(100))
		}
		if rng.IntN(10) > 0 {
			props["y"] = float64(rng.IntN(1000)) / 8
		}
		if rng.IntN(5) > 0 {
			props["name"] = names[rng.IntN(len(names))]
		}
		nodes[i] = engine.TestNode{Labels: ls, Props: props}
	}
	rels := make([]engine.TestRel, 2*n)
	for i := range rels {
		from, to := rng.IntN(n), rng.IntN(n)
		if rng.IntN(8) == 0 {
			from = rng.IntN(10) // hubs: morsels must be cut by edges
		}
		switch rng.IntN(16) {
		case 0: // self-loops
			to = from
		case 1: // parallel relationships
			if i > 0 {
				from, to = rels[i-1].From, rels[i-1].To
			}
		}
		typ := "R"
		if rng.IntN(3) == 0 {
			typ = "S"
		}
		rels[i] = engine.TestRel{Type: typ, From: from, To: to, Props: map[string]vector.Value{"w": int64(rng.IntN(50))}}
	}
	return nodes, rels
}

// metaQueries generates read queries over metaGraph: scans, filters,
// expansions and variable-length expansions feeding aggregates of every
// kind, the result, ORDER BY and LIMIT.
func metaQueries(rng *rand.Rand) []string {
	label := func() string { return []string{"", ":A", ":B", ":C", ":A:B"}[rng.IntN(5)] }
	typ := func() string { return []string{"", ":R", ":S", ":R|S"}[rng.IntN(4)] }
	arrow := func(t string) string {
		switch rng.IntN(3) {
		case 0:
			return "-[r" + t + "]->"
		case 1:
			return "<-[r" + t + "]-"
		}
		return "-[r" + t + "]-"
	}
	hop := func() string { // an anonymous relationship
		return strings.ReplaceAll(arrow(typ()), "[r", "[")
	}
	k := func() int { return rng.IntN(100) }
	templates := []func() string{
		// Counts over one and two expansions (the count-expand rule).
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN count(*)", label(), arrow(typ()), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s)%s(o%s) RETURN count(*)", label(), hop(), label(), hop(), label())
		},
		func() string { // every node starts and the middle is free: the degree-sum kernels
			return fmt.Sprintf("MATCH (n)%s(m)%s(o) RETURN count(*)", hop(), hop())
		},
		func() string {
			return fmt.Sprintf("MATCH (n)%s(m)%s(o%s) RETURN count(*)", hop(), hop(), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN n.g, count(*) AS c", label(), hop(), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m)%s(o%s) RETURN n.uid, count(*) AS c", label(), hop(), hop(), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN n, count(*) AS c ORDER BY c DESC, n.uid LIMIT 7", label(), hop(), label())
		},
		func() string { return fmt.Sprintf("MATCH (n%s) WHERE n.x > %d RETURN count(*)", label(), k()) },
		func() string {
			return fmt.Sprintf("MATCH (n%s) WHERE n.x < %d RETURN n.g, count(*), sum(n.x), min(n.y), max(n.name), avg(n.y)", label(), k())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN m.g AS g, count(*) AS c, sum(r.w), count(DISTINCT n), count(DISTINCT m.name)", label(), arrow(typ()), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m) WHERE r.w > %d RETURN n.uid, m.uid, r.w", label(), arrow(typ()), rng.IntN(50))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m)-[s%s]->(o) WHERE o.x > %d RETURN count(*), sum(o.x), collect(DISTINCT o.g) IS NULL", label(), arrow(typ()), typ(), k())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) RETURN n.name, stDev(n.y), stDevP(n.x), variance(n.x), varianceP(n.y), percentileDisc(n.x, 0.5), percentileCont(n.y, 0.25), size(collect(n.uid))", label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m) RETURN n.g, percentileDisc(DISTINCT m.x, 0.9), stDev(DISTINCT m.y), sum(DISTINCT m.x), avg(DISTINCT r.w), min(DISTINCT m.uid), max(m.uid)", label(), arrow(typ()))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) WHERE n.x IN [%d, %d, %d, 7] OR n.name IN ['bob', 'eve'] RETURN n.uid, n.x, [n.x, 1, 2] AS l, {a: 1, b: [2, 3]} AS m", label(), k(), k(), k())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN n.uid, m.uid ORDER BY n.uid DESC, m.uid, r.w LIMIT %d", label(), arrow(typ()), label(), 1+rng.IntN(30))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) WHERE n.x > %d RETURN n.uid ORDER BY n.x, n.uid SKIP 3 LIMIT %d", label(), k(), 1+rng.IntN(50))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)%s(m {x: %d}) RETURN n.uid, m.uid", label(), arrow(typ()), k())
		},
		func() string {
			return fmt.Sprintf("MATCH (n {uid: %d})-[%s*1..3]->(m) RETURN DISTINCT m.uid", rng.IntN(600), typ())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s)-[%s*1..2]->(m%s) RETURN count(DISTINCT m), count(*)", label(), typ(), label())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s {x: %d})-[%s*0..2]-(m) RETURN n.uid, count(m)", label(), k(), typ())
		},
		func() string { // quantifiers over a chain's elements: the path-prune rule
			q := []string{"all", "none", "any", "single"}[rng.IntN(4)]
			list := []string{"rs", "relationships(p)", "nodes(p)", "nodes(p)[1..-1]"}[rng.IntN(4)]
			pred := []string{"x.w < %d", "x.w >= %d OR x:S", "NOT x.w = %d"}[rng.IntN(3)]
			if strings.HasPrefix(list, "nodes") {
				pred = []string{"x.x > %d", "x:A OR x.x < %d", "x.name IS NULL AND x.y > %d"}[rng.IntN(3)]
			}
			path := ""
			if list != "rs" {
				path = "p = "
			}
			bounds := []string{"*1..3", "*0..2", "*2..3"}[rng.IntN(3)]
			rel := strings.Replace(strings.ReplaceAll(arrow(typ()), "[r", "[rs"), "]", bounds+"]", 1)
			ret := []string{"count(*), count(DISTINCT m)", "DISTINCT m.uid", "n.uid, count(*)"}[rng.IntN(3)]
			return fmt.Sprintf("MATCH %s(n%s {uid: %d})%s(m) WHERE %s(x IN %s WHERE "+pred+") RETURN %s",
				path, label(), rng.IntN(600), rel, q, list, rng.IntN(50), ret)
		},
		func() string { // the same over shortest paths between two nodes
			sp := []string{"allShortestPaths", "shortestPath"}[rng.IntN(2)]
			list := []string{"relationships(p)", "nodes(p)", "nodes(p)[1..-1]"}[rng.IntN(3)]
			pred := "x.w > %d"
			if strings.HasPrefix(list, "nodes") {
				pred = "x.x > %d OR x:B"
			}
			return fmt.Sprintf("MATCH (a {uid: %d}), (b {uid: %d}) MATCH p = %s((a)-[%s*]-(b)) WHERE %s(x IN %s WHERE "+pred+") RETURN length(p), count(*)",
				rng.IntN(600), rng.IntN(600), sp, typ(), []string{"all", "none"}[rng.IntN(2)], list, rng.IntN(50))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) WITH n.g AS g, count(*) AS c WHERE c > %d RETURN g, c", label(), rng.IntN(60))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) WHERE n.x > %d RETURN DISTINCT n.name, n.g", label(), k())
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) OPTIONAL MATCH (n)%s(m%s) WHERE m.x > %d RETURN n.uid, count(m)", label(), arrow(typ()), label(), k())
		},
		func() string { // aggregates per start node over one hop: the factorized-agg rule
			return fmt.Sprintf("MATCH (n%s)%s(m%s) WITH n, count(*) AS c, sum(m.x) AS s, avg(m.x) AS a, max(r.w) AS hi, min(m.x) AS lo RETURN count(*), sum(c), sum(s), max(hi), min(lo), count(a), max(a)", label(), arrow(typ()), label())
		},
		func() string { // the same over a FLOAT property, per start node
			return fmt.Sprintf("MATCH (n%s)%s(m%s) WITH n, sum(m.y) AS s, avg(m.y) AS a, count(m.y) AS c RETURN n.uid, s, a, c ORDER BY n.uid LIMIT 40", label(), arrow(typ()), label())
		},
		func() string { // grouped by a relationship property, counting rows: the rel-scan-agg rule
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN r.w, count(*), count(m)", label(), arrow(typ()), label())
		},
		func() string { // the same grouped by the start node's property too
			return fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN n.%s, r.w, count(*)", label(), arrow(typ()), label(), []string{"g", "name", "x"}[rng.IntN(3)])
		},
		func() string { // DISTINCT and count(DISTINCT) of node properties: the code-distinct rule
			return []string{
				fmt.Sprintf("MATCH (n%s) WITH DISTINCT n.name AS a, n.x AS b RETURN count(*)", label()),
				fmt.Sprintf("MATCH (n%s)%s(m%s) RETURN DISTINCT m.name, n.g, m.x", label(), arrow(typ()), label()),
				fmt.Sprintf("MATCH (n%s) RETURN count(DISTINCT n.%s)", label(), []string{"name", "x", "g", "y"}[rng.IntN(4)]),
			}[rng.IntN(3)]
		},
		func() string { // far-node conjuncts that are not ranges: the far-set rule
			return fmt.Sprintf("MATCH (n%s)%s(m%s) WHERE m.name IN ['bob', 'eve'] AND NOT m.name ENDS WITH 'x' AND r.w <> %d RETURN count(*), count(DISTINCT m)", label(), arrow(typ()), label(), rng.IntN(50))
		},
		func() string {
			return fmt.Sprintf("MATCH (n%s) OPTIONAL MATCH (n)%s(m%s) WHERE m.name STARTS WITH '%s' RETURN n.g, count(m)", label(), arrow(typ()), label(), []string{"b", "e", "c"}[rng.IntN(3)])
		},
	}
	var qs []string
	for range 3 {
		for _, f := range templates {
			qs = append(qs, f())
		}
	}
	return qs
}

// metaRun runs a query and returns its header and rows, or its error, and
// the rows it scanned.
func metaRun(db *engine.DB, text string) ([]string, int64) {
	res, err := db.Query(context.Background(), text, nil)
	if err != nil {
		return []string{"error " + errCode(err)}, 0
	}
	rows, err := drain(res)
	if err != nil {
		return []string{"error " + errCode(err)}, 0
	}
	header := make([]string, len(res.Columns()))
	for i, c := range res.Columns() {
		header[i] = c.Name + ":" + c.Type
	}
	return append([]string{strings.Join(header, " | ")}, rows...), res.Summary().RowsScanned
}

func errCode(err error) string {
	if e, ok := engine.AsError(err); ok {
		return e.Code
	}
	return err.Error()
}

// metaRand is the random source of a test over the metamorphic graph:
// seeded by -metamorphic.seed (or the clock, logged), on its own stream.
func metaRand(t *testing.T, stream uint64) *rand.Rand {
	seed := *metaSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -metamorphic.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, stream))
}

func TestMetamorphicRandomGraph(t *testing.T) {
	t.Parallel() // beside the other model tests (metamorphic_test.go)
	rng := metaRand(t, 7)
	logMetaSampling(t)
	nodes, rels := metaGraph(rng)
	cs := metaConfigs()
	dbs := openMetaDBs(t, cs)
	for i, db := range dbs {
		if err := engine.LoadForTest(db, nodes, rels); err != nil {
			t.Fatal(err)
		}
		if cs[i].compact {
			db.Compact()
		}
	}
	queries := metaQueries(rng)
	bases := make([][]string, len(queries))
	for n, q := range queries {
		if !metaAnyPicked(n, cs) {
			continue
		}
		base, scanned := metaRun(dbs[0], q)
		if strings.HasPrefix(base[0], "error") {
			t.Errorf("%s: baseline failed: %s", q, base[0])
			continue
		}
		bases[n] = base
		ordered := strings.Contains(q, "ORDER BY")
		for i, db := range dbs[1:] {
			if !metaPicked(n, i+1, cs[i+1]) {
				continue
			}
			got, gotScanned := metaRun(db, q)
			if !equalMeta(got, base, ordered) {
				t.Errorf("[%s] %s\ngot %d rows:\n%s\nbaseline %d rows:\n%s", cs[i+1].name, q, len(got)-1,
					head(got), len(base)-1, head(base))
			}
			// Workers scan exactly what one scan reads, and count it.
			if cs[i+1].name == "parallel-4" && !strings.Contains(q, "LIMIT") && gotScanned != scanned {
				t.Errorf("[%s] %s: %d rows scanned, baseline %d", cs[i+1].name, q, gotScanned, scanned)
			}
		}
	}
	t.Logf("%d queries over %d nodes and %d relationships, %d configurations", len(queries), len(nodes), len(rels), len(cs))
	metaConcurrent(t, dbs[0], queries, bases)
}

// metaConcurrent runs every query again on db from four goroutines at
// once, each on the plan db cached for its text, and compares with
// want, the answers of db alone (nil: none): runs share cached plans
// (go test -race finds a write to one), and each must still answer
// alone. Under the race detector each goroutine runs half the queries,
// so that each is still run by two at once.
func metaConcurrent(t *testing.T, db *engine.DB, queries []string, want [][]string) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for g := range 4 {
		wg.Go(func() {
			for i := range queries {
				k := (i + g*len(queries)/4) % len(queries)
				if want[k] == nil || (raceBuild && k%2 != g%2) {
					continue
				}
				q := queries[k]
				got, _ := metaRun(db, q)
				if !equalMeta(got, want[k], strings.Contains(q, "ORDER BY")) && !strings.Contains(q, "LIMIT") {
					mu.Lock()
					t.Errorf("[concurrent, cached plans] %s\ngot %d rows:\n%s\nalone %d rows:\n%s", q, len(got)-1, head(got), len(want[k])-1, head(want[k]))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
}

// head is the first rows of an output, sorted, for failure messages.
func head(rows []string) string {
	r := append([]string(nil), rows...)
	sort.Strings(r[1:])
	if len(r) > 12 {
		r = append(r[:12], "…")
	}
	return strings.Join(r, "\n")
}

// equalMeta takes floats added in another order as equal, and nothing
// else: the pair below differed in CI, 9-digit rounding set them apart.
func TestEqualMeta(t *testing.T) {
	h := "n:STRING | v:FLOAT"
	for _, tc := range []struct {
		got, want []string
		ordered   bool
		equal     bool
	}{
		{[]string{h, "null | 1005.313025", "'a' | 1.0"}, []string{h, "'a' | 1.0", "null | 1005.3130249999998"}, false, true},
		{[]string{h, "'a' | 1005.31"}, []string{h, "'a' | 1005.32"}, false, false},
		{[]string{h, "'a' | 1.0"}, []string{h, "'b' | 1.0"}, false, false},
		{[]string{h, "'a' | 1.0", "'b' | 2.0"}, []string{h, "'b' | 2.0", "'a' | 1.0"}, true, false},
		{[]string{h, "'a' | 0.0"}, []string{h, "'a' | 1e-12"}, false, false},
	} {
		if got := equalMeta(tc.got, tc.want, tc.ordered); got != tc.equal {
			t.Errorf("equalMeta(%q, %q, ordered %v) = %v", tc.got, tc.want, tc.ordered, got)
		}
	}
}

// logMetaSampling says which share of the configurations a read query
// runs under in this run.
func logMetaSampling(t *testing.T) {
	if metaFull {
		t.Log("every read query under every configuration (QUIVER_METAMORPHIC_FULL)")
		return
	}
	t.Logf("each read query under one configuration in %d (one rule-off configuration in %d at batch size 2, one configuration in %[2]d under the race detector), offset %d; QUIVER_METAMORPHIC_FULL=1 runs them all", metaStride, metaRuleStride, metaOffset)
}
