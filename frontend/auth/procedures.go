package auth

import (
	"context"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// The dbms.security procedures: user, role and API key management. All
// need the admin privilege except changePassword and currentUser, which
// act on the caller. The changing ones refuse to run in an explicit
// transaction: their records commit on their own, and must neither wait
// on nor roll back with the transaction's data.

type procFn func(ctx context.Context, actor *engine.Principal, args []vector.Value) ([][]vector.Value, error)

type secProc struct {
	name     string
	inputs   []string // all STRING except createUser's roles (LIST)
	outputs  []engine.ProcedureField
	requires engine.Privilege
	changes  bool   // refuses explicit transactions; audited
	action   string // the audit action of a change
	fn       procFn
}

func str(name string) engine.ProcedureField  { return engine.ProcedureField{Name: name, Type: "STRING"} }
func list(name string) engine.ProcedureField { return engine.ProcedureField{Name: name, Type: "LIST"} }

func (s *Service) securityProcedures() []secProc {
	return []secProc{
		{name: "createUser", inputs: []string{"username", "password", "roles"}, outputs: []engine.ProcedureField{str("username"), list("roles")},
			requires: engine.PrivAdmin, changes: true, action: "create_user", fn: s.procCreateUser},
		{name: "dropUser", inputs: []string{"username"}, requires: engine.PrivAdmin, changes: true, action: "drop_user",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				return nil, s.dropUser(ctx, a[0].(string))
			}},
		{name: "setPassword", inputs: []string{"username", "password"}, requires: engine.PrivAdmin, changes: true, action: "set_password",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				return nil, s.setPassword(ctx, a[0].(string), a[1].(string))
			}},
		{name: "changePassword", inputs: []string{"oldPassword", "newPassword"}, requires: engine.PrivRead, changes: true, action: "set_password", fn: s.procChangePassword},
		{name: "addRole", inputs: []string{"username", "role"}, requires: engine.PrivAdmin, changes: true, action: "add_role",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				_, err := s.changeRole(ctx, a[0].(string), a[1].(string), true)
				return nil, err
			}},
		{name: "removeRole", inputs: []string{"username", "role"}, requires: engine.PrivAdmin, changes: true, action: "remove_role",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				_, err := s.changeRole(ctx, a[0].(string), a[1].(string), false)
				return nil, err
			}},
		{name: "setUserAttribute", inputs: []string{"username", "key", "value"}, requires: engine.PrivAdmin, changes: true, action: "set_user_attribute",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				return nil, s.setAttribute(ctx, a[0].(string), a[1].(string), a[2])
			}},
		{name: "userAttributes", inputs: []string{"username"}, outputs: []engine.ProcedureField{str("key"), {Name: "value", Type: "ANY"}},
			requires: engine.PrivAdmin, fn: s.procUserAttributes},
		{name: "listUsers", outputs: []engine.ProcedureField{str("username"), list("roles"), str("created")}, requires: engine.PrivAdmin, fn: s.procListUsers},
		{name: "listRoles", outputs: []engine.ProcedureField{str("role"), list("privileges")}, requires: engine.PrivAdmin, fn: procListRoles},
		{name: "createApiKey", inputs: []string{"username", "name"}, outputs: []engine.ProcedureField{str("key_id"), str("api_key")},
			requires: engine.PrivAdmin, changes: true, action: "create_api_key",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				k, key, err := s.createAPIKey(ctx, a[0].(string), a[1].(string))
				if err != nil {
					return nil, err
				}
				return [][]vector.Value{{k.ID, key}}, nil
			}},
		{name: "listApiKeys", outputs: []engine.ProcedureField{str("key_id"), str("username"), str("name"), str("created")}, requires: engine.PrivAdmin,
			fn: func(context.Context, *engine.Principal, []vector.Value) ([][]vector.Value, error) {
				var rows [][]vector.Value
				for _, k := range s.apiKeys() {
					rows = append(rows, []vector.Value{k.ID, k.User, k.Name, timeString(k.Created)})
				}
				return rows, nil
			}},
		{name: "revokeApiKey", inputs: []string{"key_id"}, requires: engine.PrivAdmin, changes: true, action: "revoke_api_key",
			fn: func(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
				_, err := s.revokeAPIKey(ctx, a[0].(string))
				return nil, err
			}},
		{name: "currentUser", outputs: []engine.ProcedureField{str("username"), list("roles")}, requires: engine.PrivRead, fn: s.procCurrentUser},
	}
}

// registerProcedures registers the dbms.security procedures on the DB.
func (s *Service) registerProcedures() error {
	for _, p := range s.securityProcedures() {
		sig := engine.ProcedureSignature{Name: "dbms.security." + p.name, Outputs: p.outputs, Requires: p.requires}
		for _, in := range p.inputs {
			f := str(in)
			switch in {
			case "roles":
				f = list(in)
			case "value":
				f = engine.ProcedureField{Name: in, Type: "ANY"}
			}
			sig.Inputs = append(sig.Inputs, f)
		}
		if err := s.cfg.DB.RegisterProcedure(sig, s.wrap(p)); err != nil {
			return err
		}
	}
	return nil
}

