package functions

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The path functions: building a named path, and nodes(), relationships()
// (rels()) and length() of one. length() of a value the plan did not know
// to be a path is the general length() (strings.go), which takes paths too.
func init() {
	rels := func(_ Env, a []vector.Value) (vector.Value, error) {
		p, ok, err := pathArg("relationships", a[0])
		if !ok {
			return nil, err
		}
		return RelsValue(p.Rels), nil
	}
	register(map[string]Func{
		OpPath: {Min: 1, Max: 1 << 16, Result: vector.Any, Kind: "PATH", Doc: "a named path built from its parts", Kernel: pathFromParts},
		OpPathLength: {Min: 1, Max: 1, Result: vector.Int64, Doc: "length(p) of a PATH", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
			p, ok, err := pathArg("length", a[0])
			if !ok {
				return nil, err
			}
			return int64(len(p.Rels)), nil
		}},
		"nodes": {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Doc: "nodes(p) — a path's nodes", Args: args(ArgPath), Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
			p, ok, err := pathArg("nodes", a[0])
			if !ok {
				return nil, err
			}
			l := make([]vector.Value, len(p.Nodes))
			for i, n := range p.Nodes {
				l[i] = vector.NodeRef(n)
			}
			return l, nil
		}},
		"relationships": {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Doc: "relationships(p) — a path's relationships", Args: args(ArgPath), Kernel: rels},
		// rels(p) is Cypher's short name for relationships(p).
		"rels": {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Doc: "rels(p) — a path's relationships", Kernel: rels},
	})
}

// pathArg reads a path argument; ok is false for null (err nil) and for a
// value of another type (err set).
func pathArg(fn string, v vector.Value) (vector.Path, bool, error) {
	switch p := v.(type) {
	case vector.Path:
		return p, true, nil
	case nil:
		return vector.Path{}, false, nil
	}
	return vector.Path{}, false, errs.Data("%s() expects a path, got %s", fn, TypeName(v))
}

// pathFromParts is OpPath: first node, then (hop, reversed, node) triples
// where a hop is a relationship or a var-length segment.
func pathFromParts(_ Env, a []vector.Value) (vector.Value, error) {
	first, ok := a[0].(vector.NodeRef)
	if !ok {
		return nil, nil // an OPTIONAL MATCH that found nothing
	}
	p := vector.Path{Nodes: []uint64{uint64(first)}}
	for i := 1; i+2 < len(a); i += 3 {
		next, ok := a[i+2].(vector.NodeRef)
		if !ok {
			return nil, nil
		}
		switch h := a[i].(type) {
		case vector.RelRef:
			p.Rels = append(p.Rels, uint64(h))
			p.Nodes = append(p.Nodes, uint64(next))
		case vector.Path:
			rev, _ := a[i+1].(bool)
			n := len(h.Rels)
			for k := 0; k < n; k++ {
				if rev {
					p.Rels = append(p.Rels, h.Rels[n-1-k])
					p.Nodes = append(p.Nodes, h.Nodes[n-1-k])
				} else {
					p.Rels = append(p.Rels, h.Rels[k])
					p.Nodes = append(p.Nodes, h.Nodes[k+1])
				}
			}
		case nil:
			return nil, nil
		default:
			return nil, bug("a path hop is a %s", TypeName(h))
		}
	}
	return p, nil
}

// RelsValue is a chain's relationships as a LIST value.
func RelsValue(rels []uint64) []vector.Value {
	l := make([]vector.Value, len(rels))
	for i, r := range rels {
		l[i] = vector.RelRef(r)
	}
	return l
}
