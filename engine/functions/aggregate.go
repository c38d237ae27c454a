package functions

import (
	"sort"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Agg is one aggregate function: its signature, its type rules and its
// kernels, registered together by the file that implements it (agg_*.go),
// as a scalar function is. The binder reads the signature, SHOW FUNCTIONS
// the docs, and engine/exec's aggregation operators run the kernels
// through the state New makes, never asking which aggregate it is.
type Agg struct {
	// Name is the lower-case name calls are looked up by; Spelling is
	// the documented one (stDev), which messages use.
	Name, Spelling string
	// Sig and Doc are the usage and the one-line description SHOW
	// FUNCTIONS lists.
	Sig, Doc string
	// Params is the number of arguments: 1, or 2 where the second is a
	// parameter of the aggregate (the percentile of percentileCont).
	Params int
	// Star marks the aggregate that may count rows: count(*).
	Star bool
	// Type is the static result type given the argument's (vector.Any
	// when unknown, or for count(*)); Kind names a generic result the
	// plan knows (LIST).
	Type func(arg vector.Type) vector.Type
	Kind string
	// New makes the per-group state of one call.
	New func(env AggEnv) AggState

	// Properties the planner and the strategies read instead of the
	// aggregate's name.

	// DupInsensitive: a value seen twice gives the result once seen
	// (min, max), so duplicated rows do not change it.
	DupInsensitive bool
	// RowCount: over values that are never null, the result is the
	// number of rows (count), so a column that cannot be null counts
	// as count(*).
	RowCount bool
	// FromSummaries computes the aggregate from per-group summaries of
	// a property's values (the factorized strategy); nil when it
	// cannot. FloatSummaries says it takes summaries of FLOAT values
	// too.
	FromSummaries  func(out *vector.Vector, s *Summaries) *vector.Vector
	FloatSummaries bool
}

// AggState is one aggregate's state over numbered groups. The typed
// loops are inside Update: the executor calls it once a batch, never
// once a value.
type AggState interface {
	// Grow makes room for n groups, new groups empty. The caller grows
	// by doubling, so a new group costs no call.
	Grow(n int)
	// Update folds the selected rows of b into their groups (group[r]
	// is row r's), skipping rows whose value (args[0]) is null; args[0]
	// is nil for count(*), args[1] the parameter of a two-argument
	// aggregate.
	Update(b *vector.Batch, args []*vector.Vector, group []int32) error
	// Add folds row r (its value not null) into group g: DISTINCT's
	// first-seen rows, one at a time.
	Add(g int32, args []*vector.Vector, r int) error
	// Merge folds every group fg of a partial state of the same call
	// (a worker's) into group to[fg]; from is spent afterwards.
	Merge(from AggState, to []int32) error
	// MergeValue folds one distinct value of group fg of a partial
	// DISTINCT state into group g.
	MergeValue(g int32, x vector.Value, from AggState, fg int32) error
	// Result gives the values of groups 0..n-1: a typed vector when it
	// has one, else nil after handing each group's value to push, in
	// group order.
	Result(n int, push func(vector.Value)) (*vector.Vector, error)
	// Memory: GroupBytes is one group's share of the arrays Grow keeps;
	// Bytes the arrays by capacity and the values held; Charged takes
	// the bytes the state charged itself since asked last (a large
	// list's growth, charged before it is allocated); ResultBytes what
	// result v holds beyond its arrays, less what it shares with the
	// state. Release gives pooled arrays back once results are out.
	GroupBytes() int64
	Bytes() int64
	Charged() int64
	ResultBytes(v *vector.Vector, n int) int64
	Release()
}

// ArgChecker is a state whose parameter (args[1]) is checked on every
// row with a value, DISTINCT or not, before duplicates are dropped.
type ArgChecker interface {
	CheckArg(g int32, args []*vector.Vector, r int) error
}

// AggEnv is what states reach beyond their values: the pooled arrays
// and the memory accountant of engine/exec, which implements it.
type AggEnv interface {
	// GrowInts is s extended with zeros to n, from a pool when large;
	// PutInts gives an array back to it.
	GrowInts(s []int64, n int) []int64
	PutInts(s []int64)
	// GrowList makes room for need values in a group's list, charging a
	// large growth at once: it returns the list, the capacity added and
	// the bytes charged.
	GrowList(s []vector.Value, need int) ([]vector.Value, int, int64, error)
}

// Summaries are what the factorized strategy keeps of one property per
// group: the sum (a FLOAT sum as its bits, when Float), the number of
// values, the least and the greatest. A count of rows has N alone.
// SumType is the type a FLOAT sum takes over the whole result, as the
// general path types it: INTEGER when no group met a value, FLOAT when
// every group did, else mixed (Any).
type Summaries struct {
	Sum, N, Min, Max []int64
	Float            bool
	SumType          vector.Type
}

// aggregates holds every aggregate by name; the agg_*.go files fill it.
var aggregates = map[string]*Agg{}

// registerAgg adds an aggregate to the catalog and returns its entry.
// A name registered twice (aggregate or scalar) or an entry without a
// state is a programming error that any test catches.
func registerAgg(a Agg) *Agg {
	if _, dup := aggregates[a.Name]; dup || a.New == nil || a.Type == nil || a.Params < 1 {
		panic("BUG: functions: aggregate " + a.Name + " registered twice or incomplete")
	}
	aggregates[a.Name] = &a
	return &a
}

// LookupAgg returns the aggregate of a lower-case name.
func LookupAgg(name string) (*Agg, bool) {
	a, ok := aggregates[name]
	return a, ok
}

// Aggregates returns every aggregate, sorted by name.
func Aggregates() []*Agg {
	out := make([]*Agg, 0, len(aggregates))
	for _, a := range aggregates {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// fixedType is a Type rule that ignores the argument.
func fixedType(t vector.Type) func(vector.Type) vector.Type {
	return func(vector.Type) vector.Type { return t }
}

// counts is the number of values of each group, which every state keeps
// (avg divides by it, the variances weigh by it).
type counts struct {
	env   AggEnv
	count []int64
}

func (c *counts) grow(n int) { c.count = c.env.GrowInts(c.count, n) }

func (c *counts) release() {
	c.env.PutInts(c.count)
	c.count = nil
}

// countRows adds the selected rows with a value to their groups' counts.
func (c *counts) countRows(b *vector.Batch, v *vector.Vector, group []int32) {
	count := c.count
	if v == nil || v.Valid == nil {
		if b.Sel == nil {
			for r := 0; r < b.Len; r++ {
				count[group[r]]++
			}
		} else {
			for _, r := range b.Sel {
				count[group[r]]++
			}
		}
		return
	}
	for i := 0; i < b.Rows(); i++ {
		if r := b.Row(i); !v.IsNull(r) {
			count[group[r]]++
		}
	}
}

// sameArray reports whether x and y start at the same element.
func sameArray(x, y []int64) bool {
	return cap(x) > 0 && cap(y) > 0 && &x[:1][0] == &y[:1][0]
}

// lists are the groups' lists of values (collect, the percentiles),
// counted by capacity (listCap) and by the bytes of their values (held).
type lists struct {
	env     AggEnv
	lists   [][]vector.Value
	listCap int64
	held    int64
	charged int64
}

// add appends x to group g's list.
func (l *lists) add(g int32, x vector.Value) error {
	if s := l.lists[g]; len(s) == cap(s) {
		s, grown, charged, err := l.env.GrowList(s, len(s)+1)
		l.lists[g] = s
		l.listCap += int64(grown)
		l.charged += charged
		if err != nil {
			return err
		}
	}
	l.lists[g] = append(l.lists[g], x)
	l.held += memory.ValueBytes(x) - memory.IfaceBytes // the slot is charged by capacity
	return nil
}

// appendFrom moves group fg's list of m to group g's. An empty list
// takes m's array as it is; m's array is dropped either way (m is done
// with once merged).
func (l *lists) appendFrom(g int32, m *lists, fg int32) error {
	src := m.lists[fg]
	m.lists[fg] = nil
	if len(src) == 0 {
		return nil
	}
	if len(l.lists[g]) == 0 {
		l.listCap += int64(cap(src) - cap(l.lists[g]))
		l.lists[g] = src
		return nil
	}
	s, grown, charged, err := l.env.GrowList(l.lists[g], len(l.lists[g])+len(src))
	l.lists[g] = s
	l.listCap += int64(grown)
	l.charged += charged
	if err != nil {
		return err
	}
	l.lists[g] = append(l.lists[g], src...)
	return nil
}

// bytes is the lists by capacity, their headers and their values.
func (l *lists) bytes() int64 {
	return memory.IfaceBytes*l.listCap + memory.SliceBytes*int64(cap(l.lists)) + l.held
}

func (l *lists) takeCharged() int64 {
	c := l.charged
	l.charged = 0
	return c
}
