package engine

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
	"github.com/quiverdb/quiver/engine/plancache"
	"github.com/quiverdb/quiver/vector"
)

// TestNode and TestRel describe a graph LoadForTest writes straight through
// storage, much faster than statements for the large graphs of tests.
type TestNode struct {
	Labels []string
	Props  map[string]vector.Value
}

type TestRel struct {
	Type     string
	From, To int // indexes into the nodes
	Props    map[string]vector.Value
}

// LoadForTest writes nodes and rels in one transaction.
func LoadForTest(db *DB, nodes []TestNode, rels []TestRel) error {
	cat := db.store.Catalog()
	props := func(m map[string]vector.Value) ([]catalog.KeyID, []vector.Value) {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		var keys []catalog.KeyID
		var vals []vector.Value
		for _, k := range names {
			if m[k] != nil {
				keys = append(keys, cat.EnsureKey(k))
				vals = append(vals, m[k])
			}
		}
		return keys, vals
	}
	tx := db.store.Begin()
	ids := make([]uint64, len(nodes))
	for i, n := range nodes {
		var ls []catalog.LabelID
		for _, l := range n.Labels {
			ls = append(ls, cat.EnsureLabel(l))
		}
		keys, vals := props(n.Props)
		id, err := tx.CreateNode(ls, keys, vals)
		if err != nil {
			tx.Rollback()
			return err
		}
		ids[i] = id
	}
	for _, r := range rels {
		keys, vals := props(r.Props)
		if _, err := tx.CreateRel(cat.EnsureType(r.Type), ids[r.From], ids[r.To], keys, vals); err != nil {
			tx.Rollback()
			return err
		}
	}
	_, err := tx.Commit()
	return err
}

// Abandon drops db as a killed process would: no final checkpoint, the
// log's files closed as they are and the directory's lock released.
// Every acknowledged commit is already synced to the log.
func Abandon(db *DB) {
	db.closed.Store(true)
	db.changes.Abandon()
	if db.dur != nil {
		db.dur.Abandon()
	}
	db.store.WaitCompaction()
	db.unlockDir()
}

// ChangedParseTrees lists the cached statement texts whose syntax tree no
// longer equals a fresh parse of the text: something after the parser
// wrote to a tree that later statements share.
func ChangedParseTrees() []string {
	var changed []string
	for text, st := range gql.CachedStatements() {
		fresh, err := gql.ParseCancel(text, func() error { return nil })
		if err != nil || !reflect.DeepEqual(st, fresh) {
			changed = append(changed, text)
		}
	}
	sort.Strings(changed)
	return changed
}

// SetOwnCommitHook makes f run in every schema and COPY statement that
// begins its own transaction, once it made its change and before it
// commits (nil: none).
func SetOwnCommitHook(f func()) { testHookOwnCommit = f }

// SetCommitHook makes f run as every explicit transaction commits.
func SetCommitHook(f func()) { testHookCommit = f }

// MemoryInUse is what the running statements hold against db's
// server-wide memory budget, and how many hold some.
func MemoryInUse(db *DB) (bytes int64, statements int) {
	if db.mem.Budget() == nil {
		return 0, 0
	}
	return db.mem.Budget().Used(), db.mem.Budget().Running()
}

// ExpireWhileHeld starts tx's expiry while its lock is held (as by a
// statement), waits until the expiry is under way, runs during returns
// what a statement arriving then is told, and lets the expiry finish.
func ExpireWhileHeld(tx *Transaction, during func() error) error {
	tx.mu.Lock()
	done := make(chan struct{})
	go func() { tx.expire(true); close(done) }()
	for !tx.expiring.Load() {
		runtime.Gosched()
	}
	err := during()
	tx.mu.Unlock()
	<-done
	return err
}

// CheckPlanCache makes every plan the plan cache serves, from now until
// the test ends, be compared with the plan binding and optimizing the
// same statement afresh would make: PlanCacheMismatches lists those
// that differ. A cached plan that changed while it ran (something wrote
// to a plan that runs share), or a key that misses something binding
// read, shows there. Plans made with other index statistics than the
// run's (within the factor the cache tolerates) are not compared.
func CheckPlanCache(t interface{ Cleanup(func()) }) {
	testHookPlanHit = comparePlan
	t.Cleanup(func() { testHookPlanHit = nil })
}

var planMismatches struct {
	sync.Mutex
	texts []string
}

// PlanCacheMismatches returns and forgets the texts whose cached plan
// differed from a fresh one (CheckPlanCache).
func PlanCacheMismatches() []string {
	planMismatches.Lock()
	defer planMismatches.Unlock()
	out := planMismatches.texts
	planMismatches.texts = nil
	return out
}

func comparePlan(st *statementRun, stmt *gql.Statement, e *plancache.Entry) {
	infos := indexInfos(st.snap)
	if !reflect.DeepEqual(e.Infos, infos) {
		return
	}
	db := st.s.db
	fresh, err := plan.Bind(stmt, plan.Env{Params: st.params, Procs: db.procs, Options: db.planOptions()})
	if err == nil {
		err = opt.Optimize(fresh, infos)
	}
	if rerr := e.Plan.Recheck(st.params); rerr != nil {
		// The run fails as binding fails: with the same error.
		if err != nil && err.Error() == rerr.Error() {
			return
		}
	} else if err == nil && reflect.DeepEqual(e.Plan, fresh) {
		return
	}
	{
		planMismatches.Lock()
		defer planMismatches.Unlock()
		planMismatches.texts = append(planMismatches.texts, fmt.Sprintf("%s (fresh plan error: %v)", stmt.String(), err))
	}
}

// PlanCacheCounts reports db's plan cache's hits, misses and entries.
func PlanCacheCounts(db *DB) (hits, misses int64, entries int) {
	if db.plans == nil {
		return 0, 0, 0
	}
	return db.plans.Hits.Load(), db.plans.Misses.Load(), db.plans.Len()
}

// SetDisabledRules switches optimizer rules off (Options.DisabledRules)
// on an open database, as the rule benchmarks do between runs.
func SetDisabledRules(db *DB, rules []string) { db.opts.DisabledRules = rules }

// SetParallelism sets the workers a statement may use (Options.Parallelism)
// on an open database.
func SetParallelism(db *DB, n int) { db.opts.Parallelism = n }
