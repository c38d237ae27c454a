package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// The path functions: building a named path, and nodes(), relationships()
// (rels()) and length() of one.
func init() {
	scalarFuncs[plan.FnPath] = pathFromParts
	scalarFuncs["nodes"] = func(_ *Env, a []vector.Value) (vector.Value, error) {
		p, ok, err := pathArg("nodes", a[0])
		if !ok {
			return nil, err
		}
		l := make([]vector.Value, len(p.Nodes))
		for i, n := range p.Nodes {
			l[i] = vector.NodeRef(n)
		}
		return l, nil
	}
	rels := func(_ *Env, a []vector.Value) (vector.Value, error) {
		p, ok, err := pathArg("relationships", a[0])
		if !ok {
			return nil, err
		}
		return RelsValue(p.Rels), nil
	}
	scalarFuncs["relationships"] = rels
	scalarFuncs["rels"] = rels
	scalarFuncs[plan.FnPathLength] = func(_ *Env, a []vector.Value) (vector.Value, error) {
		p, ok, err := pathArg("length", a[0])
		if !ok {
			return nil, err
		}
		return int64(len(p.Rels)), nil
	}
	// length() of a value the plan did not know to be a path: paths are
	// answered here, anything else by the general length().
	general := scalarFuncs["length"]
	scalarFuncs["length"] = func(c *Env, a []vector.Value) (vector.Value, error) {
		if p, ok := a[0].(vector.Path); ok {
			return int64(len(p.Rels)), nil
		}
		if general != nil {
			return general(c, a)
		}
		if a[0] == nil {
			return nil, nil
		}
		return nil, errs.Data("length() expects a path, got %s", TypeName(a[0]))
	}
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

// pathFromParts is plan.FnPath: first node, then (hop, reversed, node) triples
// where a hop is a relationship or a var-length segment.
func pathFromParts(_ *Env, a []vector.Value) (vector.Value, error) {
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
