package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// errQuit ends the shell (:quit, :exit).
var errQuit = errors.New("quit")

// maxSourceDepth bounds :source files sourcing others.
const maxSourceDepth = 16

const helpText = `Statements end with ';' and may span lines. Commands start with ':'.

  :param name => expr   set a parameter to the value of a GQL expression ($name)
  :params               list the parameters
  :params {json}        set parameters from a JSON object
  :params clear         remove every parameter
  :begin                open a transaction (the prompt shows it)
  :commit               commit it
  :rollback             roll it back
  :explain <query>      show the query's plan as a tree, without running it
  :profile <query>      run the query, then show its plan with each operator's work
  :schema               labels and relationship types with counts, property keys,
                        indexes and constraints
  :status               the connection and the server's version, counts and storage
  :format <fmt>         table, csv, json or jsonl (without an argument: the current)
  :source <file>        run the statements and commands of a file
  :help                 this text
  :quit                 leave (Ctrl-D too)

Ctrl-C cancels a running query; at the prompt it clears the line.
`

// command runs a colon command.
func (sh *shell) command(ctx context.Context, st statement) error {
	name, arg, _ := strings.Cut(strings.TrimPrefix(st.text, ":"), " ")
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(name) {
	case "help", "h", "?":
		fmt.Fprint(sh.o.Stdout, helpText)
		return nil
	case "quit", "exit", "q":
		return errQuit
	case "format":
		return sh.setFormat(arg)
	case "param":
		return sh.setParam(ctx, arg)
	case "params":
		return sh.paramsCommand(arg)
	case "begin":
		if err := sh.conn.begin(ctx); err != nil {
			return sh.failed(ctx, err)
		}
		sh.note("transaction open")
		return nil
	case "commit":
		if err := sh.conn.commit(ctx); err != nil {
			return sh.failed(ctx, err)
		}
		sh.note("committed")
		return nil
	case "rollback":
		if err := sh.conn.rollback(ctx); err != nil {
			return sh.failed(ctx, err)
		}
		sh.note("rolled back")
		return nil
	case "explain", "profile":
		if arg == "" {
			return fmt.Errorf(":%s needs a query", name)
		}
		// ":explain q" sends "EXPLAIN q": one character less before q.
		q := statement{text: strings.ToUpper(name) + " " + arg, source: st.source, line: st.line, col: st.col + 1}
		return sh.query(ctx, &q, q.text)
	case "schema":
		return sh.schema(ctx)
	case "status":
		return sh.status(ctx)
	case "source":
		return sh.source(ctx, arg)
	}
	return fmt.Errorf("unknown command :%s (:help lists them)", name)
}

// note writes a command's confirmation where a person sees it: standard
// error, interactively only.
func (sh *shell) note(s string) {
	if sh.o.Interactive {
		fmt.Fprintln(sh.o.Stderr, s)
	}
}

func (sh *shell) setFormat(arg string) error {
	if arg == "" {
		fmt.Fprintln(sh.o.Stdout, sh.format)
		return nil
	}
	if !validFormat(arg) {
		return fmt.Errorf("unknown format %q (table, csv, json or jsonl)", arg)
	}
	sh.format = arg
	return nil
}

// setParam evaluates `name => expr` on the server (RETURN expr), so a
// parameter takes any GQL value: 42, 'Ada', [1, 2], {since: 2001}, or
// an expression of other parameters.
func (sh *shell) setParam(ctx context.Context, arg string) error {
	name, expr, ok := strings.Cut(arg, "=>")
	name, expr = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "$")), strings.TrimSpace(expr)
	if !ok || name == "" || expr == "" {
		return errors.New("usage: :param name => expression")
	}
	v, err := sh.queryValue(ctx, "RETURN "+expr+" AS value", sh.params)
	if err != nil {
		return err
	}
	sh.params[name] = v
	return nil
}

// paramsCommand lists the parameters, clears them, or merges a JSON
// object into them.
func (sh *shell) paramsCommand(arg string) error {
	switch {
	case arg == "":
		if sh.format != "table" {
			b := appendJSON(nil, sh.params)
			fmt.Fprintln(sh.o.Stdout, string(b))
			return nil
		}
		names := make([]string, 0, len(sh.params))
		for k := range sh.params {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(sh.o.Stdout, ":param %s => %s\n", name(k), literal(sh.params[k]))
		}
		return nil
	case arg == "clear":
		clear(sh.params)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(arg)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return errors.New("usage: :params {\"name\": value, …} (a JSON object), :params clear, or :params to list them")
	}
	if dec.More() {
		return errors.New(":params takes one JSON object")
	}
	for k, v := range m {
		sh.params[k] = fromJSON(v)
	}
	return nil
}

// literal writes v as in GQL: a string quoted.
func literal(v any) string {
	var b strings.Builder
	writeValue(&b, v, true)
	return b.String()
}

// fromJSON turns json.Number into int64 (an integer that fits) or
// float64, throughout.
func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			if i, err := x.Int64(); err == nil {
				return i
			}
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromJSON(x[k])
		}
	}
	return v
}

