//go:build linux

package csr

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on x86-64 and arm64.
const hugePage = 2 << 20

// MakeHuge is make([]T, n) for a large array that is about to be filled
// whole: the kernel is asked to back its whole 2 MiB pages with huge
// pages (where transparent huge pages are "madvise", the default of most
// distributions), before the first write faults them in. Faulting in
// 4 KiB pages cost 3-4 ms per MiB on the VM the benchmarks run on, a
// third of the CPU time of opening a base; huge pages cut the faults 512
// times. The loader of stored CSRs allocates with it, and so does the
// storage layer for the columns it loads beside them.
func MakeHuge[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); size >= 2*hugePage {
		base := unsafe.Pointer(unsafe.SliceData(s))
		p := uintptr(base)
		lo, hi := (p+hugePage-1)&^(hugePage-1), (p+size)&^(hugePage-1)
		if lo < hi {
			// Advice only: an error (no THP in the kernel) changes nothing.
			syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, lo-p)), hi-lo), syscall.MADV_HUGEPAGE)
		}
	}
	return s
}
