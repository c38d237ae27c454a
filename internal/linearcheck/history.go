package linearcheck

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// Kind is what an operation does to its register.
type Kind uint8

const (
	Read Kind = iota
	Write
)

// Input is an operation's request: a read of Key, or a write of Value to
// Key. Register ignores Key.
type Input struct {
	Kind  Kind
	Key   string
	Value int64
}

// Output is an operation's answer. A read answers the value it saw, or
// Found false when the register was never written; a write answers
// nothing. Unknown marks an operation whose outcome is unknown, for the
// visualisation.
type Output struct {
	Value   int64
	Found   bool
	Unknown bool
}

// Recorder records a concurrent history. It is safe for concurrent use;
// its zero value is not usable, make one with NewRecorder.
type Recorder struct {
	base time.Time // the monotonic origin of the history's times
	mu   struct {
		sync.Mutex // guards ops and open
		ops        []*Op
	}
}

// NewRecorder starts a history; its times count from now.
func NewRecorder() *Recorder { return &Recorder{base: time.Now()} }

// Op is one operation of a history, from its call to its return.
type Op struct {
	r      *Recorder
	client int
	in     Input
	call   int64
	mu     struct {
		sync.Mutex // guards the fields below
		state      opState
		out        Output
		ret        int64
	}
}

type opState uint8

const (
	opOpen    opState = iota // called, not returned: unknown at check time
	opDone                   // returned with an answer
	opUnknown                // returned without one: may or may not have taken effect
	opFailed                 // certainly took no effect
)

// now is the time since the recorder's start on the monotonic clock, in
// nanoseconds.
func (r *Recorder) now() int64 { return int64(time.Since(r.base)) }

// Begin records the call of an operation by client (numbered from 0, as
// the visualisation wants), just before the request is sent.
func (r *Recorder) Begin(client int, in Input) *Op {
	if client < 0 {
		panic(fmt.Sprintf("BUG: linearcheck: client %d", client))
	}
	op := &Op{r: r, client: client, in: in, call: r.now()}
	r.mu.Lock()
	r.mu.ops = append(r.mu.ops, op)
	r.mu.Unlock()
	return op
}

// BeginRead and BeginWrite are Begin for one kind.
func (r *Recorder) BeginRead(client int, key string) *Op {
	return r.Begin(client, Input{Kind: Read, Key: key})
}

func (r *Recorder) BeginWrite(client int, key string, v int64) *Op {
	return r.Begin(client, Input{Kind: Write, Key: key, Value: v})
}

// Done records the return of an operation with its answer: a write that
// was acknowledged, a read that answered. For a write, out is ignored.
func (o *Op) Done(out Output) { o.finish(opDone, out) }

// Wrote is Done for an acknowledged write.
func (o *Op) Wrote() { o.finish(opDone, Output{}) }

// ReadValue is Done for a read that saw v; ReadNothing for a read that
// found the register never written.
func (o *Op) ReadValue(v int64) { o.finish(opDone, Output{Value: v, Found: true}) }
func (o *Op) ReadNothing()      { o.finish(opDone, Output{}) }

// Unknown records that the operation ended without telling whether it
// took effect (a timeout, a lost connection, an error after the request
// may have been applied).
func (o *Op) Unknown() { o.finish(opUnknown, Output{Unknown: true}) }

// Failed records that the operation certainly took no effect (refused
// before it ran: not the leader, rejected by validation).
func (o *Op) Failed() { o.finish(opFailed, Output{}) }

func (o *Op) finish(s opState, out Output) {
	ret := o.r.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mu.state != opOpen {
		panic("BUG: linearcheck: an operation returned twice")
	}
	o.mu.state, o.mu.out, o.mu.ret = s, out, ret
}

// Counts is how many operations a history holds, by outcome.
type Counts struct {
	Done, Unknown, Failed, Open int
}

// Counts counts the recorded operations by outcome.
func (r *Recorder) Counts() Counts {
	var c Counts
	for _, op := range r.snapshot() {
		op.mu.Lock()
		switch op.mu.state {
		case opDone:
			c.Done++
		case opUnknown:
			c.Unknown++
		case opFailed:
			c.Failed++
		default:
			c.Open++
		}
		op.mu.Unlock()
	}
	return c
}

func (r *Recorder) snapshot() []*Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Op(nil), r.mu.ops...)
}

// Operations is the history as porcupine checks it. A write with an
// unknown outcome, or still open, returns at math.MaxInt64: pending
// forever. Reads with no answer and operations that failed are left out.
//
// So is such a write whose value no read answered: one pending forever
// can always be placed last, where it changes no answer, so the history
// is linearizable with it exactly when it is without it. Left in, each
// one multiplies the orders the checker tries: a leader killed under
// load leaves dozens, and the check ran past its minute.
func (r *Recorder) Operations() []porcupine.Operation {
	ops := r.snapshot()
	seen := map[int64]bool{} // values some read answered, whatever the key
	for _, op := range ops {
		op.mu.Lock()
		if op.in.Kind == Read && op.mu.state == opDone && op.mu.out.Found {
			seen[op.mu.out.Value] = true
		}
		op.mu.Unlock()
	}
	out := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		op.mu.Lock()
		state, o, ret := op.mu.state, op.mu.out, op.mu.ret
		op.mu.Unlock()
		switch {
		case state == opDone:
		case state == opFailed:
			continue
		case op.in.Kind == Read: // unknown or open: no answer to check
			continue
		case !seen[op.in.Value]: // pending forever and never read: placed last
			continue
		default:
			o, ret = Output{Unknown: true}, math.MaxInt64
		}
		out = append(out, porcupine.Operation{ClientId: op.client, Input: op.in, Call: op.call, Output: o, Return: ret})
	}
	return out
}
