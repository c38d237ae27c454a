package fulltext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/quiverdb/quiver/engine/errs"
)

// The query syntax (Lucene's, as Neo4j's fulltext procedures take it):
//
//	query   := or
//	or      := and { [OR] and }          juxtaposition is OR, as in Lucene
//	and     := unary { AND unary }
//	unary   := NOT unary | - unary | + unary | primary
//	primary := ( query ) | [field :] ( "a phrase" | word[*] | word~[0-2] )
//
// A word is analyzed like the indexed text (MatchQuery); word* is a
// prefix and word~N a fuzzy term (N edits, default 2), both lower-cased
// instead of analyzed, as Lucene does. +x must match, -x and NOT x must
// not. Operators are upper-case (and, or, not in lower case are words).
// A field is one of the index's properties; without one the term is
// searched in all of them. bleve's own query-string syntax has no
// AND/OR/NOT and reports no positions: hence this parser.

// maxQueryBytes bounds a query's text.
const maxQueryBytes = 64 << 10

// parseQuery turns text into a bleve query over the index's fields.
func parseQuery(text string, fields []string) (q query.Query, err error) {
	if len(text) > maxQueryBytes {
		return nil, errs.DataCode(errs.CodeInvalidParam, "fulltext query of %d bytes: at most %d", len(text), maxQueryBytes)
	}
	p := &qparser{src: text, fields: fields}
	defer func() {
		if r := recover(); r != nil {
			qe, ok := r.(*errs.Error)
			if !ok {
				panic(r)
			}
			q, err = nil, qe
		}
	}()
	p.next()
	if p.tok.kind == qEOF {
		p.failf(p.tok.pos, "empty query")
	}
	c := p.or()
	if p.tok.kind != qEOF {
		p.failf(p.tok.pos, "unexpected %s", p.tok.describe())
	}
	return c.query(), nil
}

type qkind uint8

const (
	qEOF qkind = iota
	qWord
	qPhrase
	qLParen
	qRParen
	qColon
	qPlus
	qMinus
	qAnd
	qOr
	qNot
)

type qtok struct {
	kind qkind
	text string
	pos  int // 1-based column, in characters
}

func (t qtok) describe() string {
	switch t.kind {
	case qEOF:
		return "end of query"
	case qPhrase:
		return "phrase \"" + t.text + "\""
	}
	return "'" + t.text + "'"
}

type qparser struct {
	src    string
	off    int
	fields []string
	tok    qtok
}

func (p *qparser) failf(pos int, format string, args ...any) {
	panic(errs.DataCode(errs.CodeInvalidParam, "fulltext query syntax error at column %d: "+format, append([]any{pos}, args...)...))
}

func (p *qparser) col(off int) int { return utf8.RuneCountInString(p.src[:off]) + 1 }

const specials = "()\":+-~*"

// next reads the next token.
func (p *qparser) next() {
	for p.off < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.off:])
		if !unicode.IsSpace(r) {
			break
		}
		p.off += n
	}
	start := p.off
	pos := p.col(start)
	if p.off >= len(p.src) {
		p.tok = qtok{kind: qEOF, pos: pos}
		return
	}
	c := p.src[p.off]
	single := map[byte]qkind{'(': qLParen, ')': qRParen, ':': qColon, '+': qPlus, '-': qMinus}
	if k, ok := single[c]; ok {
		p.off++
		p.tok = qtok{kind: k, text: string(c), pos: pos}
		return
	}
	if c == '"' {
		end := strings.IndexByte(p.src[p.off+1:], '"')
		if end < 0 {
			p.failf(pos, "unterminated phrase")
		}
		p.tok = qtok{kind: qPhrase, text: p.src[p.off+1 : p.off+1+end], pos: pos}
		p.off += end + 2
		return
	}
	for p.off < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.off:])
		if unicode.IsSpace(r) || strings.ContainsRune("()\":", r) {
			break
		}
		p.off += n
	}
	w := p.src[start:p.off]
	k := qWord
	switch w {
	case "AND", "&&":
		k = qAnd
	case "OR", "||":
		k = qOr
	case "NOT":
		k = qNot
	}
	p.tok = qtok{kind: k, text: w, pos: pos}
}

// clause is a parsed part: its query, and whether it must or must not
// match where it stands in a list.
type clause struct {
	q        query.Query
	req, neg bool
}

// query is c as a standalone query: a negation alone matches every
// document but those.
func (c clause) query() query.Query {
	if c.neg {
		return query.NewBooleanQuery([]query.Query{bleve.NewMatchAllQuery()}, nil, []query.Query{c.q})
	}
	return c.q
}

