package export

import (
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
)

// A CSV file is written as the importer's CSV reader reads it
// (docs/import.md, "The CSV format"): a header of `name:TYPE` fields,
// comma-separated; an empty field is a null; every string is quoted (so
// that "" is the empty string, not a null), a quote doubled. The
// importer's CSV has no types for times of day, timestamps, lists or
// maps and no newline inside quotes: such a value is an error that
// suggests Parquet.

type csvSink struct {
	opt  csvOptions
	out  *output
	g    *group
	keys int
	line []byte
}

// csvOptions are a CSV file's dialect: the export's is the importer's
// (commas, a header); COPY … TO may change both, and writes strings with
// line breaks quoted (RFC 4180), which the importer cannot read back.
type csvOptions struct {
	delim  byte
	header bool
	breaks bool
}

func newCSVSink(out *output, g *group, keyNames []string, opt csvOptions) (*csvSink, error) {
	var h []string
	for _, k := range keyNames {
		h = append(h, k+":INT64")
	}
	for _, c := range g.cols {
		t := c.kind.csvType()
		if t == "" {
			return nil, errs.NotSupported("%s: property %s holds %s values, which the importer's CSV cannot hold; export as Parquet (--format parquet)", g.what(), c.name, c.kind)
		}
		if opt.breaks && opt.header && (c.name == "" || strings.ContainsAny(c.name, ",:\"\r\n"+string(opt.delim)) || strings.TrimSpace(c.name) != c.name) {
			return nil, errs.NotSupported("%s: the column name %q cannot be a CSV header field; rename it with AS, or write HEADER = false", g.what(), c.name)
		}
		if !opt.breaks && (c.name == "" || strings.ContainsAny(c.name, ",:\"\r\n") || strings.TrimSpace(c.name) != c.name) {
			return nil, errs.NotSupported("%s: the property name %q cannot be a CSV header field; export as Parquet (--format parquet)", g.what(), c.name)
		}
		h = append(h, c.name+":"+t)
	}
	s := &csvSink{opt: opt, out: out, g: g, keys: len(keyNames)}
	if opt.header {
		s.out.Write([]byte(strings.Join(h, string(opt.delim)) + "\n"))
	}
	return s, s.out.err
}

func (s *csvSink) write(b *batch) error {
	next := make([]int, len(s.g.cols)) // each column's next present value
	for r := 0; r < b.rows; r++ {
		line := s.line[:0]
		for k := 0; k < s.keys; k++ {
			if k > 0 {
				line = append(line, s.opt.delim)
			}
			line = strconv.AppendInt(line, b.keys[k][r], 10)
		}
		for i := range s.g.cols {
			if s.keys > 0 || i > 0 {
				line = append(line, s.opt.delim)
			}
			cb := &b.cols[i]
			if cb.def[r] == 0 {
				continue
			}
			j := next[i]
			next[i]++
			switch s.g.cols[i].kind {
			case kindInt:
				line = strconv.AppendInt(line, cb.i64[j], 10)
			case kindFloat:
				line = strconv.AppendFloat(line, cb.f64[j], 'g', -1, 64)
			case kindBool:
				line = strconv.AppendBool(line, cb.b[j])
			case kindDate:
				line = append(line, temporal.Date{Days: cb.i64[j]}.String()...)
			case kindLocalTime:
				line = append(line, temporal.LocalTime{Nanos: cb.i64[j]}.String()...)
			case kindLocalDateTime:
				sec, nanos := s.g.cols[i].fromTimestamp(cb.i64[j])
				line = append(line, temporal.LocalDateTime{Sec: sec, Nanos: nanos}.String()...)
			case kindDateTime:
				sec, nanos := s.g.cols[i].fromTimestamp(cb.i64[j])
				line = append(line, temporal.DateTime{Sec: sec, Nanos: nanos}.String()...)
			case kindZonedDateTime, kindTime, kindDuration:
				line = append(line, cb.s[j]...)
			case kindString, kindJSON:
				x := cb.s[j]
				if !s.opt.breaks && strings.ContainsAny(x, "\r\n") {
					return errs.NotSupported("%s: property %s holds a string with a line break, which the importer's CSV cannot read; export as Parquet (--format parquet)", s.g.what(), s.g.cols[i].name)
				}
				line = append(line, '"')
				line = append(line, strings.ReplaceAll(x, `"`, `""`)...)
				line = append(line, '"')
			}
		}
		line = append(line, '\n')
		s.line = line
		if _, err := s.out.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func (s *csvSink) close() error { return s.out.close() }
