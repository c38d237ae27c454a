package linearcheck

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// checkTimeout bounds each check; these histories take milliseconds.
const checkTimeout = time.Minute

// history builds a history by hand, with explicit times, so that the
// crafted cases mean exactly what they say.
type history struct{ ops []porcupine.Operation }

func (h *history) write(client int, key string, v int64, call, ret int64) {
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: Input{Kind: Write, Key: key, Value: v}, Call: call, Output: Output{}, Return: ret})
}

func (h *history) read(client int, key string, v int64, found bool, call, ret int64) {
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: Input{Kind: Read, Key: key}, Call: call, Output: Output{Value: v, Found: found}, Return: ret})
}

func (h *history) check(model porcupine.Model) porcupine.CheckResult {
	return porcupine.CheckOperationsTimeout(model, h.ops, checkTimeout)
}

func TestRegisterCraftedHistories(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(h *history)
		want  porcupine.CheckResult
	}{
		{"sequential", func(h *history) {
			h.read(0, "", 0, false, 0, 1)
			h.write(0, "", 1, 2, 3)
			h.read(1, "", 1, true, 4, 5)
		}, porcupine.Ok},
		{"a read concurrent with a write may see either", func(h *history) {
			h.write(0, "", 1, 0, 1)
			h.write(0, "", 2, 2, 10)
			h.read(1, "", 1, true, 3, 4)
			h.read(2, "", 2, true, 5, 6)
		}, porcupine.Ok},
		{"a stale read after a completed write", func(h *history) {
			h.write(0, "", 1, 0, 1)
			h.write(0, "", 2, 2, 3)
			h.read(1, "", 1, true, 4, 5)
		}, porcupine.Illegal},
		{"a read of a value never written", func(h *history) {
			h.write(0, "", 1, 0, 1)
			h.read(1, "", 7, true, 2, 3)
		}, porcupine.Illegal},
		{"nothing read after a completed write", func(h *history) {
			h.write(0, "", 1, 0, 1)
			h.read(1, "", 0, false, 2, 3)
		}, porcupine.Illegal},
		{"reads going back in time", func(h *history) {
			h.write(0, "", 1, 0, 1)
			h.write(0, "", 2, 2, 20)
			h.read(1, "", 2, true, 3, 4)
			h.read(2, "", 1, true, 5, 6) // after a read saw 2, while the write of 2 runs
		}, porcupine.Illegal},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &history{}
			c.build(h)
			if got := h.check(Register); got != c.want {
				t.Fatalf("Register: %v, want %v", got, c.want)
			}
			if got := h.check(Keyed); got != c.want {
				t.Fatalf("Keyed: %v, want %v", got, c.want)
			}
		})
	}
}

func TestKeyedPartitionsByKey(t *testing.T) {
	h := &history{}
	h.write(0, "a", 1, 0, 1)
	h.write(1, "b", 2, 0, 1)
	h.read(2, "a", 1, true, 2, 3)
	h.read(3, "b", 2, true, 2, 3)
	if got := h.check(Keyed); got != porcupine.Ok {
		t.Fatalf("Keyed: %v, want Ok", got)
	}
	// One register cannot hold both: the same history is illegal for it.
	if got := h.check(Register); got != porcupine.Illegal {
		t.Fatalf("Register: %v, want Illegal", got)
	}
	// A stale read on one key fails the map, whatever the others do.
	h.write(0, "a", 3, 4, 5)
	h.read(1, "a", 1, true, 6, 7)
	if got := h.check(Keyed); got != porcupine.Illegal {
		t.Fatalf("Keyed with a stale read: %v, want Illegal", got)
	}
}

