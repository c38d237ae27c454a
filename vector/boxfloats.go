package vector

import "unsafe"

// BoxFloats returns xs as a LIST value of FLOAT elements, in two
// allocations: one copy of the elements and one slice of interfaces
// pointing into it. Converting each float64 to an interface would
// allocate once per element (a 128-element embedding read from a flat
// storage chunk: 129 allocations instead of 2).
//
// The interfaces are built from the runtime's two-word interface layout
// (type word, data pointer). boxFloatsFits checks at start-up that this
// layout is the one the running program uses; if not, the elements are
// boxed one by one.
func BoxFloats(xs []float64) []Value {
	if !boxFloatsFits {
		return boxEach(xs)
	}
	return BoxFloatsAliased(append([]float64(nil), xs...))
}

// BoxFloatsAliased is BoxFloats without the copy: the list's elements
// point into xs, which must never change afterwards (a sealed storage
// chunk's rows). One allocation.
func BoxFloatsAliased(vals []float64) []Value {
	if !boxFloatsFits {
		return boxEach(vals)
	}
	out := make([]Value, len(vals))
	for i := range vals {
		w := (*[2]unsafe.Pointer)(unsafe.Pointer(&out[i]))
		w[0] = float64TypeWord
		w[1] = unsafe.Pointer(&vals[i])
	}
	return out
}

func boxEach(xs []float64) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// float64TypeWord is the type word of an interface holding a float64.
var float64TypeWord = func() unsafe.Pointer {
	var v Value = 1.5
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0]
}()

// boxFloatsFits reports whether an interface built as BoxFloats builds
// it behaves as one the compiler built: same dynamic type, same value,
// equal under ==.
var boxFloatsFits = func() bool {
	if unsafe.Sizeof(Value(nil)) != 2*unsafe.Sizeof(unsafe.Pointer(nil)) {
		return false
	}
	x := []float64{-2.75}
	var v Value
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))
	w[0] = float64TypeWord
	w[1] = unsafe.Pointer(&x[0])
	f, ok := v.(float64)
	var want Value = -2.75
	return ok && f == -2.75 && v == want
}()
