package load

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// field is one CSV field of a line; quoted fields are unescaped.
type field struct {
	b      []byte
	quoted bool
}

// splitLine cuts line into fields at delim. A field may be quoted with
// '"' ("" inside is a quote); a quote must then close before the delimiter
// or the end of the line (a newline inside quotes is not supported: files
// are cut into parts at line ends).
func splitLine(line []byte, delim byte, dst []field) ([]field, int, string) {
	dst = dst[:0]
	for i := 0; ; {
		if i < len(line) && line[i] == '"' {
			var out []byte
			j := i + 1
			closed := false
			for j < len(line) {
				if line[j] == '"' {
					if j+1 < len(line) && line[j+1] == '"' {
						out = append(out, '"')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				out = append(out, line[j])
				j++
			}
			if !closed {
				return dst, len(dst) + 1, "unterminated quoted field (a newline inside quotes is not supported)"
			}
			if out == nil {
				out = []byte{}
			}
			dst = append(dst, field{b: out, quoted: true})
			if j == len(line) {
				return dst, 0, ""
			}
			if line[j] != delim {
				return dst, len(dst), "text after a closing quote"
			}
			i = j + 1
			continue
		}
		k := bytes.IndexByte(line[i:], delim)
		if k < 0 {
			dst = append(dst, field{b: line[i:]})
			return dst, 0, ""
		}
		dst = append(dst, field{b: line[i : i+k]})
		i += k + 1
	}
}

// colData is one column's parsed values for a range of rows.
type colData struct {
	i64  []int64
	f64  []float64
	str  []string
	b    []bool
	any  []vector.Value
	ids  []uint32 // resolved node ids of from/to columns
	pend []int64  // integer keys of ids' last len(pend) rows, to look up
	null []bool   // nil until the first null
}

func (c *colData) setNull(row int) {
	if c.null == nil {
		c.null = make([]bool, row, max(row+1, 1024))
	}
	for len(c.null) < row {
		c.null = append(c.null, false)
	}
	c.null = append(c.null, true)
}

func (c *colData) notNull(row int) {
	if c.null != nil {
		for len(c.null) < row {
			c.null = append(c.null, false)
		}
		c.null = append(c.null, false)
	}
}

// keyMap resolves node keys to node ids (which fit 32 bits: the storage
// layer's node id space).
type keyMap struct {
	kind kind // kindInt or kindString
	ints map[int64]uint64
	strs map[string]uint64
	// dense holds integer keys while they fill most of a range (ids 0..n-1
	// are the usual case): dense[key-lo] is the node id, or noNode. An
	// array store and load per key instead of a map insert and probe, in
	// 4 bytes a key. ints takes over (and dense is dropped) when a node
	// file's keys spread too far.
	dense []uint32
	lo    int64
	n     int // keys in dense
}

const noNode = ^uint32(0)

// addDense registers keys (ids first..) in the dense form if the range of
// all the keys stays at most about twice their number; false leaves km
// unchanged and the caller uses the map.
func (km *keyMap) addDense(keys []int64, first uint64, dup func(r int, key any) error) (bool, error) {
	if len(keys) == 0 {
		return true, nil
	}
	if first+uint64(len(keys)) >= uint64(noNode) {
		return false, nil
	}
	lo, hi := keys[0], keys[0]
	for _, k := range keys {
		lo, hi = min(lo, k), max(hi, k)
	}
	if km.dense != nil {
		lo, hi = min(lo, km.lo), max(hi, km.lo+int64(len(km.dense))-1)
	}
	span := uint64(hi) - uint64(lo) // no overflow in unsigned arithmetic
	if span >= uint64(2*(km.n+len(keys))+1024) {
		return false, nil
	}
	if km.dense == nil || lo != km.lo || span+1 != uint64(len(km.dense)) {
		d := make([]uint32, span+1)
		for i := range d {
			d[i] = noNode
		}
		if km.dense != nil {
			copy(d[uint64(km.lo)-uint64(lo):], km.dense)
		}
		km.dense, km.lo = d, lo
	}
	for r, k := range keys {
		slot := &km.dense[uint64(k)-uint64(lo)]
		if *slot != noNode {
			return true, dup(r, k)
		}
		*slot = uint32(first) + uint32(r)
	}
	km.n += len(keys)
	return true, nil
}

// toMap moves dense keys into the map.
func (km *keyMap) toMap() {
	for i, id := range km.dense {
		if id != noNode {
			km.ints[km.lo+int64(i)] = uint64(id)
		}
	}
	km.dense, km.n = nil, 0
}

// Ambiguous is the id a caller's map (ParseRelFile) gives a key that
// several nodes carry.
const Ambiguous = ^uint64(0)

// ambiguous reports whether key b, not resolved, is one the caller's maps
// mark Ambiguous.
func (km *keyMap) ambiguous(b []byte) bool {
	if km.kind == kindInt {
		x, _ := parseInt(b)
		return km.dense == nil && km.ints[x] == Ambiguous
	}
	id, ok := km.strs[unsafeString(b)]
	return ok && id == Ambiguous
}

// lookupInt resolves an integer key.
func (km *keyMap) lookupInt(x int64) (uint32, bool) {
	if km.dense != nil {
		i := uint64(x) - uint64(km.lo)
		if i >= uint64(len(km.dense)) || km.dense[i] == noNode {
			return 0, false
		}
		return km.dense[i], true
	}
	id, ok := km.ints[x]
	return uint32(id), ok && id <= math.MaxUint32
}

// table is a parsed file.
type table struct {
	file string
	cols []colSpec
	rows int
	data []colData
	// groups is the rows of each row group of a Parquet file (nil for CSV).
	groups []int
}

// part is one worker's share of a file.
type part struct {
	data  []byte
	lines int // lines consumed (complete parts: all of them)
	rows  int
	want  int  // rows expected: the part's lines
	last  bool // the file's last part
	cols  []colData
	err   *Error // Line is relative to the part (1-based)
	// resolved counts the rows whose integer endpoint keys are resolved:
	// keys against the dense map are parsed into colData.pend and looked
	// up keyBatch rows at a time (resolve).
	resolved int
	delim    byte
	// prog is told the part's bytes and rows as they are parsed;
	// reported is the bytes told so far.
	prog     *progress.Tracker
	reported int
}

// keyBatch is how many rows of endpoint keys are looked up together: a
// tight loop of independent loads lets the CPU overlap the cache misses
// of a large key array, where one lookup per field waits for each.
const keyBatch = 1024

// parseTable parses a whole CSV file held in data. km resolves from/to
// columns (relationship files); keyKind is the node key type to expect
// when the key column's type is not declared.
func parseTable(file string, data []byte, o *Options, rels bool, km *keyMap) (*table, error) {
	delim := o.delim()
	size := len(data)
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) { // UTF-8 byte order mark
		data = data[3:]
	}
	nl := bytes.IndexByte(data, '\n')
	head := data
	if nl >= 0 {
		head, data = data[:nl], data[nl+1:]
	} else {
		data = nil
	}
	head = bytes.TrimSuffix(head, []byte("\r"))
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, &Error{File: file, Line: 1, Msg: "no header row"}
	}
	hf, col, msg := splitLine(head, delim, nil)
	if msg != "" {
		return nil, &Error{File: file, Line: 1, Column: col, Msg: msg}
	}
	names := make([]string, len(hf))
	for i, f := range hf {
		names[i] = string(f.b)
	}
	cols, err := parseHeader(file, names, o.idColumn(), o.fromColumn(), o.toColumn(), rels)
	if err != nil {
		return nil, err
	}
	for i := range cols {
		c := &cols[i]
		switch c.role {
		case roleKey:
			if c.kind != kindInfer && c.kind != kindInt && c.kind != kindString {
				return nil, &Error{File: file, Line: 1, Column: i + 1, Name: c.name, Msg: fmt.Sprintf("a key column is INT64 or STRING, not %s", c.kind)}
			}
		case roleFrom, roleTo:
			if km == nil {
				return nil, &Error{File: file, Line: 1, Msg: "relationships refer to node keys, but no nodes were loaded"}
			}
			c.kind = km.kind
		}
	}
	inferKinds(cols, data, delim)
	o.Progress.Add(int64(size-len(data)), 0) // the header
	t := &table{file: file, cols: cols}
	workers := runtime.GOMAXPROCS(0)
	if len(data) < 1<<20 {
		workers = 1
	}
	parts := cutParts(data, workers)
	// Every line is a row (an empty line is an error), so the parts' row
	// counts are known before parsing: the columns are allocated once and
	// each part appends into its own window of them, with no copy after.
	total := 0
	for _, p := range parts {
		p.want = bytes.Count(p.data, []byte{'\n'})
		if len(p.data) > 0 && p.data[len(p.data)-1] != '\n' {
			p.want++
		}
		total += p.want
	}
	if len(parts) > 0 {
		parts[len(parts)-1].last = true
	}
	t.data = allocColumns(cols, total)
	off := 0
	for _, p := range parts {
		p.cols = make([]colData, len(cols))
		for i := range cols {
			p.cols[i] = t.data[i].window(off, p.want)
		}
		off += p.want
	}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.delim, p.prog = delim, o.Progress
			p.parse(cols, delim, km)
			p.report(len(p.data), p.rows%progressRows) // the rest
		}()
	}
	wg.Wait()
	line := 1 // the header
	for _, p := range parts {
		if p.err != nil {
			e := *p.err
			e.File = file
			e.Line += line
			return nil, &e
		}
		line += p.lines
		t.rows += p.rows
	}
	t.finish(parts)
	return t, nil
}

