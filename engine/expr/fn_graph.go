package expr

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Graph functions: ids, labels, types, endpoints, property keys and maps,
// and degrees read from the adjacency of the query's snapshot.
func init() {
	register(map[string]scalarFunc{
		"id":         fnID,
		"labels":     fnLabels,
		"type":       fnType,
		"keys":       fnKeys,
		"properties": fnProperties,
		"startnode":  func(c *Env, a []vector.Value) (vector.Value, error) { return endpoint(c, a[0], true) },
		"endnode":    func(c *Env, a []vector.Value) (vector.Value, error) { return endpoint(c, a[0], false) },
		"outdegree":  func(c *Env, a []vector.Value) (vector.Value, error) { return degree(c, a, storage.Outgoing) },
		"indegree":   func(c *Env, a []vector.Value) (vector.Value, error) { return degree(c, a, storage.Incoming) },
	})
}

func fnID(_ *Env, a []vector.Value) (vector.Value, error) {
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

func fnLabels(c *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.NodeRef:
		if err := c.CheckDeletedValue(x); err != nil {
			return nil, err
		}
		ids := c.Tx.AppendNodeLabels(nil, uint64(x))
		out := make([]vector.Value, len(ids))
		for i, l := range ids {
			out[i] = c.Catalog.LabelName(l)
		}
		return out, nil
	}
	return nil, argError("labels", a[0])
}

func fnType(c *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case vector.RelRef:
		t, _, _, ok := c.Tx.Rel(uint64(x))
		if !ok {
			d, deleted := c.Deleted.Rel(uint64(x))
			if !deleted {
				return nil, nil
			}
			t = d.T // a deleted relationship keeps its type
		}
		return c.Catalog.TypeName(t), nil
	}
	return nil, argError("type", a[0])
}

func endpoint(c *Env, v vector.Value, start bool) (vector.Value, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case vector.RelRef:
		_, src, dst, ok := c.Tx.Rel(uint64(x))
		if !ok {
			d, deleted := c.Deleted.Rel(uint64(x))
			if !deleted {
				return nil, nil
			}
			src, dst = d.Src, d.Dst
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

// EntityProps calls fn for each property of a node or relationship.
func EntityProps(c *Env, v vector.Value, fn func(k catalog.KeyID, val vector.Value)) (bool, error) {
	if err := c.CheckDeletedValue(v); err != nil {
		return true, err
	}
	switch x := v.(type) {
	case vector.NodeRef:
		c.Tx.NodeProps(uint64(x), fn)
	case vector.RelRef:
		c.Tx.RelProps(uint64(x), fn)
	default:
		return false, nil
	}
	return true, nil
}

func fnKeys(c *Env, a []vector.Value) (vector.Value, error) {
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
	if ok, err := EntityProps(c, a[0], func(k catalog.KeyID, _ vector.Value) { out = append(out, c.Catalog.KeyName(k)) }); !ok || err != nil {
		if err != nil {
			return nil, err
		}
		return nil, argError("keys", a[0])
	}
	return out, nil
}

func fnProperties(c *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case map[string]vector.Value:
		return x, nil
	}
	out := map[string]vector.Value{}
	if ok, err := EntityProps(c, a[0], func(k catalog.KeyID, v vector.Value) { out[c.Catalog.KeyName(k)] = v }); !ok || err != nil {
		if err != nil {
			return nil, err
		}
		return nil, argError("properties", a[0])
	}
	return out, nil
}

// degree counts a node's relationships in direction d, of every type or of
// the one named by the second argument. A self-loop counts once each way.
func degree(c *Env, a []vector.Value, d storage.Direction) (vector.Value, error) {
	name := "outdegree"
	if d == storage.Incoming {
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
	if len(a) > 1 {
		switch t := a[1].(type) {
		case nil:
			return nil, nil
		case string:
			tid, ok := c.Catalog.LookupType(t)
			if !ok {
				return int64(0), nil
			}
			return int64(nodeDegree(c, id, tid, d)), nil
		default:
			return nil, errs.Data("%s() takes a relationship type name as its second argument, got %s", name, TypeName(a[1]))
		}
	}
	total := 0
	for _, t := range c.Catalog.Types() {
		total += nodeDegree(c, id, t, d)
	}
	return int64(total), nil
}

func nodeDegree(c *Env, id uint64, t catalog.TypeID, d storage.Direction) int {
	adj := c.Tx.Adjacency(t, d)
	if adj == nil {
		return 0
	}
	return adj.Degree(id)
}
