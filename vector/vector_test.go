package vector

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestValidity(t *testing.T) {
	v := New(Int64, 130)
	if v.HasNulls(130) {
		t.Fatal("new vector has nulls")
	}
	for _, i := range []int{0, 63, 64, 129} {
		v.SetNull(i)
	}
	if got := v.Valid.CountNulls(130); got != 4 {
		t.Fatalf("CountNulls(130) = %d, want 4", got)
	}
	if got := v.Valid.CountNulls(64); got != 2 {
		t.Fatalf("CountNulls(64) = %d, want 2", got)
	}
	if !v.IsNull(63) || v.IsNull(62) || !v.IsNull(129) {
		t.Fatal("IsNull disagrees with SetNull")
	}
	v.SetValid(63)
	if v.IsNull(63) {
		t.Fatal("SetValid did not clear the null")
	}
	v.ResetNulls()
	if v.HasNulls(130) {
		t.Fatal("ResetNulls left nulls")
	}
}

func TestGetSetRoundTrip(t *testing.T) {
	cases := []struct {
		typ Type
		val Value
	}{
		{Bool, true}, {Int64, int64(-7)}, {Float64, 2.5}, {String, "ü"},
		{Node, NodeRef(9)}, {Rel, RelRef(3)}, {Any, []Value{int64(1), "x"}},
	}
	for _, c := range cases {
		v := New(c.typ, 3)
		v.Set(1, c.val)
		v.Set(2, nil)
		if got := v.Get(1); !equalValue(got, c.val) {
			t.Errorf("%s: Get = %#v, want %#v", c.typ, got, c.val)
		}
		if v.Get(2) != nil || !v.IsNull(2) {
			t.Errorf("%s: nil did not make the row null", c.typ)
		}
		w := New(c.typ, 2)
		w.CopyRow(0, v, 1)
		w.CopyRow(1, v, 2)
		if !equalValue(w.Get(0), c.val) || !w.IsNull(1) {
			t.Errorf("%s: CopyRow lost the value or the null", c.typ)
		}
	}
}

func equalValue(a, b Value) bool {
	la, ok := a.([]Value)
	if !ok {
		return a == b
	}
	lb, ok := b.([]Value)
	if !ok || len(la) != len(lb) {
		return false
	}
	for i := range la {
		if !equalValue(la[i], lb[i]) {
			return false
		}
	}
	return true
}

func TestSelectTrueDenseAndSparse(t *testing.T) {
	b := NewBatch(Int64)
	n := min(Capacity, 6)
	b.Len = n
	pred := New(Bool, Capacity)
	for i := 0; i < n; i++ {
		pred.Bools[i] = i%2 == 0
	}
	pred.SetNull(0) // null is not true
	want := []int32{}
	for i := 2; i < n; i += 2 {
		want = append(want, int32(i))
	}
	if got := SelectTrue(nil, b, pred); !equalSel(got, want) {
		t.Fatalf("dense: %v, want %v", got, want)
	}
	b.Sel = []int32{0, 1}
	if n > 2 {
		b.Sel = append(b.Sel, 2)
	}
	got := SelectTrue(nil, b, pred)
	wantSparse := []int32{}
	if n > 2 {
		wantSparse = []int32{2}
	}
	if !equalSel(got, wantSparse) {
		t.Fatalf("sparse: %v, want %v", got, wantSparse)
	}
	if b.Rows() != len(b.Sel) || b.Row(0) != 0 {
		t.Fatal("Rows/Row ignore the selection")
	}
}

func equalSel(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestArrowRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, typ := range []Type{Null, Bool, Int64, Float64, String, Node, Rel} {
		v := New(typ, 5)
		for i := 0; i < 5; i++ {
			switch typ {
			case Bool:
				v.Bools[i] = i%2 == 1
			case Int64:
				v.I64[i] = int64(i * 1000)
			case Float64:
				v.F64[i] = float64(i) / 4
			case String:
				v.Str[i] = string(rune('a' + i))
			case Node, Rel:
				v.IDs[i] = uint64(i) << 40
			}
		}
		if typ != Null {
			v.SetNull(3)
		}
		arr, err := ToArrow(mem, v, 5)
		if err != nil {
			t.Fatalf("%s: ToArrow: %v", typ, err)
		}
		back, err := FromArrow(arr, typ == Rel)
		arr.Release()
		if err != nil {
			t.Fatalf("%s: FromArrow: %v", typ, err)
		}
		if back.Type != typ {
			t.Fatalf("%s: came back as %s", typ, back.Type)
		}
		for i := 0; i < 5; i++ {
			if !equalValue(back.Get(i), v.Get(i)) {
				t.Errorf("%s row %d: %#v, want %#v", typ, i, back.Get(i), v.Get(i))
			}
		}
	}
	if _, err := ToArrow(mem, New(Any, 1), 1); err == nil {
		t.Fatal("ToArrow accepted a generic vector")
	}
}
