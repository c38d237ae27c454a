// Package procs holds the procedures callable with CALL: a registry of
// named procedures with typed inputs and outputs, and the built-in
// catalog procedures (db.labels, db.relationshipTypes, db.propertyKeys).
// The binder resolves a CALL against the database's registry and checks
// argument count and types; the executor runs the procedure once per
// input row.
package procs

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Field is one input parameter or output column: a name and a type name
// (ANY, BOOLEAN, INTEGER, FLOAT, NUMBER, STRING, LIST, MAP, NODE,
// RELATIONSHIP, PATH). Every field accepts null. An Optional input may
// be left out of a call (optional inputs come last); it is then null.
type Field struct {
	Name     string
	Type     string
	Optional bool
}

// RequiredInputs is the number of inputs a call must give.
func (s Signature) RequiredInputs() int {
	n := 0
	for _, f := range s.Inputs {
		if !f.Optional {
			n++
		}
	}
	return n
}

// Signature describes a procedure: its namespaced name (db.labels) and
// fields. A procedure without outputs is void: calling it keeps each
// input row once.
type Signature struct {
	Name    string
	Inputs  []Field
	Outputs []Field
	// Requires is the privilege a principal needs to call the procedure
	// (docs/security.md). Zero means PrivAdmin: a procedure that does
	// not say what it touches is kept from readers and editors.
	Requires Privilege
}

// Required is the privilege calling the procedure needs: Requires, or
// PrivAdmin when it is zero.
func (s Signature) Required() Privilege {
	if s.Requires == 0 {
		return PrivAdmin
	}
	return s.Requires
}

