package shell

import "strings"

// A script (interactive input, -c, -f, standard input, :source) is a
// sequence of statements ended by ';' and of colon commands, each on a
// line of its own. A ';' inside a string, a quoted name or a comment
// does not end a statement.

// statement is one statement or command of a script, with where it
// starts, for error positions.
type statement struct {
	text   string
	source string // the file, "-c" or "<stdin>"
	line   int    // 1-based line of text's first character
	col    int    // 1-based column of it
	// command is set for a colon command (text starts with ':').
	command bool
}

// splitter accumulates lines and hands out the complete statements.
type splitter struct {
	source string
	buf    strings.Builder
	// line and col are where buf's statement starts; next is the line
	// the next input line has.
	line, col, next int
	// state carries a string or comment across lines.
	state scanState
}

type scanState struct {
	quote   rune // ', " or ` while inside one
	escaped bool // a backslash came last inside a string
	block   bool // inside /* */
}

func newSplitter(source string) *splitter { return &splitter{source: source, next: 1} }

// pending reports a statement begun and not yet ended.
func (s *splitter) pending() bool { return strings.TrimSpace(s.buf.String()) != "" }

// feed takes one line (without its newline) and returns the statements
// and commands it completes.
func (s *splitter) feed(line string) []statement {
	lineNo := s.next
	s.next++
	if !s.pending() && s.state == (scanState{}) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, ":") {
			return []statement{{text: strings.TrimSuffix(trimmed, ";"), source: s.source, line: lineNo,
				col: strings.Index(line, ":") + 1, command: true}}
		}
	}
	var out []statement
	rs := []rune(line)
	start := 0 // of the part of line not yet in buf
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		st := &s.state
		switch {
		case st.block:
			if r == '*' && i+1 < len(rs) && rs[i+1] == '/' {
				st.block = false
				i++
			}
		case st.quote != 0:
			switch {
			case st.escaped:
				st.escaped = false
			case r == '\\' && st.quote != '`':
				st.escaped = true
			case r == st.quote:
				st.quote = 0
			}
		case r == '\'' || r == '"' || r == '`':
			st.quote = r
		case r == '/' && i+1 < len(rs) && rs[i+1] == '/':
			i = len(rs) // the rest of the line is a comment
		case r == '/' && i+1 < len(rs) && rs[i+1] == '*':
			st.block = true
			i++
		case r == ';':
			s.add(string(rs[start:i]), lineNo, start)
			if stmt, ok := s.take(); ok {
				out = append(out, stmt)
			}
			start = i + 1
		}
	}
	s.add(string(rs[start:]), lineNo, start)
	s.buf.WriteByte('\n')
	return out
}

// add appends part of line lineNo starting at rune offset off, noting
// where the statement starts if this is its first text.
func (s *splitter) add(part string, lineNo, off int) {
	if !s.pending() {
		trimmed := strings.TrimLeft(part, " \t\r\n")
		if trimmed == "" {
			s.buf.Reset()
			return
		}
		s.buf.Reset()
		s.line, s.col = lineNo, off+len([]rune(part))-len([]rune(trimmed))+1
		part = trimmed
	}
	s.buf.WriteString(part)
}

// take hands out the statement in buf, if it has any text.
func (s *splitter) take() (statement, bool) {
	text := strings.TrimRight(s.buf.String(), " \t\r\n")
	s.buf.Reset()
	if text == "" || onlyComments(text) {
		return statement{}, false
	}
	return statement{text: text, source: s.source, line: s.line, col: s.col}, true
}

// flush ends the input: a last statement without its ';' is handed out
// (a script's last line need not end one).
func (s *splitter) flush() (statement, bool) {
	s.state = scanState{}
	return s.take()
}

// onlyComments reports text that holds nothing but comments and space.
func onlyComments(text string) bool {
	for text != "" {
		text = strings.TrimLeft(text, " \t\r\n")
		switch {
		case text == "":
			return true
		case strings.HasPrefix(text, "//"):
			i := strings.IndexByte(text, '\n')
			if i < 0 {
				return true
			}
			text = text[i+1:]
		case strings.HasPrefix(text, "/*"):
			i := strings.Index(text[2:], "*/")
			if i < 0 {
				return true
			}
			text = text[i+4:]
		default:
			return false
		}
	}
	return true
}
