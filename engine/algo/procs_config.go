package algo

import (
	"math"
	"slices"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// algoConfig reads the configuration map of one algo.* call
// (docs/algorithms.md): typed getters that record the keys they read, so
// that done can refuse the keys no getter asked for. Every error is 22023
// and names the procedure and the key.
type algoConfig struct {
	proc string
	m    map[string]vector.Value
	used map[string]bool
}

func newAlgoConfig(proc string, arg vector.Value) (*algoConfig, error) {
	c := &algoConfig{proc: proc, used: map[string]bool{}}
	switch m := arg.(type) {
	case nil:
	case map[string]vector.Value:
		c.m = m
	default:
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the configuration must be a MAP", proc)
	}
	return c, nil
}

func (c *algoConfig) bad(key, format string, args ...any) error {
	return errs.DataCode(errs.CodeInvalidParam, "%s: configuration key %s "+format, append([]any{c.proc, key}, args...)...)
}

// get is key's value, nil when absent or null.
func (c *algoConfig) get(key string) vector.Value {
	c.used[key] = true
	return c.m[key]
}

// done refuses the keys no getter read.
func (c *algoConfig) done() error {
	var unknown []string
	for k := range c.m {
		if !c.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	e := errs.DataCode(errs.CodeInvalidParam, "%s: unknown configuration key %s", c.proc, unknown[0])
	best, bestD := "", 0
	for k := range c.used {
		if d := errs.EditDistance(strings.ToLower(unknown[0]), strings.ToLower(k)); best == "" || d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if best != "" && bestD <= max(2, len(unknown[0])/3) {
		e.Suggestion = "did you mean " + best + "?"
	}
	return e
}

func (c *algoConfig) integer(key string, def, lo int64) (int64, error) {
	switch x := c.get(key).(type) {
	case nil:
		return def, nil
	case int64:
		if x < lo {
			return 0, c.bad(key, "must be at least %d, not %d", lo, x)
		}
		return x, nil
	}
	return 0, c.bad(key, "must be an INTEGER")
}

func (c *algoConfig) float(key string, def, lo, hi float64, hiOpen bool) (float64, error) {
	var f float64
	switch x := c.get(key).(type) {
	case nil:
		return def, nil
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, c.bad(key, "must be a FLOAT")
	}
	if math.IsNaN(f) || f < lo || f > hi || hiOpen && f == hi {
		end := "]"
		if hiOpen {
			end = ")"
		}
		return 0, c.bad(key, "must be in [%g, %g%s, not %g", lo, hi, end, f)
	}
	return f, nil
}

func (c *algoConfig) boolean(key string, def bool) (bool, error) {
	switch x := c.get(key).(type) {
	case nil:
		return def, nil
	case bool:
		return x, nil
	}
	return false, c.bad(key, "must be a BOOLEAN")
}

func (c *algoConfig) str(key string) (string, bool, error) {
	switch x := c.get(key).(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	}
	return "", false, c.bad(key, "must be a STRING")
}

// names reads a STRING or a LIST of STRING.
func (c *algoConfig) names(key string) ([]string, bool, error) {
	switch x := c.get(key).(type) {
	case nil:
		return nil, false, nil
	case string:
		return []string{x}, true, nil
	case []vector.Value:
		out := make([]string, 0, len(x))
		for _, v := range x {
			s, ok := v.(string)
			if !ok {
				return nil, false, c.bad(key, "must be a STRING or a LIST of STRING")
			}
			out = append(out, s)
		}
		return out, true, nil
	}
	return nil, false, c.bad(key, "must be a STRING or a LIST of STRING")
}

// nodeID reads a NODE or an INTEGER node id.
func nodeID(v vector.Value) (uint64, bool) {
	switch x := v.(type) {
	case vector.NodeRef:
		return uint64(x), true
	case int64:
		if x >= 0 {
			return uint64(x), true
		}
	}
	return 0, false
}

func (c *algoConfig) node(key string, required bool) (uint64, bool, error) {
	v := c.get(key)
	if v == nil {
		if required {
			return 0, false, errs.DataCode(errs.CodeInvalidParam, "%s: configuration key %s is required", c.proc, key)
		}
		return 0, false, nil
	}
	id, ok := nodeID(v)
	if !ok {
		return 0, false, c.bad(key, "must be a NODE or a node id (a non-negative INTEGER)")
	}
	return id, true, nil
}

func (c *algoConfig) nodeList(key string) ([]uint64, bool, error) {
	v := c.get(key)
	if v == nil {
		return nil, false, nil
	}
	l, ok := v.([]vector.Value)
	if !ok {
		return nil, false, c.bad(key, "must be a LIST of NODE or node ids")
	}
	out := make([]uint64, 0, len(l))
	for _, x := range l {
		id, ok := nodeID(x)
		if !ok {
			return nil, false, c.bad(key, "must be a LIST of NODE or node ids")
		}
		out = append(out, id)
	}
	return out, true, nil
}

// projection reads the common keys: nodeLabels, relationshipTypes,
// direction (or orientation) and concurrency.
func (c *algoConfig) projection(cat *catalog.Catalog) (Projection, int, error) {
	var p Projection
	labels, ok, err := c.names("nodeLabels")
	if err != nil {
		return p, 0, err
	}
	if ok {
		p.FilterLabels = true
		for _, n := range labels {
			if l, found := cat.LookupLabel(n); found {
				p.Labels = append(p.Labels, l)
			}
		}
	}
	types, ok, err := c.names("relationshipTypes")
	if err != nil {
		return p, 0, err
	}
	if ok {
		for _, n := range types {
			if t, found := cat.LookupType(n); found && !slices.Contains(p.Types, t) {
				p.Types = append(p.Types, t)
			}
		}
	} else {
		p.Types = cat.Types()
	}
	dir, hasDir, err := c.str("direction")
	if err != nil {
		return p, 0, err
	}
	orient, hasOrient, err := c.str("orientation")
	if err != nil {
		return p, 0, err
	}
	key := "direction"
	switch {
	case hasDir && hasOrient:
		return p, 0, errs.DataCode(errs.CodeInvalidParam, "%s: give direction or orientation, not both", c.proc)
	case hasOrient:
		dir, key = orient, "orientation"
	}
	switch strings.ToUpper(dir) {
	case "", "NATURAL":
		p.Dir = Natural
	case "REVERSE":
		p.Dir = Reverse
	case "UNDIRECTED":
		p.Dir = Undirected
	default:
		return p, 0, c.bad(key, "must be 'NATURAL', 'REVERSE' or 'UNDIRECTED', not %q", dir)
	}
	workers, err := c.integer("concurrency", 0, 1)
	return p, int(workers), err
}
