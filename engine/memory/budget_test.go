package memory

import (
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// Three statements share a budget of 100 bytes, each with its own larger
// limit. The charge that takes the sum past the budget fails the
// statement holding the most, whichever charged; the others go on, and
// what the failed one held leaves the budget when it closes.
func TestBudgetFailsTheLargest(t *testing.T) {
	b := NewBudget(100)
	var killed [3]error
	ts := make([]*Tracker, 3)
	for i := range ts {
		ts[i] = &Tracker{Limit: 1000, Budget: b, Kill: func(err error) { killed[i] = err }}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ts[0].Charge(50))
	must(ts[1].Charge(30))
	// The third statement's charge passes the budget; the first holds
	// the most and fails, the third goes on.
	must(ts[2].Charge(30))
	if e, ok := errs.As(killed[0]); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("largest not failed: %v", killed)
	}
	if killed[1] != nil || killed[2] != nil {
		t.Fatalf("others failed: %v", killed)
	}
	if e, ok := errs.As(ts[0].Charge(1)); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("a failed statement's next charge: %v", e)
	}
	if err := ts[0].Reserve(0); err == nil {
		t.Error("a failed statement's Reserve succeeded")
	}
	ts[0].Close()
	if got := b.Used(); got != 60 {
		t.Errorf("after the largest closed the budget holds %d, want 60", got)
	}
	must(ts[1].Charge(30))
	ts[1].Close()
	ts[2].Close()
	if got, n := b.Used(), b.Running(); got != 0 || n != 0 {
		t.Errorf("after all closed: used %d by %d, want 0 by 0", got, n)
	}
	if ts[1].Peak() != 60 || ts[2].Peak() != 30 {
		t.Errorf("peaks %d and %d, want 60 and 30", ts[1].Peak(), ts[2].Peak())
	}
}

// When the charging statement is itself the largest, its charge fails.
func TestBudgetFailsTheChargerWhenLargest(t *testing.T) {
	b := NewBudget(100)
	small := &Tracker{Budget: b}
	big := &Tracker{Budget: b}
	if err := small.Charge(10); err != nil {
		t.Fatal(err)
	}
	if err := big.Charge(95); err == nil {
		t.Fatal("the largest statement's charge past the budget succeeded")
	}
	// While the failed statement unwinds, holding its memory, the
	// others are not failed for it.
	if err := small.Charge(1); err != nil {
		t.Errorf("the smaller statement failed too: %v", err)
	}
	if b.FailLargest(budgetExceeded(b)) {
		t.Error("FailLargest failed a second statement before the first gave its memory back")
	}
	big.Close()
	if !b.FailLargest(budgetExceeded(b)) || small.killed.Load() == nil {
		t.Error("FailLargest after the first closed: the remaining statement was not failed")
	}
}

// Reserve refuses what the limit cannot hold without charging it.
func TestReserve(t *testing.T) {
	m := &Tracker{Limit: 100}
	if err := m.Charge(60); err != nil {
		t.Fatal(err)
	}
	if err := m.Reserve(40); err != nil {
		t.Errorf("Reserve within the limit: %v", err)
	}
	if e, ok := errs.As(m.Reserve(41)); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("Reserve past the limit: %v", e)
	}
	if m.Used() != 60 {
		t.Errorf("Reserve charged: used %d", m.Used())
	}
	unlimited := &Tracker{}
	if err := unlimited.Reserve(1 << 60); err != nil {
		t.Errorf("Reserve without a limit: %v", err)
	}
}

// Past the budget, Reserve fails as a charge would: only the statement
// that would then hold the most. A smaller one's reservation goes on
// while a larger one holds what would make room (its charge then fails
// that one), or a failed one still gives it back; a reservation nothing
// could make room for fails.
func TestReserveFailsOnlyTheLargest(t *testing.T) {
	b := NewBudget(100)
	var killed [3]error
	ts := make([]*Tracker, 3)
	for i := range ts {
		ts[i] = &Tracker{Budget: b, Kill: func(err error) { killed[i] = err }}
	}
	if err := ts[0].Charge(50); err != nil {
		t.Fatal(err)
	}
	if err := ts[1].Charge(30); err != nil {
		t.Fatal(err)
	}
	if err := ts[2].Reserve(30); err != nil {
		t.Fatalf("a reservation past the budget by a smaller statement: %v", err)
	}
	if e, ok := errs.As(ts[2].Reserve(51)); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("a reservation that would make the statement the largest: %v", e)
	}
	if e, ok := errs.As(ts[1].Reserve(91)); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("a reservation no other statement could make room for: %v", e)
	}
	if killed != [3]error{} || b.Used() != 80 {
		t.Fatalf("Reserve failed a statement or charged: %v, used %d", killed, b.Used())
	}
	// The charge that follows the reservation fails the largest.
	if err := ts[2].Charge(30); err != nil {
		t.Fatal(err)
	}
	if killed[0] == nil || killed[1] != nil || killed[2] != nil {
		t.Fatalf("the charge after the reservation failed %v, want the first", killed)
	}
	// While the failed one unwinds holding 50, a reservation it will make
	// room for goes on; one it cannot fails.
	if err := ts[1].Reserve(40); err != nil {
		t.Errorf("a reservation the unwinding statement makes room for: %v", err)
	}
	if e, ok := errs.As(ts[1].Reserve(71)); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("a reservation past what the unwinding statement gives back: %v", e)
	}
}

