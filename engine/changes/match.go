package changes

import (
	"slices"

	"github.com/quiverdb/quiver/vector"
)

// Matching a change against a parsed pattern (pattern.go): a
// change matches when its entity matches the pattern before or after
// the commit.

// Matches reports whether c is selected by the pattern: the entity
// matches it before or after the commit.
func (p *Pattern) Matches(c *Change) bool {
	if p.rel != (c.Entity == Relationship) {
		return false
	}
	if p.rel {
		return p.matchesRel(c)
	}
	if c.Op != Created && hasLabels(p.node.labels, func(l string) bool { return labeledBefore(c, l) }) &&
		propsMatch(p.node.props, c.Before) {
		return true
	}
	return c.Op != Deleted && hasLabels(p.node.labels, func(l string) bool { return slices.Contains(c.Labels, l) }) &&
		propsMatch(p.node.props, c.After)
}

// labeledBefore: c's node had label l before the commit.
func labeledBefore(c *Change, l string) bool {
	if slices.Contains(c.LabelsRemoved, l) {
		return true
	}
	return slices.Contains(c.Labels, l) && !slices.Contains(c.LabelsAdded, l)
}

func (p *Pattern) matchesRel(c *Change) bool {
	if len(p.types) > 0 && !slices.Contains(p.types, c.Type) {
		return false
	}
	if !(c.Op != Created && propsMatch(p.relProps, c.Before)) && !(c.Op != Deleted && propsMatch(p.relProps, c.After)) {
		return false
	}
	has := func(labels []string) func(string) bool {
		return func(l string) bool { return slices.Contains(labels, l) }
	}
	fwd := hasLabels(p.node.labels, has(c.StartLabels)) && hasLabels(p.end.labels, has(c.EndLabels))
	back := hasLabels(p.node.labels, has(c.EndLabels)) && hasLabels(p.end.labels, has(c.StartLabels))
	switch p.dir {
	case 1:
		return fwd
	case -1:
		return back
	}
	return fwd || back
}

// MatchesBulk reports whether a bulk commit may hold changes the pattern
// selects: it names the pattern's labels or type (properties and
// endpoints are not looked at).
func (p *Pattern) MatchesBulk(b *Bulk) bool {
	if p.rel {
		if b.RelationshipsCreated+b.RelationshipsUpdated+b.RelationshipsDeleted == 0 {
			return false
		}
		if len(p.types) == 0 {
			return true
		}
		for _, t := range p.types {
			if slices.Contains(b.Types, t) {
				return true
			}
		}
		return false
	}
	return b.NodesCreated+b.NodesUpdated+b.NodesDeleted > 0 &&
		hasLabels(p.node.labels, func(l string) bool { return slices.Contains(b.Labels, l) })
}

func hasLabels(want []string, has func(string) bool) bool {
	for _, l := range want {
		if !has(l) {
			return false
		}
	}
	return true
}

// propsMatch: every pattern property equals the entity's (numbers
// compare by value: 1 matches 1.0).
func propsMatch(want []patProp, have []Property) bool {
	for _, w := range want {
		i := slices.IndexFunc(have, func(p Property) bool { return p.Key == w.key })
		if i < 0 || !literalEquals(w.val, have[i].Value) {
			return false
		}
	}
	return true
}

func literalEquals(lit, v vector.Value) bool {
	switch l := lit.(type) {
	case int64:
		switch x := v.(type) {
		case int64:
			return x == l
		case float64:
			return x == float64(l)
		}
	case float64:
		switch x := v.(type) {
		case int64:
			return float64(x) == l
		case float64:
			return x == l
		}
	default:
		return lit == v
	}
	return false
}