func (p *qparser) or() clause {
	cs := []clause{p.and()}
	for {
		switch p.tok.kind {
		case qOr:
			p.next()
			cs = append(cs, p.and())
			continue
		case qWord, qPhrase, qLParen, qPlus, qMinus, qNot:
			cs = append(cs, p.and())
			continue
		}
		break
	}
	if len(cs) == 1 {
		return cs[0]
	}
	var must, should, not []query.Query
	for _, c := range cs {
		switch {
		case c.neg:
			not = append(not, c.q)
		case c.req:
			must = append(must, c.q)
		default:
			should = append(should, c.q)
		}
	}
	if len(must) == 0 && len(should) == 0 {
		must = []query.Query{bleve.NewMatchAllQuery()}
	}
	b := bleve.NewBooleanQuery()
	if len(must) > 0 {
		b.AddMust(must...)
	}
	if len(should) > 0 {
		b.AddShould(should...)
		if len(must) == 0 {
			b.SetMinShould(1)
		}
	}
	if len(not) > 0 {
		b.AddMustNot(not...)
	}
	return clause{q: b}
}

func (p *qparser) and() clause {
	cs := []clause{p.unary()}
	for p.tok.kind == qAnd {
		p.next()
		cs = append(cs, p.unary())
	}
	if len(cs) == 1 {
		return cs[0]
	}
	var must, not []query.Query
	for _, c := range cs {
		if c.neg {
			not = append(not, c.q)
		} else {
			must = append(must, c.q)
		}
	}
	if len(must) == 0 {
		must = []query.Query{bleve.NewMatchAllQuery()}
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(must...)
	if len(not) > 0 {
		b.AddMustNot(not...)
	}
	return clause{q: b, req: true}
}

func (p *qparser) unary() clause {
	switch p.tok.kind {
	case qNot, qMinus:
		p.next()
		c := p.unary()
		return clause{q: c.query(), neg: true}
	case qPlus:
		p.next()
		c := p.unary()
		c.req = !c.neg
		return c
	}
	return clause{q: p.primary()}
}

func (p *qparser) primary() query.Query {
	t := p.tok
	switch t.kind {
	case qLParen:
		p.next()
		c := p.or()
		if p.tok.kind != qRParen {
			p.failf(p.tok.pos, "expected ) to close ( at column %d, found %s", t.pos, p.tok.describe())
		}
		p.next()
		return c.query()
	case qPhrase:
		p.next()
		return phrase(t.text, "")
	case qWord:
		p.next()
		if p.tok.kind == qColon {
			if !p.isField(t.text) {
				p.failf(t.pos, "unknown field %s: the index has %s", t.text, strings.Join(p.fields, ", "))
			}
			p.next()
			v := p.tok
			switch v.kind {
			case qPhrase:
				p.next()
				return phrase(v.text, t.text)
			case qWord:
				p.next()
				return p.word(v, t.text)
			}
			p.failf(v.pos, "expected a word or a phrase after %s:, found %s", t.text, v.describe())
		}
		return p.word(t, "")
	}
	p.failf(t.pos, "expected a word, a phrase or (, found %s", t.describe())
	return nil
}

func (p *qparser) isField(f string) bool {
	for _, x := range p.fields {
		if x == f {
			return true
		}
	}
	return false
}

func phrase(text, field string) query.Query {
	q := bleve.NewMatchPhraseQuery(text)
	q.SetField(field)
	return q
}

// word builds the query of one word: a match, a prefix (word*) or a
// fuzzy term (word~N).
func (p *qparser) word(t qtok, field string) query.Query {
	w := t.text
	if i := strings.IndexByte(w, '~'); i >= 0 {
		n := 2
		if rest := w[i+1:]; rest != "" {
			v, err := strconv.Atoi(rest)
			if err != nil || v < 0 || v > 2 {
				p.failf(t.pos+utf8.RuneCountInString(w[:i+1]), "fuzziness %q: an edit distance 0, 1 or 2", rest)
			}
			n = v
		}
		w = w[:i]
		if w == "" || strings.ContainsAny(w, specials) {
			p.failf(t.pos, "fuzzy term %q: a plain word before ~", t.text)
		}
		q := bleve.NewFuzzyQuery(strings.ToLower(w))
		q.SetFuzziness(n)
		q.SetField(field)
		return q
	}
	if strings.HasSuffix(w, "*") {
		w = w[:len(w)-1]
		if w == "" || strings.ContainsAny(w, specials) {
			p.failf(t.pos, "prefix %q: a plain word before *", t.text)
		}
		q := bleve.NewPrefixQuery(strings.ToLower(w))
		q.SetField(field)
		return q
	}
	if i := strings.IndexAny(w, specials); i >= 0 {
		p.failf(t.pos+utf8.RuneCountInString(w[:i]), "unexpected %q in %q", w[i:i+1], w)
	}
	q := bleve.NewMatchQuery(w)
	q.SetField(field)
	return q
}
