package engine

import (
	"sort"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/settings"
	"github.com/quiverdb/quiver/vector"
)

// Settings are the operator's values of the parameters SET and SHOW
// read: the ceilings of every session (engine/settings).
type Settings = settings.Settings

// Settings returns the operator's settings: the ceilings of every
// session.
func (db *DB) Settings() *Settings { return db.settings }

// ParseSize reads a size in bytes as SET and the server's flags write it:
// digits and an optional unit B, kB, MB, GB or TB (case-insensitive,
// binary multiples).
func ParseSize(s string) (int64, error) { return settings.ParseSize(s) }

// Session is one client's sequence of statements: the settings its SET
// statements changed, over the operator's Settings. A SET may tighten a
// limit and never loosen it; the operator's value caps the session's at
// every statement, so an operator lowering a limit later lowers it for
// open sessions too. A Session is safe for concurrent use; its statements
// run independently (each is its own transaction).
type Session struct {
	db       *DB
	settings *settings.Session
	// graph is the graph USE chose for the session's later statements
	// ("" until then: the session's database).
	graph string
}

// NewSession starts a session with no settings of its own. DB.Query runs
// each statement in a new one; a frontend with sessions (a wire
// connection, a transaction) keeps one.
func (db *DB) NewSession() *Session {
	return &Session{db: db, settings: settings.NewSession(db.settings)}
}

// QueryTimeout is the session's query_timeout; zero means no limit.
func (s *Session) QueryTimeout() time.Duration { return s.settings.QueryTimeout() }

// MaxMemoryPerQuery is the session's max_memory_per_query in bytes; zero
// means no limit.
func (s *Session) MaxMemoryPerQuery() int64 { return s.settings.MaxMemoryPerQuery() }

// parallelism is the number of workers a read query of the session may
// use.
func (s *Session) parallelism() int {
	if !s.settings.ParallelScan() {
		return 1
	}
	return s.db.parallelism()
}

// statement runs a session statement: SET answers the parameter's new
// value as one row (name, value); SHOW answers rows of strings.
func (s *Session) statement(st *gql.Session, start time.Time) (*Result, error) {
	db := s.db
	var names []string
	var rows [][]string
	switch st.Kind {
	case gql.SessionSet:
		if err := s.settings.Set(st.Name, st.Value); err != nil {
			return nil, at(err, st.ValuePos, st.NamePos)
		}
		fallthrough
	case gql.SessionShow:
		v, err := s.settings.Show(st.Name)
		if err != nil {
			return nil, at(err, st.NamePos, st.NamePos)
		}
		names = []string{"name", "value"}
		rows = [][]string{{strings.ToLower(st.Name), v}}
	case gql.SessionShowAll:
		names = []string{"name", "value", "description"}
		rows = s.settings.All()
	case gql.SessionShowFunctions:
		names = []string{"name", "signature", "description"}
		rows = functionRows()
	case gql.SessionShowProcedures:
		names = []string{"name", "signature", "privilege"}
		rows = db.procedureRows()
	default:
		return nil, errs.NotSupported("this session statement is not supported")
	}
	return db.stringResult(names, rows, start), nil
}

// at positions an engine error: value errors at the value, the unknown
// name at the name.
func at(err error, valuePos, namePos gql.Pos) error {
	e, ok := errs.As(err)
	if !ok || e.Position != nil {
		return err
	}
	p := valuePos
	if e.Code == errs.CodeSyntax {
		p = namePos
	}
	return e.At(p.Line, p.Column)
}

