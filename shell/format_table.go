package shell

import (
	"io"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// tablePage is how many rows a table holds to size its columns: the wire
// protocol's first window. Later rows are written as they come, cut to
// those widths, so a table of any length prints in bounded memory.
const tablePage = 1000

// tableWriter writes an aligned table:
//
//	+------+------+
//	| name | born |
//	+------+------+
//	| Ada  | 1815 |
//	+------+------+
//
// Numbers are aligned right, everything else left.
type tableWriter struct {
	w        io.Writer
	maxWidth int
	cols     []string
	types    []string
	page     [][]string // rendered rows held until the widths are known
	right    [][]bool
	widths   []int
	started  bool // the header is out
	n        int64
	err      error
}

func newTableWriter(w io.Writer, maxWidth int) *tableWriter {
	return &tableWriter{w: w, maxWidth: maxWidth}
}

func (t *tableWriter) begin(cols []string, types []string) {
	t.cols, t.types = cols, types
	t.widths = make([]int, len(cols))
	for i, c := range cols {
		t.widths[i] = min(cellWidth(c), t.maxWidth)
	}
}

func (t *tableWriter) row(vals []any) {
	cells := make([]string, len(t.cols))
	right := make([]bool, len(t.cols))
	for i := range t.cols {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		cells[i] = oneLine(display(v, t.types[i]))
		switch v.(type) {
		case int64, float64:
			right[i] = true
		}
	}
	t.n++
	if !t.started {
		for i, c := range cells {
			t.widths[i] = max(t.widths[i], min(cellWidth(c), t.maxWidth))
		}
		t.page, t.right = append(t.page, cells), append(t.right, right)
		if len(t.page) >= tablePage {
			t.flushPage()
		}
		return
	}
	t.line(cells, right)
}

// flushPage writes the header and the rows held.
func (t *tableWriter) flushPage() {
	t.started = true
	t.rule()
	t.line(t.cols, make([]bool, len(t.cols)))
	t.rule()
	for i, r := range t.page {
		t.line(r, t.right[i])
	}
	t.page, t.right = nil, nil
}

// end writes what is held and the closing rule; a result without
// columns writes nothing.
func (t *tableWriter) end() error {
	if len(t.cols) == 0 {
		return t.err
	}
	if !t.started {
		t.flushPage()
	}
	t.rule()
	return t.err
}

func (t *tableWriter) rule() {
	var b strings.Builder
	b.WriteByte('+')
	for _, w := range t.widths {
		b.WriteString(strings.Repeat("-", w+2))
		b.WriteByte('+')
	}
	b.WriteByte('\n')
	t.write(b.String())
}

func (t *tableWriter) line(cells []string, right []bool) {
	var b strings.Builder
	b.WriteByte('|')
	for i, c := range cells {
		c = truncate(c, t.widths[i])
		pad := strings.Repeat(" ", t.widths[i]-cellWidth(c))
		b.WriteByte(' ')
		if right[i] {
			b.WriteString(pad + c)
		} else {
			b.WriteString(c + pad)
		}
		b.WriteString(" |")
	}
	b.WriteByte('\n')
	t.write(b.String())
}

func (t *tableWriter) write(s string) {
	if t.err == nil {
		_, t.err = io.WriteString(t.w, s)
	}
}

// cellWidth is the terminal cells s takes.
func cellWidth(s string) int { return runewidth.StringWidth(s) }

// truncate cuts s to width cells, ending it with "…" when cut.
func truncate(s string, width int) string {
	if cellWidth(s) <= width {
		return s
	}
	return runewidth.Truncate(s, width, "…")
}

// oneLine makes a value fit a table row: line breaks and tabs written as
// \n and \t, other control characters dropped.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
