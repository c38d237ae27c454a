package storage

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
)

// Label and live bitmaps are shared between versions container by
// container (a container holds the ids of one 2^16 range). The first time
// a transaction writes a bitmap it takes a copy of the container table
// whose containers are all marked shared (cowCopy: O(ids/2^16) pointers);
// a write then copies the one container it changes. At commit the
// bitmap's containers are marked shared in turn (shareBitmap), before any
// reader outside the transaction can hold it, so the next writer shares
// them too. Whole clones, as before, cost a run-length bitmap little but
// 8 KiB for every container of a label whose nodes interleave with
// others: a megabyte per commit at 8M nodes.
//
// Why this is safe for readers. roaring writes a bitmap's shared marks
// in two cases only: Clone of a bitmap in copy-on-write mode marks the
// source, and a copy from a source whose container is not marked marks
// that container. Published bitmaps are never in copy-on-write mode
// (shareBitmap turns it off again), so a reader's Clone is a deep copy
// that only reads, and cowCopy reads its source only: a marked container
// is taken as it is, an unmarked one (a version bulk-loaded, opened or
// handed to a reader before it was marked) is copied whole. The marks are
// written only by shareBitmap, on a bitmap no reader holds yet.

// fewContainers is the span of containers (2^16 ids each) up to which a
// bitmap is copied whole and run-optimized whole, as it always was: for
// so few containers, taking the container table apart and marking it
// costs more allocations than the copy, which for runs (the live set,
// labels of dense ids) is a few bytes a container.
const fewContainers = 4

// few reports whether b spans at most fewContainers containers.
func few(b *roaring.Bitmap) bool {
	return b.IsEmpty() || b.Maximum()>>16-b.Minimum()>>16 < fewContainers
}

// ownCopy is the copy of b a transaction writes into: whole when b is
// few, else cowCopy.
func ownCopy(b *roaring.Bitmap) *roaring.Bitmap {
	if few(b) {
		return b.Clone() // a deep copy: b is never in copy-on-write mode
	}
	return cowCopy(b)
}

// cowCopy returns a bitmap holding b's values that shares b's marked
// containers (copying one on its first write) and copies the others.
// It only reads b.
func cowCopy(b *roaring.Bitmap) *roaring.Bitmap {
	c := roaring.New()
	c.Or(b) // into an empty bitmap: roaring's appendCopy of each container
	return c
}

// shareBitmap marks every container of b as shared. b must be private:
// no reader may hold it. written are the keys the transaction wrote: when
// b has one container and it is one of them, marking it would save the
// next writer nothing (it copies a container it writes either way), and
// costs a copy of the container table, so b is left as it is.
func shareBitmap(b *roaring.Bitmap, written []uint32) {
	if b.IsEmpty() {
		return
	}
	if k := b.Minimum() >> 16; k == b.Maximum()>>16 && slices.Contains(written, k) {
		return
	}
	b.SetCopyOnWrite(true)
	_ = b.Clone() // a copy-on-write Clone marks its source's containers
	b.SetCopyOnWrite(false)
}

// compactKeys stores as one run each container of b, among those of the
// keys (id >> 16) given, that holds a contiguous range of ids. Dense ids
// make these the common case (the live set, a label created in order);
// a container that grew by appends is an array or a bitmap of up to 8 KiB,
// which the next commit writing it would copy. A run of 4 ids or more
// stays a run as ids are appended, so a container of 64 ids or more that
// base (the version the transaction started from) had already is left as
// it is: it was compacted when it was new, and replacing it would cost two
// allocations a commit. Other containers stay as they are: RunOptimize
// over the whole bitmap, as before, cost every container's run count on
// every commit.
func compactKeys(b, base *roaring.Bitmap, keys []uint32) {
	for _, k := range keys {
		lo := uint64(k) << 16
		before := uint64(0)
		if lo > 0 {
			before = b.Rank(uint32(lo - 1))
		}
		n := b.Rank(uint32(lo+1<<16-1)) - before
		if n < 2 || (n >= 64 && base != nil && base.IntersectsWithInterval(lo, lo+1<<16)) {
			continue
		}
		first, err1 := b.Select(uint32(before))
		last, err2 := b.Select(uint32(before + n - 1))
		if err1 != nil || err2 != nil || uint64(last-first)+1 != n {
			continue
		}
		b.RemoveRange(lo, lo+1<<16)
		b.AddRange(uint64(first), uint64(last)+1) // a run container
	}
}

// noteKey records that the transaction changed a node bitmap's container
// of key k (compactKeys at commit).
func (w *work) noteKey(id uint64) {
	k := uint32(id >> 16)
	for _, x := range w.mu.keys {
		if x == k {
			return
		}
	}
	w.mu.keys = append(w.mu.keys, k)
}

// ownLiveLocked returns the live bitmap the transaction may mutate at id.
func (w *work) ownLiveLocked(id uint64) *roaring.Bitmap {
	if !w.mu.ownLive {
		w.v.live = ownCopy(w.v.live)
		w.mu.ownLive = true
	}
	w.noteKey(id)
	return w.v.live
}

// ownLabelLocked returns the bitmap of label l the transaction may mutate
// at id.
func (w *work) ownLabelLocked(l catalog.LabelID, id uint64) *roaring.Bitmap {
	for int(l) >= len(w.v.labels) {
		w.v.labels = append(w.v.labels, nil)
		w.mu.ownLabels = append(w.mu.ownLabels, false)
	}
	if !w.mu.ownLabels[l] {
		if b := w.v.labels[l]; b != nil {
			w.v.labels[l] = ownCopy(b)
		} else {
			w.v.labels[l] = roaring.New()
		}
		w.mu.ownLabels[l] = true
	}
	w.noteKey(id)
	return w.v.labels[l]
}

// shareBitmapsLocked compacts the containers the transaction wrote in the
// bitmaps it owns and marks them shared: at commit, before the version is
// published. A bitmap of few containers is run-optimized whole instead.
func (w *work) shareBitmapsLocked() {
	share := func(b, base *roaring.Bitmap) {
		if few(b) {
			b.RunOptimize()
			return
		}
		compactKeys(b, base, w.mu.keys)
		shareBitmap(b, w.mu.keys)
	}
	if w.mu.ownLive {
		share(w.v.live, w.base.live)
	}
	for l, own := range w.mu.ownLabels {
		if own {
			var base *roaring.Bitmap
			if l < len(w.base.labels) {
				base = w.base.labels[l]
			}
			share(w.v.labels[l], base)
		}
	}
}