func (s Signature) String() string {
	f := func(fs []Field) string {
		parts := make([]string, len(fs))
		for i, x := range fs {
			parts[i] = x.Name + " :: " + x.Type
			if x.Optional {
				parts[i] = x.Name + " = null :: " + x.Type
			}
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s(%s) :: (%s)", s.Name, f(s.Inputs), f(s.Outputs))
}

// Context is what a procedure may read: the query's context (for
// cancellation) and the snapshot and catalog the query reads, and what
// it must respect: the statement's memory accountant (charge what grows
// with the data; nil charges nothing) and the number of workers it may
// run on.
type Context struct {
	Ctx         context.Context
	Reader      Reader
	Catalog     *catalog.Catalog
	Mem         *memory.Tracker
	Parallelism int
	// Visible, set when row-level security restricts the statement's
	// principal (nil otherwise), computes once what the principal sees
	// at the statement's snapshot, charged to Mem. Only procedures that
	// keep to it are callable then (plan.FilteredProcedure).
	Visible func() (*Visibility, error)
}

// Reader is what the built-in procedures read of the graph at the query's
// snapshot; the storage layer's snapshots and transactions are Readers.
// Defined here, it keeps procs (and the binder, which reads procedure
// signatures) above storage without importing it.
type Reader interface {
	// LabelNodes is the set of nodes carrying l; empty (not nil) when none.
	LabelNodes(l catalog.LabelID) *roaring.Bitmap
	// TypeRelCount is the number of live relationships of type t.
	TypeRelCount(t catalog.TypeID) int64
	// NodePropType and RelPropType are vector.Null when no node (no
	// relationship) has k.
	NodePropType(k catalog.KeyID) vector.Type
	RelPropType(k catalog.KeyID) vector.Type
	// Schema lists the indexes and constraints.
	Schema() *catalog.Schema
}

// Func computes a procedure's rows for one set of arguments (one value per
// input, already checked against the input types). Each row has one value
// per output; a void procedure returns no rows.
type Func func(c *Context, args []vector.Value) ([][]vector.Value, error)

// Stream is a procedure's result handed out as typed columns, a batch at
// a time, for procedures whose results are large (the graph algorithms
// yield a row per node): no row of boxed values is ever built.
type Stream interface {
	// Fill writes up to n rows into rows at, at+1, … of cols, one
	// vector per output in signature order, nil for an output the query
	// does not yield (a stream skips computing it). A non-nil vector has
	// the output's VectorType and room for at+n rows. Fill returns the
	// rows written; 0 means the stream is done.
	Fill(cols []*vector.Vector, at, n int) (int, error)
	// Close releases what the stream holds (memory it charged); called
	// once, also when the query stops early.
	Close()
}

// StreamFunc starts a streamed procedure for one set of arguments.
type StreamFunc func(c *Context, args []vector.Value) (Stream, error)

// Procedure is a registered procedure: exactly one of Fn and Stream is
// set.
type Procedure struct {
	Signature
	Fn     Func
	Stream StreamFunc
}

// Registry maps names to procedures. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	procs map[string]*Procedure
	// version counts the registrations: a plan bound with the
	// registry at one version holds the procedures of that version.
	version atomic.Uint64
	// under, when set, is the registry whose procedures this one also
	// offers, its own taking precedence: a graph's registry over the
	// server's (the server-wide procedures frontends register).
	under *Registry
}

// NewRegistry returns a registry holding the built-in procedures.
func NewRegistry() *Registry {
	r := &Registry{procs: map[string]*Procedure{}}
	for _, p := range builtins() {
		if err := r.Register(p); err != nil {
			panic("BUG: procs: " + err.Error())
		}
	}
	return r
}

// Register adds or replaces a procedure.
func (r *Registry) Register(p *Procedure) error {
	if (p.Fn == nil) == (p.Stream == nil) {
		return fmt.Errorf("procedure %s needs exactly one implementation (Fn or Stream)", p.Name)
	}
	if p.Stream != nil && len(p.Outputs) == 0 {
		return fmt.Errorf("procedure %s: a streamed procedure has outputs", p.Name)
	}
	if p.Name == "" || strings.HasPrefix(p.Name, ".") || strings.HasSuffix(p.Name, ".") || strings.Contains(p.Name, "..") {
		return fmt.Errorf("invalid procedure name %q", p.Name)
	}
	if p.Requires&^(PrivRead|PrivWrite|PrivAdmin) != 0 {
		return fmt.Errorf("procedure %s: unknown privilege bits %#x in Requires", p.Name, uint8(p.Requires))
	}
	seen := map[string]bool{}
	for _, fs := range [][]Field{p.Inputs, p.Outputs} {
		for _, f := range fs {
			if !KnownType(f.Type) {
				return fmt.Errorf("procedure %s: unknown type %q of %s", p.Name, f.Type, f.Name)
			}
		}
	}
	for i, f := range p.Inputs {
		if i > 0 && p.Inputs[i-1].Optional && !f.Optional {
			return fmt.Errorf("procedure %s: required input %s follows an optional one", p.Name, f.Name)
		}
	}
	for _, f := range p.Outputs {
		if f.Optional {
			return fmt.Errorf("procedure %s: output %s cannot be optional", p.Name, f.Name)
		}
		if seen[f.Name] {
			return fmt.Errorf("procedure %s: output %s declared twice", p.Name, f.Name)
		}
		seen[f.Name] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.procs[p.Name] = p
	r.version.Add(1)
	return nil
}

// Under makes r offer parent's procedures too, r's own first. Call it
// before r is used.
func (r *Registry) Under(parent *Registry) { r.under = parent }

// Version changes whenever a procedure is registered or replaced: a plan
// bound at another version may name a procedure that is no longer the
// registered one (the engine's plan cache checks it).
func (r *Registry) Version() uint64 {
	v := r.version.Load()
	if r.under != nil {
		v += r.under.Version() << 32
	}
	return v
}

// Lookup finds a procedure by name. Names are case-sensitive, as in Cypher.
func (r *Registry) Lookup(name string) (*Procedure, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.procs[name]
	if !ok && r.under != nil {
		return r.under.Lookup(name)
	}
	return p, ok
}

// Names lists the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.procs))
	for n := range r.procs {
		out = append(out, n)
	}
	if r.under != nil {
		for _, n := range r.under.Names() {
			if _, own := r.procs[n]; !own {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Unknown is the error for a call of a name no procedure has, suggesting
// the nearest registered name when one is close.
func (r *Registry) Unknown(name string) *errs.Error {
	e := errs.UnknownProcedure("there is no procedure %s", name)
	best, bestD := "", 0
	for _, n := range r.Names() {
		d := errs.EditDistance(strings.ToLower(name), strings.ToLower(n))
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= max(2, len(name)/3) {
		e.Suggestion = "did you mean " + best + "?"
	}
	return e
}
