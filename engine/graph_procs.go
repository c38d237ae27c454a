package engine

import (
	"context"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storageprocs"
	"github.com/quiverdb/quiver/vector"
)

// registerGraphProcedures registers quiver.tenant.list, create and drop,
// and the grants (grants.go), on the default graph's registry: every
// graph's registry offers them (procs.Registry.Under).
func (db *DB) registerGraphProcedures() error {
	if err := db.registerGrants(); err != nil {
		return err
	}
	f := func(n, t string) procs.Field { return procs.Field{Name: n, Type: t} }
	err := db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.tenant.list",
		Outputs: []procs.Field{f("name", "STRING"), f("nodes", "INTEGER"), f("relationships", "INTEGER"),
			f("max_memory", "INTEGER"), f("max_disk", "INTEGER"), f("disk_bytes", "INTEGER"), f("created", "STRING")},
		Requires: procs.PrivRead},
		Fn: func(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
			var rows [][]vector.Value
			for _, g := range db.graphInfos(c.Ctx) {
				var created vector.Value
				if g.created != "" {
					created = g.created
				}
				rows = append(rows, []vector.Value{g.name, g.nodes, g.relationships, g.maxMemory, g.maxDisk, g.diskBytes, created})
			}
			return rows, nil
		}})
	if err != nil {
		return err
	}
	err = db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.tenant.create",
		Inputs: []procs.Field{f("name", "STRING"), {Name: "options", Type: "MAP", Optional: true}}, Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
			if access.InExplicitTransaction(c.Ctx) {
				return nil, errs.New(errs.CodeTransaction, errs.CatTransaction, "quiver.tenant.create cannot run inside a transaction: a graph is not rolled back with it")
			}
			name, _ := args[0].(string)
			st := &gql.Graph{Kind: gql.GraphCreate, Name: name, Pos: gql.Pos{Line: 1, Column: 1}}
			if len(args) > 1 && args[1] != nil {
				m, _ := args[1].(map[string]vector.Value)
				for k, v := range m {
					switch k {
					case "max_memory":
						st.MaxMemory = v
					case "max_disk":
						st.MaxDisk = v
					default:
						return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.tenant.create: unknown option %s (max_memory, max_disk)", truncateName(k))
					}
				}
			}
			err := db.createGraph(c.Ctx, st)
			db.graphAudit(c.Ctx, st, err)
			return nil, err
		}})
	if err != nil {
		return err
	}
	err = db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.tenant.setQuota",
		Inputs: []procs.Field{f("name", "STRING"), f("quota", "MAP")}, Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
			name, _ := args[0].(string)
			q, _ := args[1].(map[string]vector.Value)
			if q == nil {
				return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.tenant.setQuota takes a graph's name and a map {max_memory, max_disk}")
			}
			opts := make(map[string]any, len(q))
			for k, v := range q {
				opts[k] = v
			}
			err := db.setQuota(c.Ctx, name, opts)
			db.trail().Audit(c.Ctx, AuditEvent{Category: "admin", Action: "set_graph_quota", Outcome: access.OutcomeOf(err), Detail: "graph " + truncateName(name)})
			return nil, err
		}})
	if err != nil {
		return err
	}
	return db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.tenant.drop",
		Inputs: []procs.Field{f("name", "STRING")}, Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
			if access.InExplicitTransaction(c.Ctx) {
				return nil, errs.New(errs.CodeTransaction, errs.CatTransaction, "quiver.tenant.drop cannot run inside a transaction: a graph is not restored with it")
			}
			name, _ := args[0].(string)
			st := &gql.Graph{Kind: gql.GraphDrop, Name: name, Pos: gql.Pos{Line: 1, Column: 1}}
			err := db.dropGraph(c.Ctx, st)
			db.graphAudit(c.Ctx, st, err)
			return nil, err
		}})
}

// storageSource is what quiver.storage.stats and integrity read of db,
// with the way to the other graphs.
func (db *DB) storageSource() storageprocs.Source {
	return storageprocs.Source{Store: db.store, Log: db.log, Graph: db.graph,
		LSNs: func() (uint64, uint64) {
			d := db.Durability()
			return d.WALLSN, d.LastCheckpointLSN
		},
		Other: func(ctx context.Context, name string) (*storageprocs.Source, error) {
			g, _, err := db.root.Graph(ctx, name)
			if err != nil {
				return nil, err
			}
			src := g.storageSource()
			return &src, nil
		}}
}

// GraphCounts is the counts of graph name (GET /api/v1/status?graph=name),
// as ctx's principal may see it: an unknown graph, and one it may not
// use, is a 42S02 error.
func (db *DB) GraphCounts(ctx context.Context, name string) (Counts, error) {
	g, _, err := db.root.Graph(ctx, name)
	if err != nil {
		return Counts{}, err
	}
	return g.Counts(), nil
}

// Graph is the graph USE chose for the session's statements, "" when none
// did (its database's).
func (s *Session) Graph() string { return s.graph }
