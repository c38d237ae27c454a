package engine

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/system"
	"github.com/quiverdb/quiver/vector"
)

// Row-level security (docs/row-security.md): the quiver.rls.* procedures
// keep the policies in the system records (access.PolicyPrefix), and
// every statement of a restricted principal is bound with the policies
// that apply to it (statement_plan.go).

// rlsCache holds the decoded policies until a commit changes a record
// under access.PolicyPrefix (this member's or, in a cluster, one it
// applies).
type rlsCache struct {
	once sync.Once
	gen  atomic.Uint64                 // bumped by every change of a policy record
	cur  atomic.Pointer[rlsGeneration] // the policies as of a generation
}

type rlsGeneration struct {
	gen      uint64
	policies []*access.Policy
	broken   error // a policy record that cannot be read
}

// policies returns the row-level security policies, sorted by name, or
// an error when a policy record cannot be read: a policy this version
// cannot read must not open the rows it guards.
func (db *DB) policies() ([]*access.Policy, error) {
	c := &db.rls
	c.once.Do(func() {
		db.WatchSystem(access.PolicyPrefix, func([]string) { c.gen.Add(1) })
	})
	gen := c.gen.Load()
	if g := c.cur.Load(); g != nil && g.gen == gen {
		return g.policies, g.broken
	}
	g := &rlsGeneration{gen: gen}
	for _, r := range db.SystemScan(access.PolicyPrefix) {
		p, err := access.DecodePolicy(r.Value)
		if err != nil {
			db.log.Error("row-level security: unreadable policy record", "key", r.Key, "err", err)
			g.broken = errs.New(errs.CodePermission, errs.CatPermission,
				"row-level security is unavailable: a policy record cannot be read (the server log names it)")
			continue
		}
		g.policies = append(g.policies, p)
	}
	// A change while scanning bumped gen: the next call scans again.
	c.cur.Store(g)
	return g.policies, g.broken
}

// security is the row-level security the statement of ctx's principal is
// bound under; nil when nothing restricts it. An admin running while
// policies exist is audited (the bypass).
func (db *DB) security(ctx context.Context) (*plan.Security, error) {
	p, ok := access.PrincipalFrom(ctx)
	if !ok {
		return nil, nil
	}
	ps, broken := db.policies()
	if len(ps) == 0 && broken == nil {
		return nil, nil
	}
	if !access.Restricted(p) {
		db.trail().Audit(ctx, access.AuditEvent{Category: "authorization", Action: "rls_bypass",
			Outcome: access.OutcomeSuccess, Detail: "an admin's statement is not filtered by row-level security policies"})
		return nil, nil
	}
	if broken != nil {
		return nil, broken
	}
	return access.SecurityFor(p, ps)
}

func (db *DB) registerRLS() error {
	str := func(n string) procs.Field { return procs.Field{Name: n, Type: "STRING"} }
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "quiver.rls.createPolicy",
			Inputs:   []procs.Field{str("name"), {Name: "options", Type: "MAP"}},
			Outputs:  []procs.Field{str("name"), str("target"), {Name: "roles", Type: "LIST"}, str("predicate")},
			Requires: procs.PrivAdmin}, Fn: db.rlsCreate},
		{Signature: procs.Signature{Name: "quiver.rls.dropPolicy", Inputs: []procs.Field{str("name")},
			Outputs: []procs.Field{str("name")}, Requires: procs.PrivAdmin}, Fn: db.rlsDrop},
		{Signature: procs.Signature{Name: "quiver.rls.list",
			Outputs:  []procs.Field{str("name"), str("target"), {Name: "roles", Type: "LIST"}, str("predicate")},
			Requires: procs.PrivAdmin}, Fn: db.rlsList},
	} {
		if err := db.procs.Register(p); err != nil {
			return err
		}
	}
	return nil
}

func policyRow(p *access.Policy) []vector.Value {
	roles := make([]vector.Value, len(p.Roles))
	for i, r := range p.Roles {
		roles[i] = r
	}
	return []vector.Value{p.Name, p.Target(), roles, p.Predicate}
}

