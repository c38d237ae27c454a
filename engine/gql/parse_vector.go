package gql

import (
	"strconv"
	"strings"
)

// VectorSpec is what CREATE VECTOR INDEX's OPTIONS give: the index
// (engine/index/vector) vets the values (dimensions required and
// positive, similarity known, m and ef_construction in range); zero
// means not given.
type VectorSpec struct {
	Dimensions     int64
	Similarity     string
	M              int64
	EfConstruction int64
}

// vectorOptionNames lists the OPTIONS keys CREATE VECTOR INDEX takes.
var vectorOptionNames = "dimensions, similarity, m, ef_construction"

// createVector parses what follows CREATE VECTOR INDEX:
//
//	[name] [IF NOT EXISTS] FOR (n:Label) ON (n.embedding)
//	  OPTIONS {dimensions: 128 [, similarity: 'cosine'|'euclidean'|'dot'] [, m: 16] [, ef_construction: 128]}
//
// OPTIONS is required: an index without dimensions cannot be built. One
// property only: a vector index searches one embedding.
func (p *parser) createVector(s *Schema) {
	p.ifNotExists(s)
	if !s.IfExists && !p.isKeyword("FOR") {
		s.NamePos = p.tok.pos
		s.Name = p.ident("an index name or FOR")
		p.ifNotExists(s)
	}
	p.expectKeyword("FOR")
	p.expectPunct("(")
	v := p.ident("a variable")
	p.expectPunct(":")
	s.Label = p.ident("a label")
	p.expectPunct(")")
	p.expectKeyword("ON")
	p.expectPunct("(")
	s.Props = []string{p.schemaProp(v)}
	if p.isPunct(",") {
		p.fail("a VECTOR index covers one property")
	}
	p.expectPunct(")")
	spec := &VectorSpec{}
	s.Vector = spec
	if !p.isKeyword("OPTIONS") {
		p.fail("CREATE VECTOR INDEX needs OPTIONS {dimensions: n, …}")
	}
	for _, o := range p.options() {
		k, val, at := o.key, o.val, o.at
		switch strings.ToLower(k) {
		case "dimensions":
			spec.Dimensions = optionInt(at, k, val)
		case "m":
			spec.M = optionInt(at, k, val)
		case "ef_construction", "efconstruction":
			spec.EfConstruction = optionInt(at, k, val)
		case "similarity":
			str, ok := val.(string)
			if !ok {
				panic(errAt(at, "VECTOR OPTIONS: similarity is a string: 'cosine', 'euclidean' or 'dot'"))
			}
			spec.Similarity = strings.ToLower(str)
		default:
			panic(errAt(at, "VECTOR OPTIONS: unknown option %s (%s)", k, vectorOptionNames))
		}
	}
}

// optionInt reads an integer option's literal value.
func optionInt(at Pos, k string, v any) int64 {
	n, ok := v.(int64)
	if !ok {
		panic(errAt(at, "VECTOR OPTIONS: %s is an integer literal", k))
	}
	return n
}

// vectorString prints a CREATE VECTOR INDEX.
func (s *Schema) vectorString(name, label string) string {
	out := "CREATE VECTOR INDEX" + name + " FOR (n:" + label + ") ON (n." + quoteName(s.Props[0]) + ") OPTIONS {"
	if s.Vector != nil {
		out += "dimensions: " + strconv.FormatInt(s.Vector.Dimensions, 10)
		if s.Vector.Similarity != "" {
			out += ", similarity: '" + strings.ReplaceAll(s.Vector.Similarity, "'", "\\'") + "'"
		}
		if s.Vector.M != 0 {
			out += ", m: " + strconv.FormatInt(s.Vector.M, 10)
		}
		if s.Vector.EfConstruction != 0 {
			out += ", ef_construction: " + strconv.FormatInt(s.Vector.EfConstruction, 10)
		}
	}
	return out + "}"
}
