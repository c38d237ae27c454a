package functions

import (
	"strings"

	"github.com/quiverdb/quiver/vector"
)

// The string operators STARTS WITH, ENDS WITH, CONTAINS and =~. Each is
// null unless both operands are strings. engine/expr runs their Predicate
// over whole STRING vectors and compiles =~'s pattern once.
var stringOps = map[string]func(s, p string) bool{
	OpStartsWith: strings.HasPrefix,
	OpEndsWith:   strings.HasSuffix,
	OpContains:   strings.Contains,
}

func init() {
	fns := map[string]Func{
		OpRegex: {Min: 2, Max: 2, Result: vector.Bool, Doc: "s =~ pattern — the whole string matches", Compiled: true},
	}
	docs := map[string]string{OpStartsWith: "s STARTS WITH p", OpEndsWith: "s ENDS WITH p", OpContains: "s CONTAINS p"}
	for name, op := range stringOps {
		fns[name] = Func{Min: 2, Max: 2, Result: vector.Bool, Doc: docs[name], Kernel: stringPredicate(op), Predicate: op}
	}
	register(fns)
}

func stringPredicate(op func(s, p string) bool) Kernel {
	return func(_ Env, a []vector.Value) (vector.Value, error) {
		s, ok1 := a[0].(string)
		p, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return nil, nil
		}
		return op(s, p), nil
	}
}