// wrap checks a call's arguments (every input is required) and the
// transaction rule, and audits the changes.
func (s *Service) wrap(p secProc) engine.ProcedureFunc {
	return func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
		actor, _ := engine.PrincipalFrom(ctx)
		name, addr := "", ""
		if actor != nil {
			name, addr = actor.Name, actor.Address
		}
		var err error
		if len(args) != len(p.inputs) {
			err = invalidParam("dbms.security.%s takes %d arguments", p.name, len(p.inputs))
		}
		for i, in := range p.inputs {
			if err != nil {
				break
			}
			_, isStr := args[i].(string)
			_, isList := args[i].([]vector.Value)
			switch {
			case in == "value":
				// Any type, checked by the procedure; null removes.
			case args[i] == nil:
				err = invalidParam("dbms.security.%s: %s must not be null", p.name, in)
			case in == "roles" && !isList, in != "roles" && !isStr:
				err = invalidParam("dbms.security.%s: %s has the wrong type", p.name, in)
			}
		}
		if err == nil && p.changes && engine.InExplicitTransaction(ctx) {
			err = engine.NewError(engine.CodeTransaction, engine.CatTransaction,
				"user management commits on its own; run dbms.security.%s outside a transaction", p.name)
		}
		if err == nil && p.changes {
			// On a cluster member that does not lead: 25006 naming the
			// leader, which the frontends route as any write's.
			err = s.cfg.DB.Writable()
		}
		var rows [][]vector.Value
		if err == nil {
			rows, err = p.fn(ctx, actor, args)
		}
		if p.changes {
			outcome, detail := engine.OutcomeSuccess, describe(p, args)
			if err != nil {
				outcome = engine.OutcomeFailure
				if e, ok := engine.AsError(err); ok {
					detail += ": " + e.Message
				}
			}
			s.audit("user_management", p.action, outcome, name, addr, detail)
		}
		return rows, err
	}
}

// describe names a change's target for the audit trail: never a
// password or a key.
func describe(p secProc, args []vector.Value) string {
	var parts []string
	for i, in := range p.inputs {
		v := args[i]
		switch in {
		case "username", "name", "key_id", "role":
			if sv, ok := v.(string); ok {
				parts = append(parts, in+" "+sanitize(sv))
			}
		case "roles":
			if l, ok := v.([]vector.Value); ok && len(l) <= len(roleNames)*4 {
				var rs []string
				for _, r := range l {
					if rv, ok := r.(string); ok {
						rs = append(rs, sanitize(rv))
					}
				}
				parts = append(parts, "roles "+strings.Join(rs, ","))
			}
		}
	}
	if p.name == "setUserAttribute" {
		return p.name + " " + strings.Join(parts, " ") + describeAttr(args)
	}
	return p.name + " " + strings.Join(parts, " ")
}

func (s *Service) procCreateUser(ctx context.Context, _ *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
	l, _ := a[2].([]vector.Value)
	var rs []string
	for _, v := range l {
		r, ok := v.(string)
		if !ok {
			return nil, invalidParam("dbms.security.createUser: roles is a list of role names (strings)")
		}
		rs = append(rs, r)
		if len(rs) > len(roleNames)*4 {
			return nil, invalidParam("dbms.security.createUser: too many roles")
		}
	}
	u, err := s.createUser(ctx, a[0].(string), a[1].(string), rs)
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{u.Name, stringList(u.Roles)}}, nil
}

func (s *Service) procChangePassword(ctx context.Context, actor *engine.Principal, a []vector.Value) ([][]vector.Value, error) {
	if actor == nil {
		return nil, invalidParam("dbms.security.changePassword changes the caller's own password, and this call is not authenticated; use dbms.security.setPassword")
	}
	if err := checkPassword(a[1].(string)); err != nil {
		return nil, err
	}
	if _, _, locks, err := s.verifyPassword(ctx, actor.Name, a[0].(string), actor.Address); err != nil {
		if limited(err) {
			return nil, err
		}
		s.auditLocks(actor.Address, locks)
		return nil, errAuth("the old password is wrong")
	}
	return nil, s.setPassword(ctx, actor.Name, a[1].(string))
}

func (s *Service) procListUsers(context.Context, *engine.Principal, []vector.Value) ([][]vector.Value, error) {
	s.mu.RLock()
	users := make([]*userRecord, 0, len(s.mu.ix.users))
	for _, u := range s.mu.ix.users {
		users = append(users, u)
	}
	s.mu.RUnlock()
	sortUsers(users)
	rows := make([][]vector.Value, len(users))
	for i, u := range users {
		rows[i] = []vector.Value{u.Name, stringList(u.Roles), timeString(u.Created)}
	}
	return rows, nil
}

func procListRoles(context.Context, *engine.Principal, []vector.Value) ([][]vector.Value, error) {
	rows := make([][]vector.Value, len(roleNames))
	for i, r := range roleNames {
		p := roles[r]
		var ps []string
		for _, x := range []struct {
			bit  engine.Privilege
			name string
		}{{engine.PrivRead, "read"}, {engine.PrivWrite, "write"}, {engine.PrivAdmin, "admin"}} {
			if p.Has(x.bit) {
				ps = append(ps, x.name)
			}
		}
		rows[i] = []vector.Value{r, stringList(ps)}
	}
	return rows, nil
}

func (s *Service) procCurrentUser(_ context.Context, actor *engine.Principal, _ []vector.Value) ([][]vector.Value, error) {
	if actor == nil {
		return [][]vector.Value{{nil, stringList(nil)}}, nil
	}
	rs := actor.Roles
	if u := s.user(actor.Name); u != nil {
		rs = u.Roles
	}
	return [][]vector.Value{{actor.Name, stringList(rs)}}, nil
}

func stringList(ss []string) []vector.Value {
	out := make([]vector.Value, len(ss))
	for i, x := range ss {
		out[i] = x
	}
	return out
}

func timeString(t time.Time) string { return t.UTC().Format(time.RFC3339) }
