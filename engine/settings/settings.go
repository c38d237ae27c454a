// Package settings owns the parameters SET and SHOW read: the
// operator's values (Settings), the ceilings of every session, and a
// session's own values over them (Session, session.go), which may tighten
// a limit and never loosen it.
package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
)

// Settings are the operator's values of the parameters SET and SHOW read:
// what the server was started with (flags, Options) and what an embedder
// changes through Settings.Set. They are the ceilings of every session:
// a SET in a query changes its Session only, and may tighten a limit
// (a shorter query_timeout, a smaller max_memory_per_query) but never
// loosen one, so no client can switch the protections off for everyone
// (Session).
//
// Each parameter documents what it governs; docs/http-api.md and
// docs/limits.md list the same. Those that govern nothing yet are
// validated, stored and reported, and say so in their description.
type Settings struct {
	mu struct {
		sync.RWMutex // protects vals
		vals         map[string]int64
	}
}

// scope says who may change a parameter, and how far.
type scope uint8

const (
	// scopeFree parameters govern nothing shared: a session may set any
	// valid value.
	scopeFree scope = iota
	// scopeCeiling parameters are limits where 0 means none: a session may
	// lower the operator's value, never raise it.
	scopeCeiling
	// scopeSwitch parameters are on/off: a session may switch off what the
	// operator allows, never on what the operator switched off.
	scopeSwitch
	// scopeOperator parameters govern the listener, shared by every
	// client: only the operator sets them.
	scopeOperator
)

// paramKind is how a parameter's value is written and shown.
type paramKind uint8

const (
	kindMillis paramKind = iota // integer milliseconds
	kindBytes                   // integer bytes, or a string with a unit: '64MB'
	kindCount                   // plain integer
	kindBool                    // true/false
)

// param is one settable parameter.
type param struct {
	name     string
	kind     paramKind
	scope    scope
	min, max int64
	def      int64
	desc     string
	// flag names the server option that sets the operator's value, for
	// the error a session gets when it may not change it.
	flag string
}

// Byte units accepted in memory sizes: binary multiples, as PostgreSQL
// reads them (1kB = 1024 bytes).
const (
	kB = 1 << 10
	mB = 1 << 20
	gB = 1 << 30
	tB = 1 << 40
)

// params lists every parameter, in SHOW ALL order (alphabetical).
var params = []param{
	{"connection_timeout", kindMillis, scopeOperator, 0, math.MaxInt32, 120000,
		"idle time in milliseconds before the server closes a keep-alive connection; set by the operator only (the HTTP listener's idle timeout)", "the HTTP listener's idle timeout"},
	{"enable_parallel_scan", kindBool, scopeSwitch, 0, 1, 1,
		"run a read query's scan pipelines on several workers (the server's parallelism, GOMAXPROCS unless configured); off: each query on one goroutine; a session may switch it off", "Options.Parallelism"},
	{"index_cache_size", kindBytes, scopeFree, 0, tB, 64 * mB,
		"memory for cached index pages; reported only: indexes are held in memory and there is no index page cache in this version", ""},
	{"max_connections", kindCount, scopeOperator, 1, math.MaxInt32, 1000,
		"connection ceiling of the HTTP listener; set by the operator only (--max-connections)", "--max-connections"},
	{"max_memory_per_query", kindBytes, scopeCeiling, 0, tB, gB,
		"bytes one query may hold: operator state, values its expressions build, collected lists and paths, its response buffer; 0 means no limit; a query past it fails with 53200; a session may lower it", "--max-memory-per-query"},
	{"query_cache_size", kindCount, scopeFree, 0, 1 << 20, 0,
		"number of compiled plans to cache; reported only: plans are not cached in this version", ""},
	{"query_timeout", kindMillis, scopeCeiling, 0, math.MaxInt32, 30000,
		"longest run time of a query in milliseconds, planning included; 0 means no limit; a query past it fails with 40003; a session may lower it", "--query-timeout"},
	{"shared_buffer_size", kindBytes, scopeFree, 0, tB, 128 * mB,
		"size of the page cache; reported only: the graph is held in memory and there is no page cache in this version", ""},
	{"work_mem", kindBytes, scopeFree, 0, tB, 4 * mB,
		"memory an operator may use before spilling to disk; reported only: no operator spills in this version (max_memory_per_query bounds memory)", ""},
}

func lookupParam(name string) (*param, bool) {
	for i := range params {
		if params[i].name == name {
			return &params[i], true
		}
	}
	return nil, false
}

// Defaults are the operator's values a database was opened with
// (engine.Options): zero keeps a parameter's default, except
// QueryTimeout, where zero means no limit, and MaxMemoryPerQuery, where a
// negative value means no limit.
type Defaults struct {
	QueryTimeout      time.Duration
	MaxConnections    int
	MaxMemoryPerQuery int64
	IdleTimeout       time.Duration
}

