package plan

import "github.com/quiverdb/quiver/engine/procs"

// Plan is a bound statement ready to execute.
type Plan struct {
	Root Operator
	// Writes is set when the statement changes the graph; the engine then
	// runs it to completion and commits before returning rows.
	Writes bool
	// Returns is set when the statement ends with RETURN; otherwise it
	// runs for its side effects and has no result columns or rows.
	Returns bool
	// Calls lists the procedures the statement CALLs, in every part of a
	// UNION, each once: the engine checks the privileges they require on
	// the bound plan, before it runs.
	Calls []*procs.Procedure

	// Fired lists, in the order they first applied, the optimizer rules
	// and passes that changed this plan while it was bound and optimized
	// (EXPLAIN shows them). Rules the executor applies as it runs
	// (rules.go) are not known here.
	Fired []string

	// Hints are the statement's planner hints and Options the rules
	// switched off, bound for the optimizer (engine/plan/opt).
	Hints   *Hints
	Options Options

	// ValueBound is set when the plan holds a parameter's value, not only
	// its type (CREATE (n $props) makes the map's entries constant
	// properties): such a plan is good for that value alone, and a plan
	// cache must not keep it.
	ValueBound bool
	// CountChecks are the checks binding made of a SKIP or LIMIT
	// parameter's value, which a reused plan makes again (Recheck).
	CountChecks []CountCheck
}

// Columns returns the result columns: the root's columns that are not
// hidden, or none when the statement does not end with RETURN.
func (p *Plan) Columns() []Column {
	if !p.Returns {
		return nil
	}
	var out []Column
	for _, c := range p.Root.Columns() {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// addCall records that the plan calls p, once per procedure name.
func addCall(calls []*procs.Procedure, p *procs.Procedure) []*procs.Procedure {
	for _, c := range calls {
		if c.Name == p.Name {
			return calls
		}
	}
	return append(calls, p)
}
