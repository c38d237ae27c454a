package heap

import "container/heap"

// Lessable is an interface that allows a type to be compared to another of the same type.
// It is used to define the order of elements in the heap.
type Lessable[T any] interface {
	Less(T) bool
}

// innerHeap is a type that represents the heap data structure.
// it implements the std heap interface.
type innerHeap[T Lessable[T]] struct {
	data []T
}

func (h *innerHeap[T]) Len() int {
	return len(h.data)
}

func (h *innerHeap[T]) Less(i, j int) bool {
	return h.data[i].Less(h.data[j])
}

func (h *innerHeap[T]) Swap(i, j int) {
	h.data[i], h.data[j] = h.data[j], h.data[i]
}

func (h *innerHeap[T]) Push(x interface{}) {
	h.data = append(h.data, x.(T))
}

func (h *innerHeap[T]) Pop() interface{} {
	n := len(h.data)
	x := h.data[n-1]
	h.data = h.data[:n-1]
	return x
}

// Heap represents the heap data structure using a flat array to store the elements.
// It is a wrapper around the standard library's heap.
type Heap[T Lessable[T]] struct {
	inner innerHeap[T]
}

// Init establishes the heap invariants required by the other routines in this package.
// Init is idempotent with respect to the heap invariants
// and may be called whenever the heap invariants may have been invalidated.
// The complexity is O(n) where n = h.Len().
func (h *Heap[T]) Init(d []T) {
	h.inner.data = d
	heap.Init(&h.inner)
}

// Len returns the number of elements in the heap.
func (h *Heap[T]) Len() int {
	return h.inner.Len()
}

// Push pushes the element x onto the heap.
// The complexity is O(log n) where n = h.Len().
func (h *Heap[T]) Push(x T) {
	// Typed sift-up: container/heap's Push and Pop box every element in
	// an interface, an allocation per call (quiver patch).
	h.inner.data = append(h.inner.data, x)
	h.up(len(h.inner.data) - 1)
}

func (h *Heap[T]) up(j int) {
	d := h.inner.data
	for j > 0 {
		i := (j - 1) / 2
		if !d[j].Less(d[i]) {
			break
		}
		d[i], d[j] = d[j], d[i]
		j = i
	}
}

func (h *Heap[T]) down(i int) {
	d := h.inner.data
	n := len(d)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && d[r].Less(d[l]) {
			j = r
		}
		if !d[j].Less(d[i]) {
			return
		}
		d[i], d[j] = d[j], d[i]
		i = j
	}
}

// Pop removes and returns the minimum element (according to Less) from the heap.
// The complexity is O(log n) where n = h.Len().
// Pop is equivalent to Remove(h, 0).
func (h *Heap[T]) Pop() T {
	return h.Remove(0)
}

func (h *Heap[T]) PopLast() T {
	return h.Remove(h.maxIndex())
}

// maxIndex is the index of the maximum: in a min-heap it is one of the
// leaves, data[n/2:], not data[n-1] (quiver patch, upstream PR #20).
func (h *Heap[T]) maxIndex() int {
	d := h.inner.data
	m := len(d) - 1
	for i := len(d) / 2; i < len(d); i++ {
		if d[m].Less(d[i]) {
			m = i
		}
	}
	return m
}

// Remove removes and returns the element at index i from the heap.
// The complexity is O(log n) where n = h.Len().
func (h *Heap[T]) Remove(i int) T {
	d := h.inner.data
	n := len(d) - 1
	x := d[i]
	if i != n {
		d[i] = d[n]
	}
	h.inner.data = d[:n]
	if i < n {
		h.down(i)
		h.up(i)
	}
	return x
}

// Min returns the minimum element in the heap.
func (h *Heap[T]) Min() T {
	return h.inner.data[0]
}

// Max returns the maximum element in the heap.
func (h *Heap[T]) Max() T {
	return h.inner.data[h.maxIndex()]
}

func (h *Heap[T]) Slice() []T {
	return h.inner.data
}
