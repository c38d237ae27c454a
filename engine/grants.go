package engine

// Grants per graph (docs/graphs.md, "Access"). On the default graph a
// principal has what its roles give server-wide. On any other graph an
// administrator has every privilege, and anyone else only what
// dbms.security.grant gave one of their roles on that graph: read, or
// write (which includes read). A graph a principal has no grant on is
// answered as one that does not exist. Grants are system records of the
// default graph: grant/<graph>/<role> → "read" or "write".

import (
	"context"
	"strings"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

const grantRecordPrefix = "grant/"

// narrow returns ctx with its principal's privileges for graph name
// (normalised), and whether the principal may use that graph at all.
// A context without a principal (authentication off) may use every graph.
func (db *DB) narrow(ctx context.Context, name string) (context.Context, bool) {
	p, ok := access.PrincipalFrom(ctx)
	if !ok {
		return ctx, true
	}
	if p.Graph == name {
		return ctx, p.Privileges != 0 || name == DefaultGraph
	}
	server := p.Privileges
	if p.Graph != "" {
		server = p.ServerPrivileges
	}
	q := *p
	q.Graph, q.ServerPrivileges = name, server
	switch {
	case name == DefaultGraph:
		q.Privileges = server
	case server.Has(access.PrivAdmin):
		q.Privileges = access.PrivAll
	default:
		q.Privileges = db.granted(name, p.Roles)
		if q.Privileges == 0 {
			return ctx, false
		}
	}
	return access.WithPrincipal(ctx, &q), true
}

// granted is what roles were granted on graph name.
func (db *DB) granted(name string, roles []string) access.Privilege {
	var out access.Privilege
	for _, r := range roles {
		v, ok := db.root.SystemGet(grantRecordPrefix + name + "/" + r)
		if !ok {
			continue
		}
		switch string(v) {
		case "write":
			out |= access.PrivRead | access.PrivWrite
		case "read":
			out |= access.PrivRead
		}
	}
	return out
}

// checkRoleName accepts a role name as grants take it: a letter, then
// letters, digits or underscores, at most 64.
func checkRoleName(r string) error {
	if !access.RoleName(r) {
		return errs.DataCode(errs.CodeInvalidParam, "invalid role name %q: a letter, then letters, digits or underscores, at most 64", truncateName(r))
	}
	if r == "admin" {
		return errs.DataCode(errs.CodeInvalidParam, "the admin role has every privilege on every graph: it takes no grants")
	}
	return nil
}

// registerGrants registers dbms.security.grant, revoke and listGrants.
func (db *DB) registerGrants() error {
	str := func(n string) procs.Field { return procs.Field{Name: n, Type: "STRING"} }
	set := func(c *procs.Context, args []vector.Value, grant bool) ([][]vector.Value, error) {
		role, _ := args[0].(string)
		graph, _ := args[1].(string)
		priv, _ := args[2].(string)
		if role == "" || graph == "" || priv == "" {
			return nil, errs.DataCode(errs.CodeInvalidParam, "dbms.security.grant and revoke take a role, a graph and a privilege ('read' or 'write'), none null")
		}
		err := db.setGrant(c.Ctx, role, graph, strings.ToLower(priv), grant)
		action := "grant"
		if !grant {
			action = "revoke"
		}
		db.trail().Audit(c.Ctx, AuditEvent{Category: "user_management", Action: action, Outcome: access.OutcomeOf(err),
			Detail: "role " + truncateName(role) + " " + truncateName(priv) + " on graph " + truncateName(graph)})
		return nil, err
	}
	for _, grant := range []bool{true, false} {
		name := "dbms.security.grant"
		if !grant {
			name = "dbms.security.revoke"
		}
		err := db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: name,
			Inputs: []procs.Field{str("role"), str("graph"), str("privilege")}, Requires: procs.PrivAdmin},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) { return set(c, args, grant) }})
		if err != nil {
			return err
		}
	}
	return db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "dbms.security.listGrants",
		Outputs: []procs.Field{str("role"), str("graph"), str("privilege")}, Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
			var rows [][]vector.Value
			for _, r := range db.SystemScan(grantRecordPrefix) {
				graph, role, _ := strings.Cut(strings.TrimPrefix(r.Key, grantRecordPrefix), "/")
				rows = append(rows, []vector.Value{role, graph, string(r.Value)})
			}
			return rows, nil
		}})
}

// setGrant grants priv on graph to role, or revokes it. Revoking write
// leaves read; revoking read takes every grant away.
func (db *DB) setGrant(ctx context.Context, role, graph, priv string, grant bool) error {
	if err := checkRoleName(role); err != nil {
		return err
	}
	if priv != "read" && priv != "write" {
		return errs.DataCode(errs.CodeInvalidParam, "unknown privilege %q: a graph's privileges are 'read' and 'write'", truncateName(priv))
	}
	name, err := normalGraphName(graph)
	if err != nil {
		return err
	}
	if name == DefaultGraph {
		return errs.DataCode(errs.CodeInvalidParam, "the default graph's privileges are the roles' own (reader, editor, admin): it takes no grants")
	}
	if _, _, err := db.Graph(ctx, name); err != nil {
		return err
	}
	key := grantRecordPrefix + name + "/" + role
	cur, _ := db.SystemGet(key)
	next := string(cur)
	switch {
	case grant && (priv == "write" || next != "write"):
		next = priv
	case !grant && priv == "write" && next == "write":
		next = "read"
	case !grant && priv == "read":
		next = ""
	}
	if next == string(cur) {
		return nil
	}
	rec := SystemRecord{Key: key}
	if next != "" {
		rec.Value = []byte(next)
	}
	return db.SystemPut(ctx, []SystemRecord{rec})
}