// specialForms are function-like expressions with their own syntax. Each
// is listed only when a probe query using it binds, so SHOW FUNCTIONS
// never lists a form this build does not accept.
var specialForms = []struct{ name, sig, desc, probe string }{
	{"reduce", "reduce(acc = init, x IN list | expr)", "folds a list into one value", "RETURN reduce(a = 0, x IN [1] | a + x)"},
	{"all", "all(x IN list WHERE pred)", "true when pred holds for every element", "RETURN all(x IN [1] WHERE x > 0)"},
	{"any", "any(x IN list WHERE pred)", "true when pred holds for some element", "RETURN any(x IN [1] WHERE x > 0)"},
	{"none", "none(x IN list WHERE pred)", "true when pred holds for no element", "RETURN none(x IN [1] WHERE x > 0)"},
	{"single", "single(x IN list WHERE pred)", "true when pred holds for exactly one element", "RETURN single(x IN [1] WHERE x > 0)"},
	{"exists", "exists(n.prop) | exists((a)-->(b)) | EXISTS { pattern }", "whether a property is set or a pattern matches", "MATCH (n) WHERE exists(n.p) AND exists((n)-->()) AND EXISTS { (n)-->() } RETURN n"},
	{"shortestPath", "shortestPath((a)-[*]-(b))", "a shortest path between two nodes", "MATCH p = shortestPath((a)-[*]-(b)) RETURN p"},
	{"allShortestPaths", "allShortestPaths((a)-[*]-(b))", "every shortest path between two nodes", "MATCH p = allShortestPaths((a)-[*]-(b)) RETURN p"},
}

func bindsOK(text string) bool {
	st, err := gql.Parse(text)
	if err != nil {
		return false
	}
	_, err = plan.Bind(st, plan.Env{})
	return err == nil
}

// functionRows lists every function a query may call: the scalar
// functions of the catalog (engine/functions, read generically: an
// entry's Doc is "signature — description"), the aggregates, and the
// special forms this build accepts, sorted by name.
func functionRows() [][]string {
	var rows [][]string
	for _, sig := range functions.All() {
		key := sig.Name
		doc := sig.Doc
		signature, desc, found := strings.Cut(doc, " — ")
		if !found {
			desc = ""
		}
		if signature == "" {
			signature = key + "(…)"
		}
		name := key
		if i := strings.IndexByte(signature, '('); i > 0 && strings.EqualFold(signature[:i], key) {
			name = signature[:i] // the documented spelling: toUpper, startNode
		}
		if desc == "" {
			desc = "returns " + resultTypeName(sig)
		}
		rows = append(rows, []string{name, signature, desc})
	}
	for _, a := range functions.Aggregates() {
		rows = append(rows, []string{a.Spelling, a.Sig, "aggregate: " + a.Doc})
	}
	for _, f := range specialForms {
		if _, scalar := functions.Lookup(strings.ToLower(f.name)); !scalar && bindsOK(f.probe) {
			rows = append(rows, []string{f.name, f.sig, f.desc})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := strings.ToLower(rows[i][0]), strings.ToLower(rows[j][0])
		if a != b {
			return a < b
		}
		return rows[i][1] < rows[j][1]
	})
	return rows
}

func resultTypeName(sig *functions.Func) string {
	if sig.Result == vector.Any {
		if sig.Kind != "" {
			return sig.Kind
		}
		return "ANY"
	}
	return sig.Result.String()
}

// stringRows yields fixed rows of strings a batch at a time.
type stringRows struct {
	rows  [][]string
	ncols int
	pos   int
	out   *vector.Batch
}

func (s *stringRows) Next() (*vector.Batch, error) {
	n := min(len(s.rows)-s.pos, vector.Capacity)
	if n <= 0 {
		return nil, nil
	}
	if s.out == nil {
		s.out = &vector.Batch{Cols: make([]*vector.Vector, s.ncols)}
		for i := range s.out.Cols {
			s.out.Cols[i] = vector.New(vector.String, vector.Capacity)
		}
	}
	for i := 0; i < n; i++ {
		for c, v := range s.rows[s.pos+i] {
			s.out.Cols[c].Str[i] = v
		}
	}
	s.out.Len, s.out.Sel = n, nil
	s.pos += n
	return s.out, nil
}