// cutParts splits data into up to n parts at line ends.
func cutParts(data []byte, n int) []*part {
	var parts []*part
	for len(data) > 0 {
		size := len(data) / n
		if n <= 1 || size < 1<<16 {
			parts = append(parts, &part{data: data})
			break
		}
		cut := size
		if k := bytes.IndexByte(data[cut:], '\n'); k >= 0 {
			cut += k + 1
		} else {
			cut = len(data)
		}
		parts = append(parts, &part{data: data[:cut]})
		data = data[cut:]
		n--
	}
	return parts
}

// parse fills the part's columns; it stops at the first bad line.
func (p *part) parse(cols []colSpec, delim byte, km *keyMap) {
	var fields []field
	data := p.data
	// The fast path finds a line's end and its fields in one pass over
	// the bytes; a field that starts with a quote (or a '\r' delimiter,
	// which the line-end trimming would confuse) sends the line to
	// splitLine, which handles everything.
	fast := delim != '\r'
	for len(data) > 0 {
		general := !fast
		fields = fields[:0]
		i, start := 0, 0
		if fast {
			for ; i < len(data); i++ {
				c := data[i]
				if c == delim {
					fields = append(fields, field{b: data[start:i]})
					start = i + 1
				} else if c == '\n' {
					break
				} else if c == '"' && i == start {
					general = true
					break
				}
			}
		}
		if general {
			if k := bytes.IndexByte(data[i:], '\n'); k >= 0 {
				i += k
			} else {
				i = len(data)
			}
		}
		line := data[:i]
		if i < len(data) {
			data = data[i+1:]
		} else {
			data = nil
		}
		p.lines++
		line = bytes.TrimSuffix(line, []byte("\r"))
		fail := func(col int, msg string) {
			// Keys parsed before the failing field come first in the
			// file: an unknown one is the error to report.
			if !p.resolve(cols, km) {
				return
			}
			e := &Error{Line: p.lines, Column: col, Msg: msg}
			if col > 0 && col <= len(cols) {
				e.Name = cols[col-1].name
			}
			p.err = e
		}
		if len(line) == 0 {
			if len(data) == 0 && p.last {
				p.lines--
				break // the file's final empty line
			}
			fail(0, "empty line")
			return
		}
		if general {
			var col int
			var msg string
			fields, col, msg = splitLine(line, delim, fields)
			if msg != "" {
				fail(col, msg)
				return
			}
		} else {
			fields = append(fields, field{b: line[start:]}) // the last field
		}
		if len(fields) != len(cols) {
			fail(0, fmt.Sprintf("%d fields, the header has %d (ragged row)", len(fields), len(cols)))
			return
		}
		for i := range cols {
			if msg := p.cols[i].add(&cols[i], fields[i], p.rows, km); msg != "" {
				fail(i+1, msg)
				return
			}
		}
		p.rows++
		if p.rows-p.resolved == keyBatch && !p.resolve(cols, km) {
			return
		}
		if p.rows%progressRows == 0 {
			p.report(len(p.data)-len(data), progressRows)
		}
	}
	p.resolve(cols, km)
}

