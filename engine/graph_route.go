package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// route finds where a statement runs: the graph its USE prefix names,
// else the request's (WithGraph), else the session's (USE alone), else
// the session's database; inside a transaction, the transaction's graph,
// which no statement may change. It returns the session to run on and
// the context with the principal's privileges for that graph; or, for a
// graph statement (CREATE, DROP, SHOW GRAPHS, USE alone), its result.
func (s *Session) route(ctx context.Context, text string, txn *Transaction) (*Session, context.Context, *Result, error) {
	// Only a text that may start with USE or be a graph statement is
	// parsed here: any other is parsed once, by its run.
	stmt := &gql.Statement{}
	if gql.NamesGraph(text) {
		var err error
		if stmt, err = gql.ParseCached(text, ctx.Err); err != nil {
			return s, ctx, nil, nil // the statement's own run reports it
		}
	}
	if stmt.Graph != nil {
		if txn != nil {
			return nil, ctx, nil, errs.New(errs.CodeTransaction, errs.CatTransaction,
				"%s cannot run inside a transaction", stmt.Graph.String()).At(stmt.Graph.Pos.Line, stmt.Graph.Pos.Column)
		}
		res, err := s.graphStatement(ctx, stmt.Graph)
		return nil, ctx, res, err
	}
	target, pos := "", gql.Pos{Line: 1, Column: 1}
	switch {
	case stmt.Use != nil:
		target, pos = stmt.Use.Name, stmt.Use.Pos
	case graphFrom(ctx) != "":
		target = graphFrom(ctx)
	case s.graph != "":
		target = s.graph
	default:
		target = s.db.graph
	}
	g, gctx, err := s.db.Graph(ctx, target)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Position == nil && stmt.Use != nil {
			err = e.At(pos.Line, pos.Column)
		}
		return nil, ctx, nil, err
	}
	if txn != nil && g != txn.db {
		return nil, ctx, nil, errs.New(errs.CodeTransaction, errs.CatTransaction,
			"the transaction runs on graph %q: a statement in it cannot run on %q", txn.db.graph, g.graph)
	}
	if g == s.db {
		return s, gctx, nil, nil
	}
	return &Session{db: g, settings: s.settings, graph: s.graph}, gctx, nil, nil
}

// graphStatement runs CREATE GRAPH, DROP GRAPH, SHOW GRAPHS or USE on the
// default graph's database, which keeps the catalog.
func (s *Session) graphStatement(ctx context.Context, st *gql.Graph) (*Result, error) {
	root, start := s.db.root, time.Now()
	switch st.Kind {
	case gql.GraphShow:
		if err := requirePrivilege(ctx, PrivRead, "SHOW GRAPHS"); err != nil {
			return nil, err
		}
		var rows [][]string
		for _, g := range root.graphInfos(ctx) {
			rows = append(rows, []string{g.name, strconv.FormatInt(g.nodes, 10), strconv.FormatInt(g.relationships, 10),
				strconv.FormatInt(g.maxMemory, 10), strconv.FormatInt(g.maxDisk, 10), strconv.FormatInt(g.diskBytes, 10), g.created})
		}
		return root.stringResult([]string{"name", "nodes", "relationships", "max_memory", "max_disk", "disk_bytes", "created"}, rows, start), nil
	case gql.GraphUse:
		g, _, err := root.Graph(ctx, st.Name)
		if err != nil {
			return nil, errAt(err, st.NamePos)
		}
		s.graph = g.graph
		return root.stringResult([]string{"graph"}, [][]string{{g.graph}}, start), nil
	}
	what := "CREATE GRAPH"
	if st.Kind == gql.GraphDrop {
		what = "DROP GRAPH"
	}
	if err := requirePrivilege(ctx, PrivAdmin, what); err != nil {
		root.trail().Audit(ctx, AuditEvent{Category: "authorization", Action: "permission_denied", Outcome: "denied", Detail: what})
		return nil, err
	}
	var err error
	if st.Kind == gql.GraphCreate {
		err = root.createGraph(ctx, st)
	} else {
		err = root.dropGraph(ctx, st)
	}
	root.graphAudit(ctx, st, err)
	if err != nil {
		return nil, err
	}
	r := root.schemaRows(nil, nil, start)
	r.summary.Write = true
	return r, nil
}

// requirePrivilege refuses with 42501 a principal without priv.
func requirePrivilege(ctx context.Context, priv Privilege, what string) error {
	p, ok := PrincipalFrom(ctx)
	if !ok || p.Privileges.Has(priv) {
		return nil
	}
	return errs.New(errs.CodePermission, errs.CatPermission, "%s needs the %s privilege", what, privilegeName(priv))
}

func privilegeName(p Privilege) string {
	switch p {
	case PrivAdmin:
		return "admin"
	case PrivWrite:
		return "write"
	}
	return "read"
}

// errAt positions an engine error without a position.
func errAt(err error, pos gql.Pos) error {
	if e, ok := errs.As(err); ok && e.Position == nil {
		return e.At(pos.Line, pos.Column)
	}
	return err
}

// stringResult answers fixed rows of strings.
func (db *DB) stringResult(names []string, rows [][]string, start time.Time) *Result {
	cols := make([]plan.Column, len(names))
	for i, n := range names {
		cols[i] = plan.Column{Name: n, Type: vector.String}
	}
	r := &Result{db: db, ectx: &exec.Context{}, cancel: func() {}, start: start,
		entities: &entities{r: db.store.Snapshot(), cat: db.store.Catalog()}}
	r.root = &stringRows{rows: rows, ncols: len(names)}
	r.columns = resultColumns(cols, nil)
	return r
}
