package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// execute runs one statement or command of a script.
func (sh *shell) execute(ctx context.Context, st statement) error {
	if st.command {
		return sh.command(ctx, st)
	}
	return sh.query(ctx, &st, st.text)
}

// query runs a statement and prints its result as it streams, then its
// plan (EXPLAIN), its profile (PROFILE) and a line with the row count,
// the time and what it wrote. Ctrl-C cancels it (interactive mode).
func (sh *shell) query(ctx context.Context, st *statement, text string) error {
	// PROFILE's operators come as a list in the plan's order: the plan
	// gives them their tree.
	var tree map[string]any
	if kw, rest := leadingKeyword(text); kw == "PROFILE" {
		tree = sh.explainTree(ctx, rest)
	}
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer sh.watchInterrupt(cancel)()
	prog := sh.startProgress()
	defer prog.stop()
	start := time.Now()
	r, err := sh.conn.run(qctx, text, sh.params)
	if err != nil {
		prog.stop()
		return sh.failed(qctx, err)
	}
	cols := r.Columns()
	names, types := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.Name, c.Type
	}
	w := newResultWriter(sh.format, sh.o.Stdout, sh.o.MaxWidth)
	if len(cols) > 0 {
		w.begin(names, types)
	}
	var n int64
	for r.Next() {
		if n == 0 {
			prog.stop()
		}
		w.row(r.Values())
		n++
	}
	prog.stop()
	err = r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if len(cols) > 0 {
		if werr := w.end(); werr != nil && err == nil {
			err = fmt.Errorf("cannot write the result: %w", werr)
		}
	}
	if err != nil {
		return sh.failed(qctx, err)
	}
	elapsed := time.Since(start)
	if p := r.Plan(); p != nil {
		writePlan(sh.o.Stdout, p, nil)
	}
	if p := r.Profile(); p != nil {
		if tree == nil {
			tree = map[string]any{}
		}
		writeProfile(sh.o.Stdout, tree, p)
	}
	if g, ok := useAlone(text); ok {
		// The server accepted USE name: the session's graph from now on,
		// on both transports and after a reconnection.
		sh.conn.setGraph(g)
		sh.o.Graph = g
	}
	sum := r.Summary()
	if sh.comp != nil && wrote(sum) {
		sh.comp.stale = true
	}
	sh.footer(n, elapsed, sum, len(cols) == 0 && r.Plan() != nil)
	return nil
}

// explainTree is the plan of query, nil when it cannot be had.
func (sh *shell) explainTree(ctx context.Context, query string) map[string]any {
	r, err := sh.conn.run(ctx, "EXPLAIN "+query, sh.params)
	if err != nil {
		if isConnError(err) {
			sh.conn.lost()
		}
		return nil
	}
	for r.Next() {
	}
	r.Close()
	return r.Plan()
}

// failed turns a query's error into the shell's: a cancelled one
// (Ctrl-C) or a lost connection forgets the connection, which the next
// statement opens again.
func (sh *shell) failed(qctx context.Context, err error) error {
	if qctx.Err() != nil && !serverError(err) {
		if sh.conn.lost() {
			return fmt.Errorf("%w (its session was closed to stop it: the open transaction was rolled back)", errCancelled)
		}
		return errCancelled
	}
	if isConnError(err) && sh.conn.lost() {
		return &connError{fmt.Errorf("%w; the open transaction was rolled back", err)}
	}
	return err
}

// writeCounters are the summary's write counters in the order shown.
var writeCounters = []struct{ key, one, many string }{
	{"nodes_created", "node created", "nodes created"},
	{"nodes_deleted", "node deleted", "nodes deleted"},
	{"relationships_created", "relationship created", "relationships created"},
	{"relationships_deleted", "relationship deleted", "relationships deleted"},
	{"properties_set", "property set", "properties set"},
	{"properties_removed", "property removed", "properties removed"},
	{"labels_added", "label added", "labels added"},
	{"labels_removed", "label removed", "labels removed"},
}

func counter(sum map[string]any, key string) int64 {
	switch x := sum[key].(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

func wrote(sum map[string]any) bool {
	for _, c := range writeCounters {
		if counter(sum, c.key) != 0 {
			return true
		}
	}
	return false
}

// footer writes "3 rows (1.2 ms), 2 nodes created": to standard output
// under a table, to standard error in the other formats and only
// interactively, so that a script's CSV or JSON output is only data.
func (sh *shell) footer(n int64, elapsed time.Duration, sum map[string]any, plan bool) {
	var w io.Writer
	switch {
	case sh.format == "table":
		w = sh.o.Stdout
	case sh.o.Interactive:
		w = sh.o.Stderr
	default:
		return
	}
	var b strings.Builder
	if plan {
		fmt.Fprintf(&b, "plan (%s)", formatElapsed(elapsed))
	} else {
		fmt.Fprintf(&b, "%d %s (%s)", n, plural(n, "row", "rows"), formatElapsed(elapsed))
	}
	for _, c := range writeCounters {
		if k := counter(sum, c.key); k != 0 {
			fmt.Fprintf(&b, ", %d %s", k, plural(k, c.one, c.many))
		}
	}
	fmt.Fprintln(w, b.String())
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// formatElapsed writes a duration to a tenth of a millisecond below a
// second, to a hundredth of a second above.
func formatElapsed(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// queryValue runs query and returns its one value (the first column of
// its first row); the rows are not printed.
func (sh *shell) queryValue(ctx context.Context, query string, params map[string]any) (any, error) {
	vals, err := sh.queryColumn(ctx, query, params)
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return nil, errors.New("the query returned no row")
	}
	return vals[0], nil
}

// queryColumn runs query and returns its first column's values.
func (sh *shell) queryColumn(ctx context.Context, query string, params map[string]any) ([]any, error) {
	r, err := sh.conn.run(ctx, query, params)
	if err != nil {
		return nil, sh.failed(ctx, err)
	}
	var out []any
	for r.Next() {
		if v := r.Values(); len(v) > 0 {
			out = append(out, v[0])
		}
	}
	err = r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, sh.failed(ctx, err)
	}
	return out, nil
}

// useAlone reports whether text is USE name and nothing else, and returns
// the name as the server keeps it (lower case, without backquotes).
func useAlone(text string) (string, bool) {
	kw, rest := leadingKeyword(strings.TrimRight(strings.TrimSpace(text), "; \t\r\n"))
	rest = strings.TrimSpace(rest)
	if kw != "USE" || rest == "" || strings.ContainsAny(rest, " \t\r\n") {
		return "", false
	}
	if len(rest) > 2 && rest[0] == '`' && rest[len(rest)-1] == '`' {
		rest = rest[1 : len(rest)-1]
	}
	return strings.ToLower(rest), true
}