// report tells the tracker the part's bytes up to offset done, and rows
// more rows.
func (p *part) report(done, rows int) {
	p.prog.Add(int64(done-p.reported), int64(rows))
	p.reported = done
}

// resolve looks up the pending endpoint keys (rows p.resolved.., and the
// fields of row p.rows parsed so far) and reports the first unknown one
// in file order as the part's error (false).
func (p *part) resolve(cols []colSpec, km *keyMap) bool {
	badRow, badCol := -1, 0
	for ci := range p.cols {
		c := &p.cols[ci]
		if len(c.pend) == 0 {
			continue
		}
		ids := c.ids[p.resolved : p.resolved+len(c.pend)]
		dense, lo := km.dense, uint64(km.lo)
		for j, x := range c.pend {
			k := uint64(x) - lo
			if k >= uint64(len(dense)) || dense[k] == noNode {
				if badRow < 0 || j+p.resolved < badRow {
					badRow, badCol = j+p.resolved, ci
				}
				break
			}
			ids[j] = dense[k]
		}
		c.pend = c.pend[:0]
	}
	p.resolved = p.rows
	if badRow < 0 {
		return true
	}
	// The key's text, for the message: find its line again (once).
	line := p.data
	for range badRow {
		line = line[bytes.IndexByte(line, '\n')+1:]
	}
	if k := bytes.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	fields, _, _ := splitLine(bytes.TrimSuffix(line, []byte("\r")), p.delim, nil)
	p.err = &Error{Line: badRow + 1, Column: badCol + 1, Name: cols[badCol].name,
		Msg: fmt.Sprintf("unknown node key %q", fields[badCol].b)}
	return false
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// add appends one field's value for row.
func (c *colData) add(cs *colSpec, f field, row int, km *keyMap) string {
	b := f.b
	empty := len(b) == 0 && !f.quoted
	if cs.role == roleFrom || cs.role == roleTo {
		if empty {
			return "missing node key"
		}
		var id uint32
		var ok bool
		if km.kind == kindInt {
			x, good := parseInt(b)
			if !good {
				return fmt.Sprintf("type mismatch: %q is not an INT64 node key", b)
			}
			if km.dense != nil { // looked up by resolve
				c.ids = append(c.ids, 0)
				c.pend = append(c.pend, x)
				return ""
			}
			id, ok = km.lookupInt(x)
		} else {
			var id64 uint64
			id64, ok = km.strs[unsafeString(b)]
			id, ok = uint32(id64), ok && id64 <= math.MaxUint32
		}
		if !ok {
			if km.ambiguous(b) {
				return "the node key names several nodes"
			}
			return fmt.Sprintf("unknown node key %q", b)
		}
		c.ids = append(c.ids, id)
		return ""
	}
	if empty {
		if cs.role == roleKey {
			return "missing node key"
		}
		c.setNull(row)
		switch cs.kind {
		case kindInt:
			c.i64 = append(c.i64, 0)
		case kindFloat:
			c.f64 = append(c.f64, 0)
		case kindBool:
			c.b = append(c.b, false)
		case kindDate, kindDateTime, kindLocalDateTime, kindLocalTime, kindTime, kindDuration:
			c.any = append(c.any, nil)
		default:
			c.str = append(c.str, "")
		}
		return ""
	}
	switch cs.kind {
	case kindInt:
		x, ok := parseInt(b)
		if !ok {
			return fmt.Sprintf("type mismatch: %q is not an INT64", b)
		}
		c.i64 = append(c.i64, x)
	case kindFloat:
		x, err := strconv.ParseFloat(unsafeString(b), 64)
		if err != nil {
			return fmt.Sprintf("type mismatch: %q is not a DOUBLE", b)
		}
		c.f64 = append(c.f64, x)
	case kindBool:
		x, ok := parseBool(b)
		if !ok {
			return fmt.Sprintf("type mismatch: %q is not a BOOLEAN (true or false)", b)
		}
		c.b = append(c.b, x)
	case kindDate:
		d, err := temporal.ParseDate(string(b))
		if err != nil {
			return fmt.Sprintf("type mismatch: %q is not a DATE (YYYY-MM-DD)", b)
		}
		c.any = append(c.any, d)
	case kindDateTime, kindLocalDateTime, kindLocalTime, kindTime, kindDuration:
		v, msg := parseTemporal(cs.kind, string(b))
		if msg != "" {
			return "type mismatch: " + msg
		}
		c.any = append(c.any, v)
	default:
		c.str = append(c.str, string(b))
	}
	c.notNull(row)
	return ""
}

// parseInt parses a decimal int64 (optional sign) without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var x uint64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		x = x*10 + uint64(ch-'0')
	}
	if neg {
		if x > 1<<63 {
			return 0, false
		}
		return -int64(x), true
	}
	if x > math.MaxInt64 {
		return 0, false
	}
	return int64(x), true
}

