package functions

import (
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Graph functions: ids, labels, types, endpoints, property keys and maps,
// and degrees read from the adjacency of the query's snapshot.
func init() {
	register(map[string]Func{
		"id":         {Min: 1, Max: 1, Result: vector.Int64, Doc: "id(n) — a node's or relationship's id", Args: args(ArgNode | ArgRel), Kernel: fnID},
		"labels":     {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Elem: vector.String, Doc: "labels(n) — a node's labels", Args: args(ArgNode), Kernel: fnLabels},
		"type":       {Min: 1, Max: 1, Result: vector.String, Doc: "type(r) — a relationship's type", Args: args(ArgRel), Kernel: fnType},
		"keys":       {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Elem: vector.String, Doc: "keys(x) — property keys of a node, relationship or map", Args: args(ArgNode | ArgRel | ArgMap), Kernel: fnKeys},
		"properties": {Min: 1, Max: 1, Result: vector.Any, Kind: "MAP", Doc: "properties(x) — properties as a map", Args: args(ArgNode | ArgRel | ArgMap), Kernel: fnProperties},
		"startnode": {Min: 1, Max: 1, Result: vector.Node, Doc: "startNode(r) — a relationship's start node", Args: args(ArgRel),
			Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return endpoint(c, a[0], true) }},
		"endnode": {Min: 1, Max: 1, Result: vector.Node, Doc: "endNode(r) — a relationship's end node", Args: args(ArgRel),
			Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return endpoint(c, a[0], false) }},
		"outdegree": {Min: 1, Max: 2, Result: vector.Int64, Doc: "outdegree(n[, type]) — number of outgoing relationships", Args: args(ArgNode, ArgString),
			Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return degree(c, a, true) }},
		"indegree": {Min: 1, Max: 2, Result: vector.Int64, Doc: "indegree(n[, type]) — number of incoming relationships", Args: args(ArgNode, ArgString),
			Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return degree(c, a, false) }},
	})
}

func fnID(_ Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.NodeRef:
		return int64(x), nil
	case vector.RelRef:
		return int64(x), nil
	}
	return nil, argError("id", a[0])
}

// argError is the runtime error of a function given a value of a type it
// does not take.
func argError(fn string, v vector.Value) error {
	return errs.Data("%s() cannot take an argument of type %s", fn, TypeName(v))
}

func fnLabels(c Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.NodeRef:
		names, err := c.NodeLabels(uint64(x))
		if err != nil {
			return nil, err
		}
		out := make([]vector.Value, len(names))
		for i, l := range names {
			out[i] = l
		}
		return out, nil
	}
	return nil, argError("labels", a[0])
}

func fnType(c Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.RelRef:
		t, _, _, ok := c.Rel(uint64(x))
		if !ok {
			return nil, nil
		}
		return t, nil
	}
	return nil, argError("type", a[0])
}

func endpoint(c Env, v vector.Value, start bool) (vector.Value, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case vector.RelRef:
		_, src, dst, ok := c.Rel(uint64(x))
		if !ok {
			return nil, nil
		}
		if start {
			return vector.NodeRef(src), nil
		}
		return vector.NodeRef(dst), nil
	}
	if start {
		return nil, argError("startNode", v)
	}
	return nil, argError("endNode", v)
}

func fnKeys(c Env, a []vector.Value) (vector.Value, error) {
	out := []vector.Value{}
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, k)
		}
		return out, nil
	}
	if ok, err := c.Properties(a[0], func(k string, _ vector.Value) { out = append(out, k) }); !ok || err != nil {
		if err != nil {
			return nil, err
		}
		return nil, argError("keys", a[0])
	}
	return out, nil
}

func fnProperties(c Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case map[string]vector.Value:
		return x, nil
	}
	out := map[string]vector.Value{}
	if ok, err := c.Properties(a[0], func(k string, v vector.Value) { out[k] = v }); !ok || err != nil {
		if err != nil {
			return nil, err
		}
		return nil, argError("properties", a[0])
	}
	return out, nil
}

// degree counts a node's relationships, outgoing or incoming, of every
// type or of the one named by the second argument.
func degree(c Env, a []vector.Value, outgoing bool) (vector.Value, error) {
	name := "outdegree"
	if !outgoing {
		name = "indegree"
	}
	var id uint64
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.NodeRef:
		id = uint64(x)
	default:
		return nil, argError(name, a[0])
	}
	typ := ""
	if len(a) > 1 {
		switch t := a[1].(type) {
		case nil:
			return nil, nil
		case string:
			if t == "" {
				return int64(0), nil // no type has the empty name
			}
			typ = t
		default:
			return nil, errs.Data("%s() takes a relationship type name as its second argument, got %s", name, TypeName(a[1]))
		}
	}
	return c.Degree(id, typ, outgoing), nil
}
