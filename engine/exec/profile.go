package exec

import (
	"slices"
	"time"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Profile collects per-operator work of one PROFILE run. Build wraps every
// physical operator in a profiled shell when Context.Profile is set; a
// query without PROFILE has no shells at all, so it pays nothing.
//
// Counters are kept per logical operator: OPTIONAL MATCH rebuilds its
// inner operators for each input batch, and all those instances add up
// into one entry. Time and db hits are measured around each Next call,
// which includes the calls into the operator's inputs; Operators subtracts
// the children's share so each entry reports its own work.
type Profile struct {
	ops   map[plan.Operator]*OpProfile
	order []plan.Operator
}

// OpProfile is one operator's counters.
type OpProfile struct {
	Name string
	// Rows is the number of rows the operator produced.
	Rows int64
	// Time and DBHits are the operator's own share (see Profile).
	Time   time.Duration
	DBHits int64
	// Index names the index the operator read; empty when it read none.
	Index string
	// Fallbacks name the strategies chosen for the operator
	// (plan.StrategiesOf) that a guard seeing the data sent back to the
	// general path, with the reason: "parallel: one morsel".
	Fallbacks []string
	Plan      plan.Operator

	incTime time.Duration
	incHits int64
}

// NewProfile returns an empty profile.
func NewProfile() *Profile { return &Profile{ops: map[plan.Operator]*OpProfile{}} }

func (p *Profile) entry(op plan.Operator) *OpProfile {
	e, ok := p.ops[op]
	if !ok {
		e = &OpProfile{Name: plan.OperatorName(op), Plan: op}
		p.ops[op] = e
		p.order = append(p.order, op)
	}
	return e
}

// Operators returns the entries of the plan rooted at root in pre-order
// (root first, then each child's subtree), with exclusive time and hits.
// Operators that never ran (a branch not reached) appear with zeros.
func (p *Profile) Operators(root plan.Operator) []*OpProfile {
	var out []*OpProfile
	var walk func(op plan.Operator)
	walk = func(op plan.Operator) {
		e := p.entry(op)
		e.Time, e.DBHits = e.incTime, e.incHits
		for _, c := range op.Children() {
			ce := p.entry(c)
			e.Time -= ce.incTime
			e.DBHits -= ce.incHits
		}
		// Clock reads of nested calls do not subtract exactly; never
		// report a negative share.
		e.Time = max(e.Time, 0)
		e.DBHits = max(e.DBHits, 0)
		out = append(out, e)
		for _, c := range op.Children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// profiled measures one physical operator.
type profiled struct {
	c  *Context
	in Operator
	e  *OpProfile
}

func (p *profiled) Next() (*vector.Batch, error) {
	hits := p.c.Counters.DBHits
	start := time.Now()
	b, err := p.in.Next()
	p.e.incTime += time.Since(start)
	p.e.incHits += p.c.Counters.DBHits - hits
	if b != nil {
		p.e.Rows += int64(b.Rows())
	}
	return b, err
}

// fellBack notes, for PROFILE, that a guard sent operator p back from
// strategy to the general path, and why.
func (c *Context) fellBack(p plan.Operator, strategy, why string) {
	if c.Profile == nil {
		return
	}
	c.Profile.entry(p).addFallback(strategy + ": " + why)
}

// addFallback adds note to e's fallbacks, once: a guard may turn a
// strategy down on every batch, and on every worker.
func (e *OpProfile) addFallback(note string) {
	if !slices.Contains(e.Fallbacks, note) {
		e.Fallbacks = append(e.Fallbacks, note)
	}
}

// profile wraps op when c profiles.
func (c *Context) profile(p plan.Operator, op Operator) Operator {
	if c.Profile == nil {
		return op
	}
	return &profiled{c: c, in: op, e: c.Profile.entry(p)}
}