func TestUnknownWritesMayOrMayNotHaveTakenEffect(t *testing.T) {
	// Write 2's outcome is unknown: a read after it may see 1 or 2, and
	// may see 2 long after the write's call, but only once: going back to
	// 1 after 2 was seen is illegal.
	for _, c := range []struct {
		name  string
		reads []int64
		want  porcupine.CheckResult
	}{
		{"never took effect", []int64{1, 1}, porcupine.Ok},
		{"took effect", []int64{2, 2}, porcupine.Ok},
		{"took effect late", []int64{1, 2}, porcupine.Ok},
		{"took effect and was undone", []int64{2, 1}, porcupine.Illegal},
		{"a value never written", []int64{3}, porcupine.Illegal},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewRecorder()
			r.BeginWrite(0, "k", 1).Wrote()
			r.BeginWrite(0, "k", 2).Unknown()
			r.BeginWrite(2, "k", 99).Failed() // refused: never visible
			for _, v := range c.reads {
				r.BeginRead(1, "k").ReadValue(v)
			}
			r.BeginRead(1, "k").Unknown() // no answer: no constraint
			if got := r.Counts(); got != (Counts{Done: 1 + len(c.reads), Unknown: 2, Failed: 1}) {
				t.Fatalf("counts %+v", got)
			}
			// The unknown write is checked only when a read saw its value:
			// otherwise it can be placed last, and is left out.
			want := 1 + len(c.reads)
			if slices.Contains(c.reads, 2) {
				want++
			}
			if ops := r.Operations(); len(ops) != want {
				t.Fatalf("%d operations checked, want %d", len(ops), want)
			}
			v, err := r.Check(Keyed, checkTimeout, "")
			if err != nil || v.Result != c.want {
				t.Fatalf("%v (%v), want %v", v.Result, err, c.want)
			}
		})
	}
	// A value refused for certain must never be read.
	r := NewRecorder()
	r.BeginWrite(0, "k", 99).Failed()
	r.BeginRead(1, "k").ReadValue(99)
	if v, _ := r.Check(Register, checkTimeout, ""); v.Result != porcupine.Illegal {
		t.Fatalf("a read of a refused write: %v, want Illegal", v.Result)
	}
}

func TestOpenOperationsArePending(t *testing.T) {
	// A write still open at check time (its client was abandoned) is
	// pending forever; an open read is left out.
	r := NewRecorder()
	r.BeginWrite(0, "", 5)
	r.BeginRead(1, "")
	r.BeginRead(2, "").ReadValue(5)
	if c := r.Counts(); c.Open != 2 || c.Done != 1 {
		t.Fatalf("counts %+v", c)
	}
	if v, _ := r.Check(Register, checkTimeout, ""); v.Result != porcupine.Ok || v.Ops != 2 {
		t.Fatalf("%+v, want Ok over 2 operations", v)
	}
}

func TestTimesAreMonotonic(t *testing.T) {
	r := NewRecorder()
	a := r.BeginWrite(0, "", 1)
	b := r.BeginRead(1, "")
	a.Wrote()
	b.ReadValue(1)
	ops := r.Operations()
	if ops[0].Call > ops[1].Call || ops[1].Call > ops[0].Return || ops[0].Return > ops[1].Return {
		t.Fatalf("times out of order: %+v", ops)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an operation returned twice without a panic")
		}
	}()
	a.Wrote()
}

func TestFailureWritesVisualisation(t *testing.T) {
	r := NewRecorder()
	r.BeginWrite(0, "x", 1).Wrote()
	r.BeginWrite(0, "x", 2).Wrote()
	r.BeginWrite(2, "y", 5).Unknown() // pending forever, and read: drawn too
	r.BeginRead(3, "y").ReadValue(5)
	r.BeginRead(1, "x").ReadValue(1)
	dir := t.TempDir()
	v, err := r.Check(Keyed, checkTimeout, dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != porcupine.Illegal || !strings.HasPrefix(v.Visualization, dir) {
		t.Fatalf("%+v", v)
	}
	html, err := os.ReadFile(v.Visualization)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<html") || !strings.Contains(string(html), "read(x) → 1") || !strings.Contains(string(html), "write(y, 5) ?") {
		t.Fatalf("the visualisation does not show the history: %.300s", html)
	}

	// Require names the file in its failure.
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }() // fakeT's Fatalf stops like t.Fatalf
		r.Require(ft, Keyed, checkTimeout)
	}()
	if !strings.Contains(ft.msg, "not linearizable") || !strings.Contains(ft.msg, ".html") {
		t.Fatalf("Require's failure: %q", ft.msg)
	}
}

