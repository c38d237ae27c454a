package linearcheck

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// register is a register's state: never written, or holding a value.
type register struct {
	set bool
	v   int64
}

// step is a register's sequential specification: a write sets it, a read
// sees what it holds.
func step(state, input, output any) (bool, any) {
	st, in, out := state.(register), input.(Input), output.(Output)
	switch in.Kind {
	case Write:
		return true, register{set: true, v: in.Value}
	case Read:
		return out.Found == st.set && (!st.set || out.Value == st.v), st
	}
	panic(fmt.Sprintf("BUG: linearcheck: operation kind %d", in.Kind))
}

func describeOperation(input, output any) string {
	in, out := input.(Input), output.(Output)
	key := in.Key
	switch {
	case in.Kind == Write && out.Unknown:
		return fmt.Sprintf("write(%s%d) ?", keyPrefix(key), in.Value)
	case in.Kind == Write:
		return fmt.Sprintf("write(%s%d)", keyPrefix(key), in.Value)
	case !out.Found:
		return fmt.Sprintf("read(%s) → none", key)
	}
	return fmt.Sprintf("read(%s) → %d", key, out.Value)
}

func keyPrefix(key string) string {
	if key == "" {
		return ""
	}
	return key + ", "
}

func describeState(state any) string {
	st := state.(register)
	if !st.set {
		return "none"
	}
	return fmt.Sprint(st.v)
}

// Register is one register: every operation reads or writes the same
// value, whatever its Key.
var Register = porcupine.Model{
	Init:              func() any { return register{} },
	Step:              step,
	DescribeOperation: describeOperation,
	DescribeState:     describeState,
}

// Keyed is a map of independent registers, one per Key. The checker
// splits the history by key and checks each register alone, which is
// what keeps a long history checkable.
var Keyed = porcupine.Model{
	Partition:         partitionByKey,
	PartitionEvent:    partitionEventsByKey,
	Init:              func() any { return register{} },
	Step:              step,
	DescribeOperation: describeOperation,
	DescribeState:     describeState,
}

func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	index := map[string]int{}
	var parts [][]porcupine.Operation
	for _, op := range history {
		k := op.Input.(Input).Key
		i, ok := index[k]
		if !ok {
			i = len(parts)
			index[k] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

// partitionEventsByKey splits an event history by key: a return event
// goes with its call, which carries the input.
func partitionEventsByKey(history []porcupine.Event) [][]porcupine.Event {
	keyOf := map[int]string{}
	index := map[string]int{}
	var parts [][]porcupine.Event
	for _, ev := range history {
		var k string
		if ev.Kind == porcupine.CallEvent {
			k = ev.Value.(Input).Key
			keyOf[ev.Id] = k
		} else {
			k = keyOf[ev.Id]
		}
		i, ok := index[k]
		if !ok {
			i = len(parts)
			index[k] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], ev)
	}
	return parts
}
