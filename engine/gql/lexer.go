package gql

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lexer splits query text into tokens, tracking line and column.
type lexer struct {
	src  string
	off  int
	line int
	col  int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) pos() Pos { return Pos{Offset: l.off, Line: l.line, Column: l.col} }

// advance moves past one character.
func (l *lexer) advance() rune {
	r, size := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += size
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

func (l *lexer) peek() rune {
	if l.off >= len(l.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.off:])
	return r
}

func (l *lexer) peekAt(n int) byte {
	if l.off+n >= len(l.src) {
		return 0
	}
	return l.src[l.off+n]
}

// skipSpace skips white space and comments.
func (l *lexer) skipSpace() error {
	for l.off < len(l.src) {
		r := l.peek()
		switch {
		case unicode.IsSpace(r):
			l.advance()
		case r == '/' && l.peekAt(1) == '/':
			for l.off < len(l.src) && l.peek() != '\n' {
				l.advance()
			}
		case r == '/' && l.peekAt(1) == '*':
			start := l.pos()
			l.advance()
			l.advance()
			for {
				if l.off >= len(l.src) {
					return errAt(start, "unterminated comment")
				}
				if l.peek() == '*' && l.peekAt(1) == '/' {
					l.advance()
					l.advance()
					break
				}
				l.advance()
			}
		default:
			return nil
		}
	}
	return nil
}

// symbols lists the multi-character symbols. Arrows are not among them:
// the pattern parser reads "<", "-" and ">" one by one, so "a<-1" in an
// expression still means a < -1.
var symbols = []string{"..", "<>", "<=", ">=", "=~", "+=", "::"}

func (l *lexer) next() (token, error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	start := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: start, end: l.off}, nil
	}
	r := l.peek()
	switch {
	case r == '_' || unicode.IsLetter(r):
		for l.off < len(l.src) {
			c := l.peek()
			if c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
				break
			}
			l.advance()
		}
		return token{kind: tIdent, text: l.src[start.Offset:l.off], pos: start, end: l.off}, nil
	case r == '`':
		l.advance()
		var sb strings.Builder
		for {
			if l.off >= len(l.src) {
				return token{}, errAt(start, "unterminated quoted identifier")
			}
			c := l.advance()
			if c == '`' {
				if l.peek() == '`' { // `` is an escaped backquote
					l.advance()
					sb.WriteRune('`')
					continue
				}
				break
			}
			sb.WriteRune(c)
		}
		if sb.Len() == 0 {
			return token{}, errAt(start, "empty quoted identifier")
		}
		return token{kind: tIdent, text: sb.String(), pos: start, end: l.off, quoted: true}, nil
	case r >= '0' && r <= '9' || (r == '.' && l.peekAt(1) >= '0' && l.peekAt(1) <= '9'):
		return l.number(start)
	case r == '\'' || r == '"':
		return l.string(start, r)
	case r == '$':
		l.advance()
		p := l.off
		if c := l.peek(); c == '`' {
			t, err := l.next()
			if err != nil {
				return token{}, err
			}
			return token{kind: tParam, text: t.text, pos: start, end: l.off}, nil
		}
		for l.off < len(l.src) {
			c := l.peek()
			if c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
				break
			}
			l.advance()
		}
		if l.off == p {
			return token{}, errAt(start, "expected a parameter name after $")
		}
		return token{kind: tParam, text: l.src[p:l.off], pos: start, end: l.off}, nil
	}
	for _, s := range symbols {
		if strings.HasPrefix(l.src[l.off:], s) {
			for range s {
				l.advance()
			}
			return token{kind: tPunct, text: s, pos: start, end: l.off}, nil
		}
	}
	if r == '!' && l.peekAt(1) == '=' {
		return token{}, errAt(start, "unexpected \"!=\": inequality is written <>")
	}
	if strings.ContainsRune("()[]{},.:;|&=<>+-*/%^!", r) {
		l.advance()
		return token{kind: tPunct, text: string(r), pos: start, end: l.off}, nil
	}
	return token{}, errAt(start, "unexpected character %q", r)
}

func (l *lexer) number(start Pos) (token, error) {
	src := l.src
	if l.peek() == '0' && (l.peekAt(1) == 'x' || l.peekAt(1) == 'X' || l.peekAt(1) == 'o' || l.peekAt(1) == 'O') {
		l.advance()
		l.advance()
		p := l.off
		for l.off < len(src) && isAlnum(src[l.off]) {
			l.advance()
		}
		return token{kind: tInt, text: src[start.Offset:l.off], pos: start, end: l.off}, checkDigits(start, src[start.Offset:l.off], src[p:l.off])
	}
	isFloat := false
	for l.off < len(src) && src[l.off] >= '0' && src[l.off] <= '9' {
		l.advance()
	}
	if l.off < len(src) && src[l.off] == '.' && l.peekAt(1) >= '0' && l.peekAt(1) <= '9' {
		isFloat = true
		l.advance()
		for l.off < len(src) && src[l.off] >= '0' && src[l.off] <= '9' {
			l.advance()
		}
	}
	if l.off < len(src) && (src[l.off] == 'e' || src[l.off] == 'E') {
		save := *l
		l.advance()
		if l.off < len(src) && (src[l.off] == '+' || src[l.off] == '-') {
			l.advance()
		}
		if l.off < len(src) && src[l.off] >= '0' && src[l.off] <= '9' {
			isFloat = true
			for l.off < len(src) && src[l.off] >= '0' && src[l.off] <= '9' {
				l.advance()
			}
		} else {
			*l = save
		}
	}
	if l.off < len(src) && (isAlnum(src[l.off]) || src[l.off] == '_') {
		for l.off < len(src) && (isAlnum(src[l.off]) || src[l.off] == '_') {
			l.advance()
		}
		return token{}, errAt(start, "invalid number %q", src[start.Offset:l.off])
	}
	kind := tInt
	if isFloat {
		kind = tFloat
	}
	return token{kind: kind, text: src[start.Offset:l.off], pos: start, end: l.off}, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func checkDigits(start Pos, lit, digits string) error {
	base := 16
	if lit[1] == 'o' || lit[1] == 'O' {
		base = 8
	}
	if digits == "" {
		return errAt(start, "invalid number %q", lit)
	}
	for _, c := range digits {
		if _, err := strconv.ParseUint(string(c), base, 8); err != nil {
			return errAt(start, "invalid number %q", lit)
		}
	}
	return nil
}

func (l *lexer) string(start Pos, quote rune) (token, error) {
	l.advance()
	var sb strings.Builder
	for {
		if l.off >= len(l.src) {
			return token{}, errAt(start, "unterminated string literal")
		}
		c := l.advance()
		if c == quote {
			break
		}
		if c != '\\' {
			sb.WriteRune(c)
			continue
		}
		escPos := l.pos()
		if l.off >= len(l.src) {
			return token{}, errAt(start, "unterminated string literal")
		}
		e := l.advance()
		switch e {
		case '\\', '\'', '"':
			sb.WriteRune(e)
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if l.off+n > len(l.src) {
				return token{}, errAt(escPos, "invalid unicode escape")
			}
			v, err := strconv.ParseUint(l.src[l.off:l.off+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return token{}, errAt(escPos, "invalid unicode escape")
			}
			for i := 0; i < n; i++ {
				l.advance()
			}
			sb.WriteRune(rune(v))
		default:
			return token{}, errAt(escPos, "invalid escape sequence \\%c", e)
		}
	}
	return token{kind: tString, text: l.src[start.Offset:l.off], str: sb.String(), pos: start, end: l.off}, nil
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isDigit(r rune) bool  { return unicode.IsDigit(r) }