// source runs a file's statements and commands, stopping at the first
// error.
func (sh *shell) source(ctx context.Context, file string) error {
	if file == "" {
		return errors.New("usage: :source file")
	}
	if sh.depth >= maxSourceDepth {
		return fmt.Errorf(":source nests deeper than %d files", maxSourceDepth)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	sh.depth++
	defer func() { sh.depth-- }()
	sp := newSplitter(file)
	run := func(st statement) error {
		err := sh.execute(ctx, st)
		if err != nil && !errors.Is(err, errQuit) {
			sh.describeError(err, &st)
			return errSourced
		}
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		for _, st := range sp.feed(line) {
			if err := run(st); err != nil {
				return err
			}
		}
	}
	if st, ok := sp.flush(); ok {
		return run(st)
	}
	return nil
}

// errSourced is a :source that stopped at an error already described.
var errSourced = errors.New("stopped at the error above")

// schema lists labels and relationship types with their counts, the
// property keys, the indexes and the constraints.
func (sh *shell) schema(ctx context.Context) error {
	labels, err := sh.queryColumn(ctx, "CALL db.labels() YIELD label RETURN label", nil)
	if err != nil {
		return err
	}
	types, err := sh.queryColumn(ctx, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType", nil)
	if err != nil {
		return err
	}
	keys, err := sh.queryColumn(ctx, "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey", nil)
	if err != nil {
		return err
	}
	out := sh.o.Stdout
	fmt.Fprintln(out, "Labels:")
	if err := sh.counts(ctx, labels, "MATCH (n:%s) RETURN count(n)"); err != nil {
		return err
	}
	fmt.Fprintln(out, "Relationship types:")
	if err := sh.counts(ctx, types, "MATCH ()-[r:%s]->() RETURN count(r)"); err != nil {
		return err
	}
	fmt.Fprintln(out, "Property keys:")
	for _, k := range keys {
		fmt.Fprintf(out, "  %s\n", name(toStr(k)))
	}
	fmt.Fprintln(out, "Indexes:")
	if err := sh.listRows(ctx, "CALL db.indexes() YIELD name, type, label, properties RETURN name, type, label, properties"); err != nil {
		return err
	}
	fmt.Fprintln(out, "Constraints:")
	return sh.listRows(ctx, "CALL db.constraints() YIELD name, type, label, properties RETURN name, type, label, properties")
}

// counts writes each name with the count query (a format with %s for
// the name) gives, the counts aligned right.
func (sh *shell) counts(ctx context.Context, names []any, query string) error {
	var nums, labels []string
	width := 0
	for _, l := range names {
		n, err := sh.queryValue(ctx, fmt.Sprintf(query, name(toStr(l))), nil)
		if err != nil {
			return err
		}
		nums, labels = append(nums, display(n, "")), append(labels, ":"+name(toStr(l)))
		width = max(width, len(nums[len(nums)-1]))
	}
	for i := range nums {
		fmt.Fprintf(sh.o.Stdout, "  %*s  %s\n", width, nums[i], labels[i])
	}
	return nil
}

// listRows writes each row of query as an indented line, "(none)" for
// no row.
func (sh *shell) listRows(ctx context.Context, query string) error {
	r, err := sh.conn.run(ctx, query, nil)
	if err != nil {
		return sh.failed(ctx, err)
	}
	n := 0
	for r.Next() {
		var parts []string
		for _, v := range r.Values() {
			parts = append(parts, display(v, ""))
		}
		fmt.Fprintf(sh.o.Stdout, "  %s\n", strings.Join(parts, "  "))
		n++
	}
	err = r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sh.failed(ctx, err)
	}
	if n == 0 {
		fmt.Fprintln(sh.o.Stdout, "  (none)")
	}
	return nil
}

// status writes the connection and the server's GET /api/v1/status.
func (sh *shell) status(ctx context.Context) error {
	out := sh.o.Stdout
	for _, l := range sh.conn.info() {
		fmt.Fprintln(out, l)
	}
	user := sh.o.User
	if user == "" {
		user = "(none)"
	}
	fmt.Fprintf(out, "user: %s\nformat: %s\nparameters: %d\n", user, sh.format, len(sh.params))
	st, err := statusClient(&sh.o).Status(ctx)
	if err != nil {
		fmt.Fprintf(out, "server status: unavailable (%v)\n", err)
		return nil
	}
	fmt.Fprintf(out, "server: Quiver %s, %s, up %ds\n", st.Version, st.Role, st.UptimeSeconds)
	fmt.Fprintf(out, "graph: %d nodes, %d relationships\n", st.Statistics.TotalNodes, st.Statistics.TotalRelationships)
	fmt.Fprintf(out, "storage: %s used, %s free\n", bytesIEC(st.Storage.UsedBytes), bytesIEC(st.Storage.FreeBytes))
	return nil
}

// bytesIEC writes n bytes in KiB, MiB, GiB as fits.
func bytesIEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	d, e := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		d *= unit
		e++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(d), "KMGTPE"[e])
}