// fakeT catches a Fatalf so that a test can see Require fail.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

func (f *fakeT) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// TestConcurrentRecordingOfALinearizableStore records a real concurrent
// history against a store that is linearizable by construction (one lock
// per key), with some writes' outcome thrown away as a timeout would,
// and checks that Require passes it. Writes pending forever are what
// makes a check slow (each may take effect anywhere after its call): at
// one in ten over four keys this history of 1600 operations took 40 s
// under -race, so it is kept smaller and spread over more keys.
func TestConcurrentRecordingOfALinearizableStore(t *testing.T) {
	var mu sync.Mutex // guards store
	store := map[string]int64{}
	var next atomic.Int64
	r := NewRecorder()
	var wg sync.WaitGroup
	for client := range 8 {
		rng := rand.New(rand.NewPCG(uint64(client), 1))
		wg.Go(func() {
			for range 100 {
				key := fmt.Sprintf("k%d", rng.IntN(16))
				if rng.IntN(2) == 0 {
					v := next.Add(1)
					op := r.BeginWrite(client, key, v)
					mu.Lock()
					store[key] = v
					mu.Unlock()
					if rng.IntN(20) == 0 {
						op.Unknown() // the answer was lost
					} else {
						op.Wrote()
					}
					continue
				}
				op := r.BeginRead(client, key)
				mu.Lock()
				v, ok := store[key]
				mu.Unlock()
				if ok {
					op.ReadValue(v)
				} else {
					op.ReadNothing()
				}
			}
		})
	}
	wg.Wait()
	if c := r.Counts(); c.Done+c.Unknown != 800 || c.Unknown == 0 {
		t.Fatalf("counts %+v", c)
	}
	r.Require(t, Keyed, checkTimeout)

	// The same store with a bug: a read served from a copy taken before
	// the last write to the key, after that write returned.
	old := next.Add(1)
	r.BeginWrite(0, "k0", old).Wrote()
	r.BeginWrite(0, "k0", next.Add(1)).Wrote()
	r.BeginRead(1, "k0").ReadValue(old)
	if v, _ := r.Check(Keyed, checkTimeout, ""); v.Result != porcupine.Illegal {
		t.Fatalf("a stale read passed: %v", v.Result)
	}
}

// Unknown writes no read saw are left out of the check, so that a history
// with many of them (a leader killed under load) is checked at once; one
// a read saw stays, and still constrains the order.
func TestUnreadUnknownWritesAreLeftOut(t *testing.T) {
	r := NewRecorder()
	r.BeginWrite(0, "k", 1).Wrote()
	var pending []*Op
	for c := range 60 {
		pending = append(pending, r.BeginWrite(10+c, "k", int64(100+c)))
	}
	r.BeginRead(1, "k").ReadValue(1)
	r.BeginRead(1, "k").ReadValue(107)
	for _, op := range pending {
		op.Unknown()
	}
	r.BeginRead(1, "k").ReadValue(1) // 107 was seen: going back to 1 is illegal
	if ops := r.Operations(); len(ops) != 5 {
		t.Fatalf("%d operations checked, want 5 (the known write, the read one, three reads)", len(ops))
	}
	if v, err := r.Check(Keyed, checkTimeout, ""); err != nil || v.Result != porcupine.Illegal {
		t.Fatalf("%v (%v), want Illegal", v.Result, err)
	}
	r2 := NewRecorder()
	r2.BeginWrite(0, "k", 1).Wrote()
	for c := range 60 {
		r2.BeginWrite(10+c, "k", int64(100+c)).Unknown()
	}
	r2.BeginRead(1, "k").ReadValue(1)
	r2.BeginRead(1, "k").ReadValue(107)
	r2.BeginRead(1, "k").ReadValue(107)
	if v, err := r2.Check(Keyed, checkTimeout, ""); err != nil || v.Result != porcupine.Ok {
		t.Fatalf("%v (%v), want Ok", v.Result, err)
	}
}
