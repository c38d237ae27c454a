package plan

import (
	"slices"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// Security is the row-level security a statement is bound under
// (docs/row-security.md): for each label and relationship type, the
// predicates of the policies that apply to the statement's principal. An
// element is visible when, for each of its labels (or its type) that has
// predicates, at least one of them is true; null counts as false.
//
// The binder adds the test to every element a pattern binds, before any
// optimizer rule sees the plan, so a rule that answers from metadata
// (counts, index-only answers) sees a Filter and declines. Each predicate
// is bound over its element as column 0 (BindElementPredicate).
type Security struct {
	Nodes map[string][]Expr // label → predicates, any of which admits
	Rels  map[string][]Expr // relationship type → predicates
}

// Restricts reports whether s filters anything.
func (s *Security) Restricts() bool {
	return s != nil && (len(s.Nodes) > 0 || len(s.Rels) > 0)
}

// RestrictsLabel reports whether a node with label l, or a relationship
// of type l when rel, is subject to a policy.
func (s *Security) RestrictsLabel(l string, rel bool) bool {
	if s == nil {
		return false
	}
	if rel {
		return len(s.Rels[l]) > 0
	}
	return len(s.Nodes[l]) > 0
}

// test is the visibility test of an element read as x: for each label in
// m (sorted, so that plans print the same way), NOT x:L OR p1 OR p2 …;
// nil when m is empty.
func (s *Security) test(m map[string][]Expr, x Expr) Expr {
	if len(m) == 0 {
		return nil
	}
	labels := make([]string, 0, len(m))
	for l := range m {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var out Expr
	for _, l := range labels {
		var any Expr
		for _, p := range m[l] {
			p = onElement(p, x)
			// A null predicate must hide the element: coalesce(p, false)
			// written as (p IS NOT NULL AND p).
			p = &Binary{Op: OpAnd, L: &IsNull{X: p, Negate: true}, R: p}
			if any == nil {
				any = p
			} else {
				any = &Binary{Op: OpOr, L: any, R: p}
			}
		}
		one := Expr(&Binary{Op: OpOr, L: &Not{X: &HasLabels{X: x, Labels: []string{l}}}, R: any})
		if out == nil {
			out = one
		} else {
			out = &Binary{Op: OpAnd, L: out, R: one}
		}
	}
	return out
}

// onElement rebinds p, a predicate over its element as column 0, to read
// the element from x.
func onElement(p, x Expr) Expr {
	return rewrite(p, 1, func(e Expr) (Expr, bool) {
		if c, ok := e.(*ColRef); ok && c.Idx == 0 {
			return x, true
		}
		return nil, false
	})
}

// nodeTest is the visibility test of the node x, or nil when none.
func (s *Security) nodeTest(x Expr) Expr {
	if s == nil {
		return nil
	}
	return s.test(s.Nodes, x)
}

// relTest is the visibility test of the relationship x, or nil when none.
func (s *Security) relTest(x Expr) Expr {
	if s == nil {
		return nil
	}
	return s.test(s.Rels, x)
}

// secureNode filters the current plan's rows to those whose node in
// column col is visible.
func (b *binder) secureNode(col int) {
	if t := b.sec.nodeTest(b.sc.ref(col)); t != nil {
		b.set(&Filter{Input: b.root, Pred: t})
	}
}

// secureRel filters the current plan's rows to those whose relationship
// in column col is visible.
func (b *binder) secureRel(col int) {
	if t := b.sec.relTest(b.sc.ref(col)); t != nil {
		b.set(&Filter{Input: b.root, Pred: t})
	}
}

// secureChain makes a variable-length expansion test every element of
// its chains, as path pruning does (opt/path_prune.go): the element is
// column 0 of the test.
func (b *binder) secureChain(rel, node *Expr) {
	el := &ColRef{Idx: 0, Name: "#element", T: vector.Node}
	if t := b.sec.nodeTest(el); t != nil {
		*node = andExpr(*node, t)
	}
	el = &ColRef{Idx: 0, Name: "#element", T: vector.Rel}
	if t := b.sec.relTest(el); t != nil {
		*rel = andExpr(*rel, t)
	}
}

func andExpr(a, b Expr) Expr {
	if a == nil {
		return b
	}
	return &Binary{Op: OpAnd, L: a, R: b}
}

// refuseUnderSecurity is the error of a form the row-level security of
// the statement cannot filter yet: it is refused rather than let a hidden
// element through.
func refuseUnderSecurity(p gql.Pos, what string) error {
	return errs.New(errs.CodePermission, errs.CatPermission,
		"%s cannot be used while row-level security policies apply to you (docs/row-security.md)", what).At(p.Line, p.Column)
}

// BindElementPredicate binds pred, a policy's predicate over one element
// named v (a node, or a relationship when rel), as an expression reading
// the element as column 0. user is the value of $user, bound as a
// constant, so the plan holds no parameter of the statement's own.
func BindElementPredicate(pred gql.Expr, v string, rel bool, user map[string]vector.Value) (Expr, error) {
	t := vector.Node
	if rel {
		t = vector.Rel
	}
	b := &binder{params: map[string]vector.Value{"user": user}}
	b.sc.cols = []Column{{Name: v, Type: t}}
	e, err := b.expr(pred, noAggregates)
	if err != nil {
		return nil, err
	}
	if len(b.calls) > 0 || b.writes {
		return nil, semanticAt(pred.Position(), "a policy predicate cannot call procedures or write")
	}
	// $user.key is the attribute's value: a constant of the plan.
	return rewrite(e, 1, func(x Expr) (Expr, bool) {
		switch p := x.(type) {
		case *Param:
			if p.Name == "user" {
				return &Const{Val: user, T: p.T}, true
			}
		case *Property:
			if u, ok := p.Of.(*Param); ok && u.Name == "user" {
				v := user[p.Key]
				return &Const{Val: v, T: vector.TypeOf(v)}, true
			}
		}
		return nil, false
	}), nil
}

// CheckWrites refuses (42501) the writes of plan root that could make an
// element the principal cannot see, or hide one it can (a conservative
// WITH CHECK, docs/row-security.md): creating or merging a node with a
// label, or a relationship of a type, that has policies; setting or
// removing such a label; and setting or removing a property any
// policy's predicate reads (or every property, SET e = / +=, while any
// predicate reads one); and DETACH DELETE.
func (s *Security) CheckWrites(root Operator) error {
	if !s.Restricts() {
		return nil
	}
	keys := s.readKeys()
	var bad error
	fail := func(format string, args ...any) {
		if bad == nil {
			bad = errs.New(errs.CodePermission, errs.CatPermission, format+" while row-level security policies apply to you (docs/row-security.md)", args...)
		}
	}
	items := func(us []UpdateItem) {
		for _, u := range us {
			switch u.Kind {
			case SetLabels, RemoveLabels:
				for _, l := range u.Labels {
					if s.RestrictsLabel(l, false) {
						fail("cannot set or remove the label %s", l)
					}
				}
			case SetProp, RemoveProp:
				if keys[u.Key] {
					fail("cannot set or remove the property %s, which a policy reads", u.Key)
				}
			case SetAll, SetMerge:
				if len(keys) > 0 {
					fail("cannot replace an element's properties")
				}
			}
		}
	}
	var visit func(op Operator) bool
	visit = func(op Operator) bool {
		switch o := op.(type) {
		case *Create:
			for _, n := range o.Nodes {
				for _, l := range n.Labels {
					if s.RestrictsLabel(l, false) {
						fail("cannot create a node labelled %s", l)
					}
				}
			}
			for _, r := range o.Rels {
				if s.RestrictsLabel(r.Type, true) {
					fail("cannot create a relationship of type %s", r.Type)
				}
			}
		case *Update:
			items(o.Items)
		case *Delete:
			// DETACH DELETE would delete the relationships of a visible
			// node that lead to hidden nodes, or are hidden themselves.
			if o.Detach {
				fail("cannot DETACH DELETE")
			}
		case *Merge:
			Inspect(o.Create, visit)
			Inspect(o.Match, visit)
			items(o.OnMatch)
			items(o.OnCreate)
		}
		return bad == nil
	}
	Inspect(root, visit)
	return bad
}

// readKeys are the property keys the predicates read.
func (s *Security) readKeys() map[string]bool {
	keys := map[string]bool{}
	for _, m := range []map[string][]Expr{s.Nodes, s.Rels} {
		for _, ps := range m {
			for _, p := range ps {
				rewrite(p, 1, func(e Expr) (Expr, bool) {
					if pr, ok := e.(*Property); ok {
						keys[pr.Key] = true
					}
					return nil, false
				})
			}
		}
	}
	return keys
}

// graphReading are the functions that read the graph beyond their
// argument (degrees count every relationship, hidden or not).
var graphReading = map[string]bool{"outdegree": true, "indegree": true}

// unfilteredProcedures are the name prefixes of the procedures a
// restricted principal may call because they read no element of the
// graph (user management, policies, the audit trail, the indexes and
// constraints declared).
var unfilteredProcedures = []string{"dbms.", "quiver.rls.", "audit.", "date.",
	"db.indexes", "db.constraints", "db.awaitIndex"}

// filteredProcedures are the procedures that read the graph but keep to
// what the principal sees: the algorithms' projections
// (procs.Context.Visible) and change capture, named one by one so that an algorithm added later is
// refused until it keeps to it too. algo.cache.stats stays refused (the
// cache's bytes measure graphs the principal may not see), and
// algo.cache.clear needs the admin role, whom no policy restricts.
var filteredProcedures = []string{"algo.bfs.stream", "algo.sssp.stream", "algo.dijkstra.stream",
	"algo.wcc.stream", "algo.pagerank.stream", "algo.cdlp.stream", "algo.lcc.stream",
	// Change capture filters its events itself (engine/rls_changes.go).
	"cdc.changes", "cdc.current", "cdc.earliest"}

// FilteredProcedure reports whether a restricted principal may call the
// procedure named name: it reads no element, or only visible ones. Every
// other procedure (search, time series, exports, storage counts, the
// labels, types and keys in use, an embedding program's own)
// cannot filter what it reads by the policies yet and is refused.
func FilteredProcedure(name string) bool {
	has := func(p string) bool { return strings.HasPrefix(name, p) }
	return slices.ContainsFunc(unfilteredProcedures, has) || slices.Contains(filteredProcedures, name)
}

// CheckCalls refuses (42501) a call of a procedure that reads the graph
// without the policies.
func (s *Security) CheckCalls(calls []*procs.Procedure) error {
	if !s.Restricts() {
		return nil
	}
	for _, c := range calls {
		if !FilteredProcedure(c.Name) {
			return errs.New(errs.CodePermission, errs.CatPermission,
				"procedure %s cannot be called while row-level security policies apply to you: it cannot filter what it reads (docs/row-security.md)", c.Name)
		}
	}
	return nil
}

// NodeTest is the visibility test of a node read as column 0 of a batch,
// nil when no policy applies to a node.
func (s *Security) NodeTest() Expr {
	return s.nodeTest(&ColRef{Idx: 0, Name: "#node", T: vector.Node})
}

// RelTest is the visibility test of a relationship (its own policies,
// not its endpoints') read as column 0 of a batch, nil when no policy
// applies to a relationship.
func (s *Security) RelTest() Expr {
	return s.relTest(&ColRef{Idx: 0, Name: "#rel", T: vector.Rel})
}