func parseBool(b []byte) (bool, bool) {
	switch strings.ToLower(unsafeString(b)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// inferSample is how many data lines decide an undeclared column's type.
const inferSample = 1000

// inferKinds gives every undeclared column the narrowest type that holds
// all non-empty values of the first inferSample lines: INT64, DOUBLE,
// BOOLEAN, else STRING. A later value that does not fit is a type
// mismatch error (declare the type in the header to avoid it).
func inferKinds(cols []colSpec, data []byte, delim byte) {
	ok := make([][3]bool, len(cols)) // int, float, bool still possible
	seen := make([]bool, len(cols))
	for i := range ok {
		ok[i] = [3]bool{true, true, true}
	}
	var fields []field
	for n := 0; n < inferSample && len(data) > 0; n++ {
		var line []byte
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		var msg string
		fields, _, msg = splitLine(line, delim, fields)
		if msg != "" || len(fields) != len(cols) {
			break // the parser reports it
		}
		for i, f := range fields {
			if len(f.b) == 0 && !f.quoted {
				continue
			}
			seen[i] = true
			if f.quoted {
				ok[i] = [3]bool{}
				continue
			}
			if _, good := parseInt(f.b); !good {
				ok[i][0] = false
			}
			if _, err := strconv.ParseFloat(unsafeString(f.b), 64); err != nil {
				ok[i][1] = false
			}
			if _, good := parseBool(f.b); !good {
				ok[i][2] = false
			}
		}
	}
	for i := range cols {
		c := &cols[i]
		if c.kind != kindInfer {
			continue
		}
		switch {
		case !seen[i]:
			c.kind = kindString
		case ok[i][0]:
			c.kind = kindInt
		case ok[i][1]:
			c.kind = kindFloat
		case ok[i][2] && c.role != roleKey:
			c.kind = kindBool
		default:
			c.kind = kindString
		}
		if c.role == roleKey && c.kind != kindInt {
			c.kind = kindString
		}
	}
}

// allocColumns allocates the columns of a table of rows rows.
func allocColumns(cols []colSpec, rows int) []colData {
	out := make([]colData, len(cols))
	for i, c := range cols {
		cd := &out[i]
		switch {
		case c.role == roleFrom || c.role == roleTo:
			cd.ids = make([]uint32, rows)
		case c.kind == kindInt:
			cd.i64 = make([]int64, rows)
		case c.kind == kindFloat:
			cd.f64 = make([]float64, rows)
		case c.kind == kindBool:
			cd.b = make([]bool, rows)
		case c.kind == kindDate, c.kind == kindDateTime, c.kind == kindLocalDateTime, c.kind == kindLocalTime, c.kind == kindTime, c.kind == kindDuration:
			cd.any = make([]vector.Value, rows)
		default:
			cd.str = make([]string, rows)
		}
	}
	return out
}

// window is rows off..off+n of c as empty slices whose capacity ends at
// the window's end: appends fill the window in place.
func (c *colData) window(off, n int) colData {
	var w colData
	if c.ids != nil {
		w.ids = c.ids[off : off : off+n]
	}
	if c.i64 != nil {
		w.i64 = c.i64[off : off : off+n]
	}
	if c.f64 != nil {
		w.f64 = c.f64[off : off : off+n]
	}
	if c.b != nil {
		w.b = c.b[off : off : off+n]
	}
	if c.any != nil {
		w.any = c.any[off : off : off+n]
	}
	if c.str != nil {
		w.str = c.str[off : off : off+n]
	}
	return w
}

// finish cuts the columns to the rows parsed and joins the parts' null
// flags (kept per part: most columns have none).
func (t *table) finish(parts []*part) {
	for i := range t.data {
		c := &t.data[i]
		cut := func(n int) int { return min(n, t.rows) }
		c.ids, c.i64, c.f64 = c.ids[:cut(len(c.ids))], c.i64[:cut(len(c.i64))], c.f64[:cut(len(c.f64))]
		c.b, c.any, c.str = c.b[:cut(len(c.b))], c.any[:cut(len(c.any))], c.str[:cut(len(c.str))]
		hasNull := false
		for _, p := range parts {
			hasNull = hasNull || p.cols[i].null != nil
		}
		if !hasNull {
			continue
		}
		c.null = make([]bool, 0, t.rows)
		for _, p := range parts {
			n := len(c.null)
			c.null = append(c.null, p.cols[i].null...)
			for len(c.null) < n+p.rows {
				c.null = append(c.null, false)
			}
		}
	}
}
