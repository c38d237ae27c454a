package shell

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"

	"github.com/quiverdb/quiver/jsontext"
)

// The formats for programs: csv (a header of column names, then a record
// per row; null is an empty field, strings bare, lists, maps, nodes,
// relationships and paths as JSON), json (one array of row objects per
// result, the keys in column order) and jsonl (one row object per line).
// Values are the server's JSON: integers exact, floats with a fraction or
// an exponent, nodes {"id","labels","properties"} and so on.

// resultWriter writes one result in a format.
type resultWriter interface {
	begin(cols []string, types []string)
	row(vals []any)
	end() error
}

func newResultWriter(format string, w io.Writer, maxWidth int) resultWriter {
	switch format {
	case "csv":
		return &csvWriter{w: csv.NewWriter(w)}
	case "json":
		return &jsonWriter{w: w}
	case "jsonl":
		return &jsonWriter{w: w, lines: true}
	}
	return newTableWriter(w, maxWidth)
}

type csvWriter struct {
	w   *csv.Writer
	rec []string
}

func (c *csvWriter) begin(cols []string, _ []string) {
	if len(cols) > 0 {
		_ = c.w.Write(cols)
	}
	c.rec = make([]string, len(cols))
}

func (c *csvWriter) row(vals []any) {
	for i := range c.rec {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		switch x := v.(type) {
		case nil:
			c.rec[i] = ""
		case string:
			c.rec[i] = x
		default:
			c.rec[i] = string(appendJSON(nil, v))
		}
	}
	_ = c.w.Write(c.rec)
}

func (c *csvWriter) end() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonWriter struct {
	w     io.Writer
	lines bool
	keys  [][]byte // each column's "name": prefix
	buf   []byte
	n     int
	err   error
}

func (j *jsonWriter) begin(cols []string, _ []string) {
	j.keys = make([][]byte, len(cols))
	for i, c := range cols {
		j.keys[i] = append(jsontext.AppendString(nil, c), ':')
	}
	if !j.lines {
		j.write([]byte("["))
	}
}

func (j *jsonWriter) row(vals []any) {
	b := j.buf[:0]
	if !j.lines {
		if j.n > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, '{')
	for i, k := range j.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, k...)
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		b = appendJSON(b, v)
	}
	b = append(b, '}')
	if j.lines {
		b = append(b, '\n')
	}
	j.n++
	j.write(b)
	j.buf = b
}

func (j *jsonWriter) end() error {
	if !j.lines {
		if j.n > 0 {
			j.write([]byte("\n]\n"))
		} else {
			j.write([]byte("]\n"))
		}
	}
	return j.err
}

func (j *jsonWriter) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

// appendJSON writes v as JSON: a map's keys in order, a float always as
// a float (2.0), NaN and infinities (which JSON lacks) as null.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return jsontext.AppendInt(b, x)
	case float64:
		return jsontext.AppendFloat(b, x)
	case string:
		return jsontext.AppendString(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, x[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}
