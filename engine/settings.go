package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
)

// Settings are the parameters SET and SHOW read and change. They are
// database-wide: the HTTP API has no sessions, so a SET made by one request
// holds for every later query on the database until it is changed again or
// the server restarts (settings are not persisted).
//
// Each parameter documents what it governs; docs/http-api.md lists
// the same. Those that govern nothing yet are validated, stored and
// reported, and say so in their description.
type Settings struct {
	mu struct {
		sync.RWMutex // protects vals
		vals         map[string]int64
	}
}

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
	min, max int64
	def      int64
	desc     string
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
	{"connection_timeout", kindMillis, 0, math.MaxInt32, 120000,
		"idle time in milliseconds before the server closes a connection; reported only: the HTTP listener keeps the idle timeout it started with (120000 ms)"},
	{"enable_parallel_scan", kindBool, 0, 1, 1,
		"run a read query's scan pipelines on several workers (the server's parallelism, GOMAXPROCS unless configured); off: each query on one goroutine"},
	{"index_cache_size", kindBytes, 0, tB, 64 * mB,
		"memory for cached index pages; reported only: there are no indexes in this version"},
	{"max_connections", kindCount, 1, math.MaxInt32, 1000,
		"connection ceiling of the HTTP listener; applied to new connections at once (existing ones stay)"},
	{"max_memory_per_query", kindBytes, 0, tB, gB,
		"bytes of intermediate rows one query may hold (aggregation, DISTINCT, ORDER BY, cross products, write buffers); 0 means no limit; a query past it fails with 53200"},
	{"query_cache_size", kindCount, 0, 1 << 20, 0,
		"number of compiled plans to cache; reported only: plans are not cached in this version"},
	{"query_timeout", kindMillis, 0, math.MaxInt32, 30000,
		"longest run time of a query in milliseconds; 0 means no limit; a query past it fails with 40003"},
	{"shared_buffer_size", kindBytes, 0, tB, 128 * mB,
		"size of the page cache; reported only: the graph is held in memory and there is no page cache in this version"},
	{"work_mem", kindBytes, 0, tB, 4 * mB,
		"memory an operator may use before spilling to disk; reported only: no operator spills in this version (max_memory_per_query bounds memory)"},
}

func lookupParam(name string) (*param, bool) {
	for i := range params {
		if params[i].name == name {
			return &params[i], true
		}
	}
	return nil, false
}

// newSettings returns the defaults, with the query timeout the database
// was opened with (zero there means no limit).
func newSettings(opts Options) *Settings {
	s := &Settings{}
	s.mu.vals = map[string]int64{}
	for _, p := range params {
		s.mu.vals[p.name] = p.def
	}
	s.mu.vals["query_timeout"] = opts.QueryTimeout.Milliseconds()
	if opts.MaxConnections > 0 {
		s.mu.vals["max_connections"] = int64(opts.MaxConnections)
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

// Set validates and stores a value for a parameter. value is what SET
// parsed: int64, float64, string or bool.
func (s *Settings) Set(name string, value any) error {
	p, err := findParam(name)
	if err != nil {
		return err
	}
	v, err := p.parse(value)
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
			n, err := parseBytes(x)
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

// parseBytes reads a size: digits and an optional unit B, kB, MB, GB or TB
// (case-insensitive, binary multiples).
func parseBytes(s string) (int64, error) {
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

// all returns every parameter with its shown value, sorted by name.
func (s *Settings) all() [][3]string {
	out := make([][3]string, 0, len(params))
	for _, p := range params {
		out = append(out, [3]string{p.name, p.format(s.get(p.name)), p.desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
