package opt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
)

func formatWith(t *testing.T, query string, off ...string) string {
	t.Helper()
	stmt, err := gql.Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	opts := plan.Options{Disabled: map[string]bool{}}
	for _, r := range off {
		opts.Disabled[r] = true
	}
	p, err := plan.Bind(stmt, plan.Env{Options: opts})
	if err == nil {
		err = opt.Optimize(p, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return plan.Format(p.Root)
}

// TestRulesSwitchOff checks that each binder rule, switched off, plans the
// query the plain way.
func TestRulesSwitchOff(t *testing.T) {
	for _, tc := range []struct {
		rule, query string
	}{
		{plan.RuleSelectiveStart, "MATCH (a)-[:R]->(b:L {x: 1}) RETURN a"},
		{plan.RuleExpandLabels, "MATCH (a:K)-[:R]->(b:L) RETURN a"},
	} {
		on, off := formatWith(t, tc.query), formatWith(t, tc.query, tc.rule)
		if on == off {
			t.Errorf("%s off changes nothing in %s:\n%s", tc.rule, tc.query, on)
		}
		t.Logf("%s\non:\n%s\noff:\n%s", tc.query, on, off)
	}
	// Constant folding shows in the expression kinds, not in their text.
	for _, off := range []bool{false, true} {
		stmt, _ := gql.Parse("RETURN [1, 2] AS l, {k: 'v'} AS m")
		opts := plan.Options{Disabled: map[string]bool{plan.RuleConstantFold: off}}
		p, err := plan.Bind(stmt, plan.Env{Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		pr := p.Root.(*plan.Project)
		_, lc := pr.Exprs[0].(*plan.Const)
		_, mc := pr.Exprs[1].(*plan.Const)
		if lc == off || mc == off {
			t.Errorf("constant-fold off=%v: list folded %v, map folded %v", off, lc, mc)
		}
	}
	for _, r := range plan.RuleNames() {
		if !plan.IsRule(r) || plan.IsRule("no-"+r) {
			t.Errorf("IsRule is wrong about %s", r)
		}
	}
}

// Plan.Fired names the rules and passes that changed a plan, in the order
// they first applied, and none that were switched off or had nothing to
// do; EXPLAIN reports them.
func TestFiredRules(t *testing.T) {
	ixs := []plan.IndexInfo{{Name: "by_id", Type: "BTREE", Label: "P", Props: []string{"id"}, Entries: 100, Distinct: 100}}
	for _, tc := range []struct {
		query string
		off   []string
		want  string
	}{
		{"MATCH (n) RETURN n", nil, "parallel"},
		{"MATCH (n) RETURN n", []string{plan.RuleExpandLabels}, "parallel"},
		{"MATCH (n) CREATE (m)", nil, ""}, // a plan that writes stays serial
		{"MATCH (a:K)-[:T]->(b:L) RETURN a, b", nil, "expand-labels,label-cover,parallel"},
		{"MATCH (a:K)-[:T]->(b:L) RETURN a, b", []string{plan.RuleLabelCover}, "expand-labels,parallel"},
		// The label test left in a Filter reads the far node alone.
		{"MATCH (a:K)-[:T]->(b:L) RETURN a, b", []string{plan.RuleExpandLabels}, "far-set,parallel"},
		{"MATCH (a)-[:T]->(b) WHERE b.name STARTS WITH 'x' RETURN a", nil, "far-set,parallel"},
		{"MATCH (a)-[:T]->(b) WHERE b.name STARTS WITH 'x' RETURN a", []string{plan.RuleFarSet}, "code-match,parallel"},
		{"MATCH (a)-[:T]->(b) WHERE b.name STARTS WITH 'x' RETURN a", []string{plan.RuleFarSet, plan.RuleCodeMatch}, "parallel"},
		{"MATCH (a)-[:T]->(b) WHERE b.name STARTS WITH a.name RETURN a", nil, "parallel"},
		{"MATCH (a:K)-[:T]->(b) RETURN a, sum(b.x) AS s", nil, "factorized-agg,parallel"},
		{"MATCH (a:K)-[:T]->(b) RETURN a, sum(b.x) AS s", []string{plan.RuleFactorizedAgg}, "parallel"},
		{"MATCH (a:K)-[:T]->(b) RETURN a, collect(b.x) AS s", nil, "parallel"},
		{"MATCH (a:K)-[k:T]->(b:K) RETURN k.x AS x, count(*) AS n", nil, "expand-labels,rel-scan-agg,label-cover,parallel"},
		{"MATCH (a:K)-[k:T]->(b:K) RETURN k.x AS x, count(*) AS n", []string{plan.RuleRelScanAgg}, "expand-labels,label-cover,parallel"},
		{"MATCH (a:K) WHERE a.x = 3 OPTIONAL MATCH (a)-[:T]->(b) RETURN a.id, count(b) AS d", nil, "count-expand,count-filter,identity-group"},
		{"MATCH (a:K) WHERE a.x = 3 OPTIONAL MATCH (a)-[:T]->(b) RETURN a.id, count(b) AS d", []string{plan.RuleCountFilter}, "range-filter,parallel"},
		{"MATCH (a:K) WITH DISTINCT a.x AS x, a.name AS n RETURN count(*) AS c", nil, "code-distinct,parallel"},
		{"MATCH (a:K) WITH DISTINCT a.x AS x, a.name AS n RETURN count(*) AS c", []string{plan.RuleCodeDistinct}, "parallel"},
		{"MATCH (a:K) RETURN count(DISTINCT a.name) AS c", nil, "code-distinct,parallel"},
		{"MATCH (a:K) RETURN count(DISTINCT a.name) AS c", []string{plan.RuleCodeDistinct}, "parallel"},
		{"MATCH (a:K) RETURN count(DISTINCT a.name) AS c, count(*) AS n", nil, "parallel"},
		{"MATCH (a:K) RETURN DISTINCT a.x + 1 AS x", nil, "parallel"},
		{"MATCH (a)-[:T]->(b) RETURN a, count(*) AS n", nil, "count-expand,identity-group"},
		{"MATCH (a)-[:T]->(b) RETURN a, count(*) AS n", []string{plan.RuleIdentityGroup}, "count-expand"},
		{"MATCH (a)-[:T]->(b:L) RETURN a, b", nil, "selective-start,parallel"},
		{"MATCH (a)-->(b {id: 1}) RETURN a", nil, "selective-start,index-union,range-filter"},
		{"MATCH (a)-->(b {id: 1}) RETURN a", []string{plan.RuleIndexUnion}, "selective-start,range-filter,parallel"},
		{"MATCH (m) WHERE (m:P OR m:Q) AND m.id = $x RETURN m", nil, "index-union,code-match"},
		{"MATCH (m) WHERE m:Q AND m.id = $x RETURN m", nil, "code-match,parallel"}, // no index on Q; m.id may be a string
		{"MATCH (m) WITHOUT INDEX WHERE m.id = 7 RETURN m", nil, "range-filter,parallel"},
		{"RETURN [1, 2] AS l", nil, "constant-fold"},
		{"RETURN [1, 2] AS l", []string{plan.RuleConstantFold}, ""},
		{"MATCH (a)-[*]->(b) RETURN DISTINCT b", nil, "endpoints-only,endpoints-bfs,parallel"},
		{"MATCH (a)-[*]->(b) RETURN DISTINCT b", []string{plan.RuleEndpointsBFS}, "endpoints-only,parallel"},
		{"MATCH (a) RETURN a ORDER BY a.x LIMIT 3", nil, "topk-sort,typed-sort,topk-bar,parallel"},
		{"MATCH (a) RETURN a ORDER BY a.x LIMIT 3", []string{plan.RuleTopKSort}, "typed-sort,parallel"}, // no top-k, no bar
		{"MATCH (a) RETURN a ORDER BY a.x LIMIT 3", []string{plan.RuleTypedSort}, "topk-sort,topk-bar,parallel"},
		{"MATCH (a) RETURN a ORDER BY a.x LIMIT 3", []string{plan.RuleTopKBar}, "topk-sort,typed-sort,parallel"},
		{"MATCH (a) WHERE a.y > 1 RETURN a ORDER BY a.x DESC, a.y LIMIT 3", nil, "range-filter,topk-sort,typed-sort,topk-bar,parallel"},
		{"MATCH (a) RETURN a ORDER BY a.x", nil, "typed-sort,parallel"},                         // no limit
		{"MATCH (a) RETURN a ORDER BY -a.x LIMIT 3", nil, "topk-sort,typed-sort,parallel"},      // not a property
		{"MATCH (a)-->(b) RETURN b ORDER BY b.x LIMIT 3", nil, "topk-sort,typed-sort,parallel"}, // not the scanned node
		{"MATCH (a)-->(b)-->(a) RETURN a", nil, "expand-intersect,hop-map,parallel"},
		{"MATCH (a)-->(b) RETURN count(*)", nil, "count-expand"},
		{"MATCH (a)-->(b) RETURN count(*)", []string{plan.RuleCountExpand}, "parallel"},
		{"MATCH (a:K)-->(b)-->(c) WHERE a.x = 1 AND c.name = 'n' RETURN count(*)", nil, "filter-pushdown,count-expand,count-filter"},
		{"MATCH (a:K)-->(b)-->(c) WHERE a.x = 1 AND c.name = 'n' RETURN count(*)", []string{plan.RuleCountFilter}, "filter-pushdown,range-filter,far-set,parallel"},
		{"MATCH (a:P)-->(b) WHERE a.id = 1 RETURN count(*)", nil, "filter-pushdown,index-selection,range-filter"}, // the seek serves the start better
		{"MATCH (p:P) WHERE p.id = 7 RETURN p", nil, "index-selection,range-filter"},
		{"MATCH (p:P) WHERE p.id > 7 RETURN p ORDER BY p.id", nil, "index-selection,order-seek,range-filter"},
		{"UNWIND $ks AS k MATCH (p:P) WHERE p.id = k RETURN p", nil, "index-join"},
		{"MATCH (a:A), (b:B) USING JOIN ON a.x = b.y RETURN a, b", nil, "join-hints,parallel"},
		{"MATCH (p:P {id: 7})-[:T]->(q:L) RETURN p UNION MATCH (p)-[*]->(q) RETURN DISTINCT p", nil,
			"expand-labels,endpoints-only,index-selection,range-filter,endpoints-bfs,label-cover,parallel"},
		{"MATCH (n:K) WHERE n.x > 3 AND n.x <= $hi RETURN count(*)", nil, "count-range,range-filter,parallel"},
		{"MATCH (n:K) WHERE n.x > 3 RETURN count(*)", []string{plan.RuleRangeFilter}, "parallel"},
		{"MATCH (a:K)-[r:T]->(b) WHERE r.w < 5 AND b.x = 2 RETURN a, b", nil, "range-expand,range-filter,parallel"},
		{"MATCH (a:K)-[r:T]->(b) WHERE r.w < 5 AND b.x = 2 RETURN a, b", []string{plan.RuleRangeFilter}, "far-set,parallel"}, // the far node's term takes far-set
		{"MATCH (n:K) WHERE n.name = 'x' RETURN n", nil, "code-filter,parallel"},
		{"MATCH (n:K) WHERE n.name = 'x' RETURN n", []string{plan.RuleCodeFilter}, "parallel"},
		{"MATCH (a:K), (b:K) WHERE a.x = b.y RETURN count(*)", nil, "equi-join,parallel"},
		{"MATCH (a:K), (b:K) WHERE a.x = b.y RETURN count(*)", []string{plan.RuleEquiJoin}, ""},
		{"MATCH (n:K) WHERE n.name STARTS WITH 'x' AND n.y > 1 RETURN n", nil, "code-match,match-range,parallel"},
		{"MATCH (n:K) WHERE n.name STARTS WITH 'x' AND n.y > 1 RETURN n", []string{plan.RuleRangeFilter}, "code-match,parallel"},
		{"MATCH (n:K) WHERE n.name STARTS WITH 'x' AND n.y > 1.5 RETURN n", nil, "code-match,parallel"}, // no integer bound
		{"MATCH (n:K) WHERE n.name STARTS WITH 'x' AND n.y > 1 RETURN n", []string{plan.RuleCodeMatch}, "parallel"},
		{"MATCH (n:K) WHERE n.name IN ['a', 'b'] RETURN n", nil, "constant-fold,code-match,in-set-lookup,parallel"},
		{"MATCH (n:K) WHERE n.x IN [1, 2] RETURN n", nil, "constant-fold,in-set-lookup,parallel"},
		{"MATCH (n:K) WHERE n.x IN [1, 2] RETURN n", []string{plan.RuleInSetLookup}, "constant-fold,parallel"},
		{"MATCH (n:K) WHERE n.x IN [1, 'a'] RETURN n", nil, "constant-fold,parallel"},
		{"UNWIND [1, 2, 3] AS x RETURN x IN $xs AS i", nil, "constant-fold,in-set-lookup"},
		{"MATCH (a)-[rs:T*1..3]->(b) WHERE all(r IN rs WHERE r.w > 1) RETURN a, b", nil, "path-prune,parallel"},
		{"MATCH (a)-[rs:T*1..3]->(b) WHERE all(r IN rs WHERE r.w > 1) RETURN a, b", []string{plan.RulePathPrune}, "parallel"},
		// With the list moved out of the WHERE, nothing reads it.
		{"MATCH (a)-[rs:T*1..3]->(b) WHERE none(r IN rs WHERE r.w > 1) RETURN DISTINCT b", nil, "path-prune,endpoints-only,endpoints-bfs,parallel"},
		{"MATCH (a)-[rs:T*1..3]->(b) WHERE none(r IN rs WHERE r.w > 1) RETURN DISTINCT b", []string{plan.RulePathPrune}, "parallel"},
		{"MATCH (a)-[rs:T*1..3]->(b) WHERE any(r IN rs WHERE r.w > 1) RETURN a, b", nil, "parallel"},
		{"MATCH (a {id: 1})-[rs*1..3]->(b) WHERE all(r IN rs WHERE r.n IN ['a', 'b'] OR r.s STARTS WITH 'x') RETURN b", nil, "constant-fold,path-prune,index-union,range-filter,in-set-lookup"},
		{"MATCH (a {id: 1})-[rs*1..3]->(b) WHERE all(r IN rs WHERE r.n IN [r.m]) RETURN b", nil, "index-union,range-filter"},
		{"MATCH (p:P) RETURN toLower(p.name), p.name STARTS WITH 'a'", nil, "code-call,parallel"},
		{"MATCH (p:P) RETURN toLower(p.name)", []string{plan.RuleCodeCall}, "parallel"},
		{"MATCH (p:P) WHERE p.name STARTS WITH 'a' RETURN p", nil, "code-match,parallel"},
		{"MATCH (p:P) RETURN toLower(p.name + 'x'), left(p.name, p.k)", nil, "parallel"},
		{"MATCH (a:P) WHERE a.age = 30 OPTIONAL MATCH (a)-[:T]->(b:P) RETURN a.id, count(b)", nil, "expand-labels,count-expand,count-filter,identity-group"},
		{"MATCH (a:P) WHERE a.age = 30 OPTIONAL MATCH (a)-[:T]->(b:P) RETURN a.id, count(b)", []string{plan.RuleCountFilter}, "expand-labels,range-filter,label-cover,parallel"},
		// shortestPath and allShortestPaths restrict their search by the
		// WHERE's all() and none(), whatever rules are off; the GQL forms
		// filter what they select, pruned (ALL SHORTEST) or not.
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = allShortestPaths((a)-[*]-(b)) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", nil, "shortest-steer,index-union,range-filter"},
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = shortestPath((a)-[*]-(b)) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", nil, "shortest-steer,index-union,range-filter"},
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = allShortestPaths((a)-[*]-(b)) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", []string{plan.RulePathPrune}, "shortest-steer,index-union,range-filter"},
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = ALL SHORTEST (a)-[*]-(b) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", nil, "path-prune,index-union,range-filter"},
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = ANY SHORTEST (a)-[*]-(b) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", nil, "index-union,range-filter"},
		{"MATCH (a {id: 1}), (b {id: 2}) MATCH p = ALL SHORTEST (a)-[*]-(b) WHERE all(n IN nodes(p) WHERE n:K) RETURN p", []string{plan.RulePathPrune}, "index-union,range-filter"},
	} {
		stmt, err := gql.Parse(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		opts := plan.Options{Disabled: map[string]bool{}}
		for _, r := range tc.off {
			opts.Disabled[r] = true
		}
		p, err := plan.Bind(stmt, plan.Env{Options: opts})
		if err == nil {
			err = opt.Optimize(p, ixs)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if got := strings.Join(p.Fired, ","); got != tc.want {
			t.Errorf("%s (off %v): fired %q, want %q", tc.query, tc.off, got, tc.want)
		}
		if ex := plan.Explain(p, plan.GraphStats{}); strings.Join(ex.Rules, ",") != tc.want {
			t.Errorf("%s: EXPLAIN rules %v", tc.query, ex.Rules)
		}
	}
}

// TestStrategiesInSubplans checks that the physical-planning pass reaches
// the plans the executor builds beside the operator tree: a pattern
// predicate's and MERGE's.
func TestStrategiesInSubplans(t *testing.T) {
	for _, query := range []string{
		"MATCH (a) WHERE exists((a)-[:T]->(:L)) RETURN a",
		"MATCH (a) MERGE (a)-[:T]->(b:L)",
	} {
		stmt, err := gql.Parse(query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Bind(stmt, plan.Env{})
		if err == nil {
			err = opt.Optimize(p, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if !slices.Contains(p.Fired, plan.RuleLabelCover) {
			t.Errorf("%s: the expansion to :L in a sub-plan has no label-cover (fired %v)", query, p.Fired)
		}
	}
}