// rlsChange checks what every policy change needs (outside an explicit
// transaction, on the member that takes writes) and audits the outcome.
func (db *DB) rlsChange(c *procs.Context, action, name string, fn func() error) error {
	err := func() error {
		if access.InExplicitTransaction(c.Ctx) {
			return errs.New(errs.CodeTransaction, errs.CatTransaction,
				"a policy change commits on its own; run quiver.rls.%s outside a transaction", action)
		}
		if err := db.Writable(); err != nil {
			return err
		}
		return fn()
	}()
	outcome, detail := access.OutcomeSuccess, action+" "+name
	if err != nil {
		outcome = access.OutcomeFailure
		if e, ok := errs.As(err); ok {
			detail += ": " + e.Message
		}
	}
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "security", Action: "rls_" + action, Outcome: outcome, Detail: detail})
	return err
}

func (db *DB) rlsCreate(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	name, _ := args[0].(string)
	var p *access.Policy
	err := db.rlsChange(c, "createPolicy", name, func() error {
		var err error
		if p, err = policyOf(name, args[1]); err != nil {
			return err
		}
		if err := access.CheckPolicy(p); err != nil {
			return err
		}
		recs := []system.Record{{Key: access.PolicyKey(name), Value: access.EncodePolicy(p)}}
		created, err := db.SystemPutIfAbsent(c.Ctx, access.PolicyKey(name), recs)
		if err != nil {
			return err
		}
		if !created {
			return errs.New(errs.CodeObjectExists, errs.CatObjectExists, "the policy %q already exists", name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{policyRow(p)}, nil
}

// policyOf reads createPolicy's arguments.
func policyOf(name string, opts vector.Value) (*access.Policy, error) {
	if name == "" {
		return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: name must be a non-empty string")
	}
	m, ok := opts.(map[string]vector.Value)
	if !ok {
		return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: options must be a map {label or type, roles, predicate}")
	}
	p := &access.Policy{Name: name}
	for k, v := range m {
		switch k {
		case "label", "type", "predicate":
			s, ok := v.(string)
			if !ok {
				return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: %s must be a string", k)
			}
			switch k {
			case "label":
				p.Label = s
			case "type":
				p.Type = s
			default:
				p.Predicate = s
			}
		case "roles":
			l, ok := v.([]vector.Value)
			if !ok {
				return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: roles must be a list of role names")
			}
			for _, r := range l {
				s, ok := r.(string)
				if !ok {
					return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: roles must be a list of role names")
				}
				p.Roles = append(p.Roles, s)
			}
		default:
			return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.rls.createPolicy: unknown option %q (label, type, roles, predicate)", k)
		}
	}
	return p, nil
}

func (db *DB) rlsDrop(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	name, _ := args[0].(string)
	err := db.rlsChange(c, "dropPolicy", name, func() error {
		if _, ok := db.SystemGet(access.PolicyKey(name)); !ok || name == "" {
			return errs.New(errs.CodeNoObject, errs.CatNoObject, "there is no policy %q", name)
		}
		return db.SystemPut(c.Ctx, []system.Record{{Key: access.PolicyKey(name)}})
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{name}}, nil
}

func (db *DB) rlsList(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	var rows [][]vector.Value
	ps, err := db.policies()
	for _, p := range ps {
		rows = append(rows, policyRow(p))
	}
	return rows, err
}

// ChangeFeedAllowed is nil when p may read the change stream: always,
// unless a policy that applies to p has a predicate an event's values
// cannot decide (rls_changes.go), which is refused (42501). A frontend
// checks at subscription and before each batch it sends, so that such a
// policy created later ends a running subscription too; the feed itself
// filters its events (SubscribeOptions.Restrict, RestrictChanges).
func (db *DB) ChangeFeedAllowed(p *Principal) error {
	return db.changesDecidable(p)
}
