package engine

import (
	"encoding/binary"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
	"github.com/quiverdb/quiver/engine/plancache"
)

// prepare makes the optimized plan of a query and checks the principal's
// privileges on it: bound and optimized afresh, or taken from the plan
// cache (engine/plancache) when a plan made for the same text, parameter
// types, rules, procedures, schema and index statistics is there. It
// takes the statement's snapshot (st.snap).
func (st *statementRun) prepare(stmt *gql.Statement, text string) (*plan.Plan, error) {
	db := st.s.db
	// Row-level security is bound into the plan: a restricted
	// principal's plans are made for it alone and never cached.
	sec, err := db.security(st.ctx)
	if err != nil {
		return nil, err
	}
	// Field-level encryption is bound into the plan too: the fields of
	// the statement's snapshot, and the plan cache keys by their epoch.
	if st.snap == nil {
		st.takeSnapshot()
	}
	fields := db.fleConfig(st.snap)
	st.fields = fieldReader(st.ctx, fields)
	var buf [256]byte
	var key []byte
	if db.plans != nil && sec == nil {
		key = plancache.Key(buf[:0], text, db.opts.DisabledRules, st.params)
		if fields != nil {
			key = binary.AppendUvarint(append(key, 0xff), fields.Epoch)
		}
	}
	if key != nil {
		if e := db.plans.Get(key); e != nil {
			if e.Fits(db.procs.Version(), st.snap) {
				db.plans.Hits.Add(1)
				if testHookPlanHit != nil {
					testHookPlanHit(st, stmt, e)
				}
				return st.reuse(e.Plan)
			}
		}
		db.plans.Misses.Add(1)
	}
	// The registry's version before binding: a procedure registered
	// while binding makes the entry stale, never wrongly fresh.
	procs := db.procs.Version()
	// 2. Bind.
	p, err := plan.Bind(stmt, plan.Env{Params: st.params, Procs: db.procs, Options: db.planOptions(), Security: sec, Fields: planFields(fields)})
	if err != nil {
		return nil, err
	}
	// 3. Check privileges, on the bound plan: what it writes and calls
	// is what runs. Checked before optimizing, so that a statement the
	// principal may not run costs no planning, and what the optimizer
	// refuses (a hint naming an index) tells such a principal nothing.
	if err := st.authorize(p); err != nil {
		return nil, err
	}
	// Then what row-level security refuses (plan/security.go).
	if err := sec.CheckWrites(p.Root); err != nil {
		return nil, err
	}
	if err := sec.CheckCalls(p.Calls); err != nil {
		return nil, err
	}
	// 4. Optimize, with the indexes of the statement's snapshot.
	if st.snap == nil {
		st.takeSnapshot()
	}
	infos := indexInfos(st.snap)
	if err := opt.Optimize(p, infos); err != nil {
		return nil, err
	}
	if key != nil && !p.ValueBound {
		db.plans.Put(string(key), &plancache.Entry{Plan: p, Procs: procs, Schema: st.snap.Schema(), Infos: infos})
	}
	return p, nil
}

// testHookPlanHit, when set by a test, sees every plan the cache serves,
// with what a fresh plan would be made from (export_test.go compares).
var testHookPlanHit func(st *statementRun, stmt *gql.Statement, e *plancache.Entry)

// reuse runs a cached plan's checks for this run: the parameter values
// binding would have checked, then the privileges.
func (st *statementRun) reuse(p *plan.Plan) (*plan.Plan, error) {
	if err := p.Recheck(st.params); err != nil {
		return nil, err
	}
	if err := st.authorize(p); err != nil {
		return nil, err
	}
	return p, nil
}

// authorize checks the principal's privileges on the bound plan p.
func (st *statementRun) authorize(p *plan.Plan) error {
	return access.Authorize(st.ctx, st.s.db.trail(), func() []access.Need { return access.QueryNeeds(p, st.mode == ModeExplain) })
}

// takeSnapshot sets the snapshot the statement plans and reads on: its
// transaction's view, or the latest version.
func (st *statementRun) takeSnapshot() {
	if st.txn != nil {
		st.snap = st.txn.tx.View()
	} else {
		st.snap = st.s.db.store.Snapshot()
	}
}
