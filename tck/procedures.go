package tck

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/cucumber/godog"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// sigRE matches a TCK procedure signature:
// test.my.proc(in :: INTEGER?) :: (out :: STRING?)
var sigRE = regexp.MustCompile(`^([\w.]+)\((.*?)\)\s*::\s*\((.*?)\)$`)

// procedure registers the test procedure a scenario declares: its table
// has a column per input then per output, and a call returns the outputs
// of the rows whose inputs equal the arguments, in table order.
func (s *scenario) procedure(sig string, t *godog.Table) error {
	m := sigRE.FindStringSubmatch(strings.TrimSpace(sig))
	if m == nil {
		return fmt.Errorf("cannot read the procedure signature %q", sig)
	}
	ins, err := parseFields(m[2])
	if err != nil {
		return err
	}
	outs, err := parseFields(m[3])
	if err != nil {
		return err
	}
	var table [][]any
	if len(t.Rows) > 1 {
		for _, row := range t.Rows[1:] {
			if len(row.Cells) != len(ins)+len(outs) {
				return fmt.Errorf("procedure table row has %d cells, want %d", len(row.Cells), len(ins)+len(outs))
			}
			vals := make([]any, len(row.Cells))
			for i, c := range row.Cells {
				if vals[i], err = parseLiteral(c.Value); err != nil {
					return err
				}
			}
			table = append(table, vals)
		}
	}
	c := &canon{}
	fn := func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
		var out [][]vector.Value
	rows:
		for _, row := range table {
			for i, a := range args {
				if c.value(a) != c.value(row[i]) {
					continue rows
				}
			}
			out = append(out, row[len(ins):])
		}
		return out, nil
	}
	return s.db.RegisterProcedure(engine.ProcedureSignature{Name: m[1], Inputs: ins, Outputs: outs}, fn)
}

// parseFields reads "name :: TYPE?, name :: TYPE?".
func parseFields(s string) ([]engine.ProcedureField, error) {
	var out []engine.ProcedureField
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, typ, ok := strings.Cut(part, "::")
		if !ok {
			return nil, fmt.Errorf("cannot read the procedure field %q", part)
		}
		typ = strings.TrimSuffix(strings.TrimSpace(typ), "?")
		out = append(out, engine.ProcedureField{Name: strings.TrimSpace(name), Type: typ})
	}
	return out, nil
}
