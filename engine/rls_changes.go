package engine

import (
	"context"
	"sync"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Row-level security over the change stream and cdc.changes
// (docs/row-security.md): a restricted principal's feeds keep only the
// changes of elements its policies admit, judged on the values the event
// carries (plan.OnElementValues): a node in the state the event shows
// last (after a create or update, before a delete), a relationship by its
// own type's policies and its two endpoints' (read at the commit's
// version when delivered live, at the latest one when read back from the
// change log: an endpoint gone by then is hidden). The policies are read
// for every batch, so a policy created or dropped applies to running
// subscriptions at once.

// ChangeRestrictor keeps of a change batch what a subscriber may see.
type ChangeRestrictor = changes.Restrictor

// RestrictChanges returns the restrictor of p's change feeds
// (SubscribeOptions.Restrict); nil when no policy can restrict p (an
// admin, no principal).
func (db *DB) RestrictChanges(p *Principal) ChangeRestrictor {
	if !access.Restricted(p) {
		return nil
	}
	r := &changeJudge{db: db, p: p}
	return r.restrict
}

// changeJudge caches the principal's security for one policy generation.
type changeJudge struct {
	db *DB
	p  *Principal

	mu  sync.Mutex
	gen uint64
	sec *plan.Security
	err error
	set bool

	// The tests of sec and their cached answers (rls_verdicts.go), used
	// under mu.
	nodes, rels *verdicts
}

// security is the principal's security at the current policy
// generation; called with j.mu held.
func (j *changeJudge) security() (*plan.Security, error) {
	gen := j.db.rls.gen.Load()
	if !j.set || gen != j.gen {
		ps, err := j.db.policies()
		j.sec, j.err, j.gen, j.set = nil, err, gen, true
		if err == nil {
			j.sec, j.err = access.SecurityFor(j.p, ps)
		}
		j.nodes, j.rels = nil, nil
		if j.err == nil && j.sec.Restricts() {
			j.nodes, j.rels = newVerdicts(j.sec.NodeTest()), newVerdicts(j.sec.RelTest())
		}
	}
	return j.sec, j.err
}

func (j *changeJudge) restrict(rec *storage.CommitRecord, b changes.Batch) (changes.Batch, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	sec, err := j.security()
	if err != nil {
		j.db.log.Error("row-level security: a change batch is withheld: the policies cannot be read", "err", err)
		return changes.Batch{}, false
	}
	if !sec.Restricts() {
		return b, true
	}
	if b.Bulk != nil {
		// The summary's counts and names would count hidden elements.
		return changes.Batch{LSN: b.LSN, TS: b.TS, CommittedAt: b.CommittedAt, Bulk: &changes.Bulk{}}, true
	}
	out := changes.Batch{LSN: b.LSN, TS: b.TS, CommittedAt: b.CommittedAt}
	for _, c := range b.Changes {
		if c.Entity == changes.Node {
			if shown, ok := nodeShown(j.nodes, &c); ok {
				out.Changes = append(out.Changes, shown)
			}
			continue
		}
		if relShown(j.rels, &c) && j.endpointShown(j.nodes, rec, c.Start) && j.endpointShown(j.nodes, rec, c.End) {
			out.Changes = append(out.Changes, c)
		}
	}
	return out, len(out.Changes) > 0
}

// nodeShown is a node change as the principal sees it: an update whose
// before-image it may not see loses it.
func nodeShown(test *verdicts, c *changes.Change) (changes.Change, bool) {
	switch c.Op {
	case changes.Created:
		return *c, test.admits(nodeElement(c.ID, c.Labels, c.After))
	case changes.Deleted:
		return *c, test.admits(nodeElement(c.ID, c.Labels, c.Before))
	}
	if !test.admits(nodeElement(c.ID, c.Labels, c.After)) {
		return *c, false
	}
	out := *c
	if !test.admits(nodeElement(c.ID, labelsBefore(c), c.Before)) {
		out.Before, out.LabelsAdded, out.LabelsRemoved = nil, nil, nil
	}
	return out, true
}

func labelsBefore(c *changes.Change) []string {
	var out []string
	for _, l := range c.Labels {
		if !contains(c.LabelsAdded, l) {
			out = append(out, l)
		}
	}
	return append(out, c.LabelsRemoved...)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func relShown(test *verdicts, c *changes.Change) bool {
	props := c.After
	if c.Op == changes.Deleted {
		props = c.Before
	}
	el := &plan.Element{ID: c.ID, Rel: true, Type: c.Type, Props: valuesOf(props)}
	return test.admits(el)
}

// endpointShown judges a relationship's endpoint as the version the
// change came from holds it (the latest version for a logged change).
func (j *changeJudge) endpointShown(test *verdicts, rec *storage.CommitRecord, id uint64) bool {
	if test.test == nil {
		return true
	}
	snaps := []*storage.Snapshot{j.db.store.Snapshot()}
	if rec != nil {
		snaps = []*storage.Snapshot{rec.Version, rec.Base}
	}
	cat := j.db.store.Catalog()
	for _, s := range snaps {
		if id > 1<<32-1 || !s.LiveNodes().Contains(uint32(id)) {
			continue
		}
		var labels []string
		for _, l := range s.AppendNodeLabels(nil, id) {
			labels = append(labels, cat.LabelName(l))
		}
		props := map[string]vector.Value{}
		s.NodeProps(id, func(k catalog.KeyID, v vector.Value) { props[cat.KeyName(k)] = v })
		return test.admits(&plan.Element{ID: id, Labels: labels, Props: props})
	}
	return false
}

func nodeElement(id uint64, labels []string, props []changes.Property) *plan.Element {
	return &plan.Element{ID: id, Labels: labels, Props: valuesOf(props)}
}

func valuesOf(props []changes.Property) map[string]vector.Value {
	m := make(map[string]vector.Value, len(props))
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

// admits evaluates a visibility test on an element's values: true only
// when the test is true (null, an error or a test the values cannot
// answer hide the element).
func admits(test plan.Expr, el *plan.Element) bool {
	if test == nil {
		return true
	}
	closed, ok := plan.OnElementValues(test, el)
	if !ok {
		return false
	}
	ev, err := expr.Compile(&expr.Env{Ctx: context.Background()}, closed)
	if err != nil {
		return false
	}
	v, err := ev.Eval(&vector.Batch{Len: 1})
	if err != nil {
		return false
	}
	b, _ := v.Get(0).(bool)
	return b
}

// changesDecidable is nil when every policy that applies to p can be
// judged on an event's values; else the 42501 error that says which
// cannot.
func (db *DB) changesDecidable(p *Principal) error {
	if !access.Restricted(p) {
		return nil
	}
	ps, err := db.policies()
	if err != nil {
		return err
	}
	for _, pol := range ps {
		if !pol.Applies(p.Roles) {
			continue
		}
		sec, err := access.SecurityFor(p, []*access.Policy{pol})
		if err != nil {
			return err
		}
		probe := &plan.Element{Labels: []string{pol.Label}, Type: pol.Type, Rel: pol.Type != "", Props: map[string]vector.Value{}}
		test := sec.NodeTest()
		if probe.Rel {
			test = sec.RelTest()
		}
		if test != nil {
			if _, ok := plan.OnElementValues(test, probe); !ok {
				return errs.New(errs.CodePermission, errs.CatPermission,
					"the change stream cannot apply policy %q to you: its predicate reads more than the element's own labels and properties (docs/row-security.md)", pol.Name)
			}
		}
	}
	return nil
}