// New returns the parameters' defaults, with the operator's values of d.
func New(opts Defaults) *Settings {
	s := &Settings{}
	s.mu.vals = map[string]int64{}
	for _, p := range params {
		s.mu.vals[p.name] = p.def
	}
	s.mu.vals["query_timeout"] = opts.QueryTimeout.Milliseconds()
	if opts.MaxConnections > 0 {
		s.mu.vals["max_connections"] = int64(opts.MaxConnections)
	}
	if opts.MaxMemoryPerQuery != 0 {
		s.mu.vals["max_memory_per_query"] = max(opts.MaxMemoryPerQuery, 0) // negative: no limit
	}
	if opts.IdleTimeout > 0 {
		s.mu.vals["connection_timeout"] = opts.IdleTimeout.Milliseconds()
	}
	return s
}

// get returns a parameter's value; the name must be known.
func (s *Settings) get(name string) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mu.vals[name]
}

// QueryTimeout is the query_timeout setting; zero means no limit.
func (s *Settings) QueryTimeout() time.Duration {
	return time.Duration(s.get("query_timeout")) * time.Millisecond
}

// MaxMemoryPerQuery is the max_memory_per_query setting in bytes; zero
// means no limit.
func (s *Settings) MaxMemoryPerQuery() int64 { return s.get("max_memory_per_query") }

// ParallelScan is the enable_parallel_scan setting.
func (s *Settings) ParallelScan() bool { return s.get("enable_parallel_scan") != 0 }

// MaxConnections is the max_connections setting.
func (s *Settings) MaxConnections() int { return int(s.get("max_connections")) }

// Set validates and stores the operator's value for a parameter. value is
// what SET parsed: int64, float64, string or bool. Queries never call it:
// their SET changes their Session.
func (s *Settings) Set(name string, value any) error {
	p, v, err := parseSetting(name, value)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.vals[p.name] = v
	return nil
}

// Show returns a parameter's value as SHOW prints it.
func (s *Settings) Show(name string) (string, error) {
	p, err := findParam(name)
	if err != nil {
		return "", err
	}
	return p.format(s.get(p.name)), nil
}

// parseSetting finds a parameter and validates a value for it.
func parseSetting(name string, value any) (*param, int64, error) {
	p, err := findParam(name)
	if err != nil {
		return nil, 0, err
	}
	v, err := p.parse(value)
	return p, v, err
}

// findParam looks a parameter up by name, case-insensitively, and
// suggests the nearest name when there is none.
func findParam(name string) (*param, error) {
	if p, ok := lookupParam(strings.ToLower(name)); ok {
		return p, nil
	}
	e := errs.Semantic("unknown parameter %q", name)
	best, bestD := "", math.MaxInt
	for _, p := range params {
		if d := errs.EditDistance(strings.ToLower(name), p.name); d < bestD {
			best, bestD = p.name, d
		}
	}
	if bestD <= max(3, len(name)/3) {
		return nil, e.Suggest(best)
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return nil, e.Suggest("one of " + strings.Join(names, ", "))
}

func (p *param) parse(value any) (int64, error) {
	bad := func(format string, args ...any) error {
		return errs.DataCode(errs.CodeInvalidParam, "invalid value for %s: %s", p.name, fmt.Sprintf(format, args...))
	}
	var v int64
	switch p.kind {
	case kindBool:
		switch x := value.(type) {
		case bool:
			if x {
				return 1, nil
			}
			return 0, nil
		case string:
			switch strings.ToLower(x) {
			case "true", "on":
				return 1, nil
			case "false", "off":
				return 0, nil
			}
		}
		return 0, bad("expected true or false, got %s", showValue(value))
	case kindBytes:
		switch x := value.(type) {
		case int64:
			v = x
		case string:
			n, err := ParseSize(x)
			if err != nil {
				return 0, bad("%v", err)
			}
			v = n
		default:
			return 0, bad("expected a whole number of bytes or a size such as '64MB', got %s", showValue(value))
		}
	default:
		x, ok := value.(int64)
		if !ok {
			unit := ""
			if p.kind == kindMillis {
				unit = " of milliseconds"
			}
			return 0, bad("expected a whole number%s, got %s", unit, showValue(value))
		}
		v = x
	}
	if v < p.min || v > p.max {
		return 0, bad("%s is outside the range %s to %s", p.format(v), p.format(p.min), p.format(p.max))
	}
	return v, nil
}

// ParseSize reads a size in bytes as SET and the server's flags write it:
// digits and an optional unit B, kB, MB, GB or TB (case-insensitive,
// binary multiples).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is not a size; write a whole number with an optional unit B, kB, MB, GB or TB", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", s)
	}
	mult := int64(1)
	switch strings.ToUpper(strings.TrimSpace(t[i:])) {
	case "", "B":
	case "KB":
		mult = kB
	case "MB":
		mult = mB
	case "GB":
		mult = gB
	case "TB":
		mult = tB
	default:
		return 0, fmt.Errorf("%q has an unknown unit; use B, kB, MB, GB or TB", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// format renders a value as SHOW prints it.
func (p *param) format(v int64) string {
	switch p.kind {
	case kindBool:
		return strconv.FormatBool(v != 0)
	case kindBytes:
		for _, u := range []struct {
			name string
			n    int64
		}{{"TB", tB}, {"GB", gB}, {"MB", mB}, {"kB", kB}} {
			if v != 0 && v%u.n == 0 {
				return strconv.FormatInt(v/u.n, 10) + u.name
			}
		}
		return strconv.FormatInt(v, 10) + "B"
	}
	return strconv.FormatInt(v, 10)
}

func showValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
