package functions

import (
	"fmt"
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Func is one scalar function: its signature, its type rules and its
// kernel, registered together by the file that implements it.
type Func struct {
	// Name is the lower-case name calls are looked up by; namespaced
	// functions are dotted (datetime.fromepoch). Operator functions
	// start with '#' and cannot be called by name.
	Name string
	// Min and Max bound the number of arguments.
	Min, Max int
	// Result is the static result type, vector.Any when the values decide
	// (the planner refines some from the arguments' types); Kind names a
	// generic result the plan knows (LIST, MAP, DATE, …).
	Result vector.Type
	Kind   string
	// Elem is the type of every element of a LIST result when the
	// function fixes it (range: INTEGER, split: STRING), so that UNWIND
	// and comprehensions type their variable; Null (the zero value) when
	// the values decide.
	Elem vector.Type
	// Doc is the one-line usage SHOW FUNCTIONS lists.
	Doc string
	// Args are the kinds each argument may have, by position; the last
	// entry repeats for further arguments, and nil takes anything. The
	// planner refuses an argument of a known kind outside them; the
	// kernel checks the rest when the query runs.
	Args []ArgKind
	// Kernel computes the function for one row of generic values. It is
	// nil only for a function engine/expr evaluates itself (Compiled).
	Kernel Kernel
	// Float is the FLOAT function a numeric function computes, which
	// engine/expr runs over whole vectors; nil for the others.
	Float func(float64) float64
	// Predicate is a string operator's typed form (STARTS WITH, …),
	// which engine/expr runs over whole STRING vectors.
	Predicate func(s, p string) bool
	// Compiled marks a function only engine/expr's own evaluator can
	// compute: arguments evaluated lazily (coalesce, CASE) or a pattern
	// compiled once per query (=~).
	Compiled bool
}

// Kernel computes a function of one row's argument values. Null handling
// is the kernel's: most return null for a null argument.
type Kernel func(env Env, args []vector.Value) (vector.Value, error)

// catalog holds every function by name; the files of this package fill it
// at init, each registering the functions it implements.
var catalog = map[string]*Func{}

// register adds functions to the catalog under the map's keys. A name
// registered twice, or a function with neither a kernel nor an evaluator
// of its own, is a programming error that any test catches.
func register(fns map[string]Func) {
	for name, f := range fns {
		if _, dup := catalog[name]; dup {
			panic("BUG: functions: " + name + " registered twice")
		}
		if f.Kernel == nil && !f.Compiled {
			panic("BUG: functions: " + name + " has no kernel")
		}
		f.Name = name
		catalog[name] = &f
	}
}

// Lookup returns the function of a lower-case name.
func Lookup(name string) (*Func, bool) {
	f, ok := catalog[name]
	return f, ok
}

// All returns the functions users can call, sorted by name.
func All() []*Func {
	out := make([]*Func, 0, len(catalog))
	for name, f := range catalog {
		if name[0] != '#' {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Accepts reports whether the function takes an argument of kind k at
// position i; an unknown kind (0) is checked when the query runs.
func (f *Func) Accepts(i int, k ArgKind) bool {
	if len(f.Args) == 0 || k == 0 {
		return true
	}
	return k&f.Args[min(i, len(f.Args)-1)] != 0
}

// ArgKind is a set of static argument kinds, for the planner's argument
// type check.
type ArgKind uint16

// The argument kinds.
const (
	ArgBool ArgKind = 1 << iota
	ArgInt
	ArgFloat
	ArgString
	ArgList
	ArgMap
	ArgNode
	ArgRel
	ArgPath
	ArgOther // temporal values

	ArgNum    = ArgInt | ArgFloat
	ArgScalar = ArgBool | ArgNum | ArgString | ArgOther
)

// args is a list of argument kinds, one per position.
func args(kinds ...ArgKind) []ArgKind { return kinds }

// Operator functions implement operators that have no typed kernel of
// their own in the plan; users cannot call them by name.
const (
	OpStartsWith = "#startswith"
	OpEndsWith   = "#endswith"
	OpContains   = "#contains"
	OpRegex      = "#regex"
	OpIn         = "#in"
	OpIndex      = "#index"
	OpSlice      = "#slice"
	OpCase       = "#case"
	// OpPath builds a named path from its parts; OpPathLength is length()
	// of a PATH: the number of relationships.
	OpPath       = "#path"
	OpPathLength = "#pathlength"
)

// bug is the error of a broken invariant: a plan the binder should never
// have produced.
func bug(format string, args ...any) error {
	return errs.Internal("internal error: %s", fmt.Sprintf(format, args...))
}