// A failed statement giving its memory back while another charges past
// the budget never gets a third statement failed: between the failed
// one's tracker and the budget dropping its bytes, the budget looked
// over its limit while the failed one held nothing, and the charger,
// holding the most of the rest, failed (seen over HTTP under load).
func TestReleaseDuringChargeFailsNobody(t *testing.T) {
	for i := range 20000 {
		b := NewBudget(100)
		var killed [3]error
		ts := make([]*Tracker, 3)
		for j := range ts {
			ts[j] = &Tracker{Budget: b, Kill: func(err error) { killed[j] = err }}
		}
		_ = ts[0].Charge(60)
		_ = ts[1].Charge(10)
		_ = ts[2].Charge(31) // fails ts[0], the largest
		if killed[0] == nil {
			t.Fatal("the largest was not failed")
		}
		done := make(chan struct{})
		go func() {
			ts[0].Release(60) // it unwinds
			close(done)
		}()
		_ = ts[2].Charge(1)
		<-done
		if killed[1] != nil || killed[2] != nil {
			t.Fatalf("iteration %d: a statement failed while the failed one gave its memory back: %v", i, killed)
		}
	}
}

// Workers charge one query's tracker and its budget at once (-race).
func TestBudgetConcurrentCharges(t *testing.T) {
	b := NewBudget(1 << 40)
	root := &Tracker{Budget: b}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := &Tracker{}
			worker.Forward(root)
			for i := 0; i < 1000; i++ {
				if err := worker.Charge(3); err != nil {
					t.Error(err)
					return
				}
				worker.Release(1)
			}
		}()
	}
	wg.Wait()
	if root.Used() != 8*1000*2 || b.Used() != 8*1000*2 {
		t.Errorf("used %d, budget %d, want %d", root.Used(), b.Used(), 8*1000*2)
	}
	root.Close()
	if b.Used() != 0 {
		t.Errorf("budget after close: %d", b.Used())
	}
}

// What the server holds outside statements (an index) counts in the
// budget: a hold that does not fit is refused without failing anyone,
// and a statement then has only what is left.
func TestBudgetHold(t *testing.T) {
	b := NewBudget(100)
	if !b.Hold(40) || b.Hold(11) {
		t.Fatalf("hold 40 then 11 of 100 (at most half held): held %d", b.Held())
	}
	if b.Used() != 40 || b.Held() != 40 {
		t.Fatalf("used %d held %d, want 40 40", b.Used(), b.Held())
	}
	var failed error
	m := &Tracker{Budget: b, Kill: func(err error) { failed = err }}
	if err := m.Charge(50); err != nil || failed != nil {
		t.Fatalf("a statement charging 50 next to 40 held: %v (killed %v)", err, failed)
	}
	if !b.Hold(10) || b.Hold(1) {
		t.Fatalf("held 10 more, to half the budget, but not 1 beyond: held %d", b.Held())
	}
	if err := m.Charge(1); err == nil || failed == nil {
		t.Fatalf("a statement charging 51 next to 50 held: %v (killed %v), want 53200", err, failed)
	}
	m.Close()
	b.Unhold(50)
	if b.Used() != 0 || b.Held() != 0 || !b.Hold(50) || b.Hold(1) {
		t.Fatalf("after unhold: used %d held %d", b.Used(), b.Held())
	}
	var none *Budget
	if !none.Hold(1<<40) || none.Held() != 0 {
		t.Fatal("a nil budget holds anything")
	}
}

// A graph's budget (ChildBudget) is part of the server's: its statements
// fail when the graph's budget runs out, naming it, while the server's
// others go on; what they charge counts in the server's budget too, and
// leaves both when they close.
func TestChildBudget(t *testing.T) {
	server := NewBudget(1000)
	graph := ChildBudget(300, server, "graph sales")
	var killedG, killedS error
	g := &Tracker{Budget: graph, Kill: func(err error) { killedG = err }}
	s := &Tracker{Budget: server, Kill: func(err error) { killedS = err }}
	if err := s.Charge(500); err != nil {
		t.Fatal(err)
	}
	if err := g.Charge(200); err != nil {
		t.Fatal(err)
	}
	if server.Used() != 700 || graph.Used() != 200 {
		t.Fatalf("used: server %d, graph %d", server.Used(), graph.Used())
	}
	if err := g.Reserve(200); err == nil {
		t.Fatal("a reservation past the graph's budget passed")
	}
	err := g.Charge(150)
	e, ok := errs.As(err)
	if !ok || e.Code != errs.CodeOutOfMemory || killedG == nil || killedS != nil {
		t.Fatalf("past the graph's budget: %v (graph killed %v, server killed %v)", err, killedG, killedS)
	}
	if want := "memory budget of graph sales"; !strings.Contains(e.Message, want) {
		t.Fatalf("message %q does not say %q", e.Message, want)
	}
	g.Close()
	if server.Used() != 500 || graph.Used() != 0 || server.Running() != 1 {
		t.Fatalf("after close: server %d, graph %d, running %d", server.Used(), graph.Used(), server.Running())
	}
	// Held memory counts in both, and must fit both.
	if graph.Hold(400) {
		t.Fatal("held past the graph's budget")
	}
	if !graph.Hold(100) || server.Used() != 600 || server.Held() != 100 {
		t.Fatalf("hold: server used %d held %d", server.Used(), server.Held())
	}
	graph.Unhold(100)
	s.Release(500)
	if server.Used() != 0 || graph.Used() != 0 {
		t.Fatalf("at the end: server %d, graph %d", server.Used(), graph.Used())
	}
}
