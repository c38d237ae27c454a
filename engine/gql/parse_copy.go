package gql

import (
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// copyStatement parses COPY <name> FROM '<path>' and COPY (<query>) TO
// '<path>' [(options)] when the text starts with COPY, and returns nil
// otherwise without consuming anything. No query clause starts with
// COPY, so the keyword is never ambiguous.
func (p *parser) copyStatement() *Copy {
	if !p.isKeyword("COPY") {
		return nil
	}
	c := &Copy{Pos: p.tok.pos}
	p.advance()
	if p.isPunct("(") {
		p.advance()
		c.QueryPos = p.tok.pos
		c.Query = p.query()
		p.expectPunct(")")
		p.expectKeyword("TO")
		c.PathPos = p.tok.pos
		if p.tok.kind != tString {
			p.failUnexpected("a file path string")
		}
		c.Path = p.tok.str
		p.advance()
		if p.isPunct("(") {
			p.advance()
			c.Options = p.copyOptions()
		}
		return c
	}
	c.NamePos = p.tok.pos
	c.Name = p.ident("a label or relationship type")
	p.expectKeyword("FROM")
	c.PathPos = p.tok.pos
	if p.tok.kind != tString {
		p.failUnexpected("a file path string")
	}
	c.Path = p.tok.str
	p.advance()
	return c
}

// copyTypes are COPY … TO's options and the type of their values.
var copyTypes = map[string]string{
	"FORMAT":         "string",
	"HEADER":         "boolean",
	"DELIMITER":      "string",
	"COMPRESSION":    "string",
	"ROW_GROUP_SIZE": "integer",
}

// MaxRowGroupSize bounds COPY … TO's ROW_GROUP_SIZE: a row group is held
// in memory until it is written.
const MaxRowGroupSize = 1 << 24

// copyOptions parses `NAME = value, …)` after COPY … TO's opening
// parenthesis. An unknown name or a value of the wrong type is a syntax
// error (42000) at it; a value of the right type that is not one of the
// option's values is 22023 at the value.
func (p *parser) copyOptions() []CopyOption {
	var out []CopyOption
	for {
		pos := p.tok.pos
		if p.tok.kind != tIdent {
			p.failUnexpected("a COPY TO option (FORMAT, HEADER, DELIMITER, COMPRESSION, ROW_GROUP_SIZE)")
		}
		name := strings.ToUpper(p.tok.text)
		typ, ok := copyTypes[name]
		if !ok {
			p.fail("unknown COPY TO option %s: the options are FORMAT, HEADER, DELIMITER, COMPRESSION and ROW_GROUP_SIZE", p.tok.text)
		}
		for _, o := range out {
			if o.Name == name {
				p.fail("the COPY TO option %s is given twice", name)
			}
		}
		p.advance()
		p.expectPunct("=")
		o := CopyOption{Name: name, Pos: pos, ValuePos: p.tok.pos}
		switch {
		case typ == "string" && p.tok.kind == tString:
			o.Value = p.tok.str
		case typ == "integer" && p.tok.kind == tInt:
			n, err := strconv.ParseInt(p.tok.text, 10, 64)
			if err != nil {
				p.fail("ROW_GROUP_SIZE %s is not a 64-bit integer", p.tok.text)
			}
			o.Value = n
		case typ == "boolean" && (p.isKeyword("TRUE") || p.isKeyword("FALSE")):
			o.Value = p.isKeyword("TRUE")
		default:
			p.failUnexpected("a " + typ + " value for " + name)
		}
		checkCopyValue(o)
		p.advance()
		out = append(out, o)
		if p.isPunct(")") {
			p.advance()
			return out
		}
		p.expectPunct(",")
	}
}

// checkCopyValue refuses an option value outside the option's values
// (22023, at the value).
func checkCopyValue(o CopyOption) {
	bad := func(format string, args ...any) {
		panic(errs.DataCode(errs.CodeInvalidParam, format, args...).At(o.ValuePos.Line, o.ValuePos.Column))
	}
	switch o.Name {
	case "FORMAT":
		if f := strings.ToLower(o.Value.(string)); f != "parquet" && f != "csv" {
			bad("FORMAT %q is not a format COPY TO writes: use 'parquet' or 'csv'", o.Value)
		}
	case "COMPRESSION":
		if c := strings.ToLower(o.Value.(string)); c != "zstd" && c != "snappy" && c != "none" {
			bad("COMPRESSION %q is not one COPY TO writes: use 'zstd', 'snappy' or 'none'", o.Value)
		}
	case "DELIMITER":
		// Numbers, booleans and temporals are written unquoted: the
		// delimiter must not be a character they hold.
		d := o.Value.(string)
		if len(d) != 1 || d[0] >= 0x80 || strings.ContainsAny(d, "\"\r\n.-+:/_[]") ||
			'0' <= d[0] && d[0] <= '9' || 'a' <= d[0]|0x20 && d[0]|0x20 <= 'z' {
			bad("DELIMITER %q is not one ASCII character other than a letter, a digit, a quote, a line break or one of .-+:/_[] (which unquoted values hold)", d)
		}
	case "ROW_GROUP_SIZE":
		if n := o.Value.(int64); n < 1 || n > MaxRowGroupSize {
			bad("ROW_GROUP_SIZE %d is outside 1 to %d", n, MaxRowGroupSize)
		}
	}
}
