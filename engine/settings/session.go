package settings

import (
	"fmt"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
)

// Session is one session's values of the parameters, over the operator's
// Settings. A SET may tighten a limit and never loosen it; the operator's
// value caps the session's at every read, so an operator lowering a
// limit later lowers it for open sessions too. A Session is safe for
// concurrent use; its zero value is not: make one with NewSession.
type Session struct {
	op *Settings
	mu struct {
		sync.Mutex                  // protects vals
		vals       map[string]int64 // values this session SET
	}
}

// NewSession starts a session over op with no values of its own.
func NewSession(op *Settings) *Session { return &Session{op: op} }

// value is a parameter's effective value in the session: the operator's,
// tightened by the session's own.
func (s *Session) value(p *param) int64 {
	op := s.op.get(p.name)
	s.mu.Lock()
	own, set := s.mu.vals[p.name]
	s.mu.Unlock()
	if !set {
		return op
	}
	switch p.scope {
	case scopeCeiling:
		if op == 0 || (own != 0 && own < op) {
			return own
		}
		return op
	case scopeSwitch:
		return min(own, op)
	case scopeOperator:
		return op
	}
	return own
}

// Set validates and stores a session value (a query's SET): within the
// parameter's range, and within the operator's limit.
func (s *Session) Set(name string, value any) error {
	p, v, err := parseSetting(name, value)
	if err != nil {
		return err
	}
	op := s.op.get(p.name)
	switch p.scope {
	case scopeOperator:
		return errs.New(errs.CodePermission, errs.CatPermission,
			"%s is set by the server's operator (%s), not by a query", p.name, p.flag)
	case scopeCeiling:
		if op != 0 && (v == 0 || v > op) {
			return errs.New(errs.CodePermission, errs.CatPermission,
				"%s cannot be raised above the server's limit of %s (%s); a session may only lower it", p.name, p.format(op), p.flag).
				Suggest(fmt.Sprintf("SET %s = %s or less", p.name, p.format(op)))
		}
	case scopeSwitch:
		if v > op {
			return errs.New(errs.CodePermission, errs.CatPermission,
				"%s is off on this server (%s); a session may only switch it off", p.name, p.flag)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.vals == nil {
		s.mu.vals = map[string]int64{}
	}
	s.mu.vals[p.name] = v
	return nil
}

// Show returns a parameter's effective value as SHOW prints it.
func (s *Session) Show(name string) (string, error) {
	p, err := findParam(name)
	if err != nil {
		return "", err
	}
	return p.format(s.value(p)), nil
}

// All lists every parameter as SHOW ALL does, in name order: its name,
// its effective value and its description.
func (s *Session) All() [][]string {
	rows := make([][]string, 0, len(params))
	for _, p := range params {
		rows = append(rows, []string{p.name, p.format(s.value(&p)), p.desc})
	}
	return rows
}

// QueryTimeout is the session's query_timeout; zero means no limit.
func (s *Session) QueryTimeout() time.Duration {
	p, _ := lookupParam("query_timeout")
	return time.Duration(s.value(p)) * time.Millisecond
}

// MaxMemoryPerQuery is the session's max_memory_per_query in bytes; zero
// means no limit.
func (s *Session) MaxMemoryPerQuery() int64 {
	p, _ := lookupParam("max_memory_per_query")
	return s.value(p)
}

// ParallelScan is the session's enable_parallel_scan.
func (s *Session) ParallelScan() bool {
	p, _ := lookupParam("enable_parallel_scan")
	return s.value(p) != 0
}
