package storage

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
)

// Label and live bitmaps are copied whole (roaring Clone) the first time a
// transaction writes them and then mutated in place until a reader of the
// Tx is handed the bitmap (which freezes it: the next write copies again).
//
// Why not roaring's copy-on-write mode: its Clone marks the *source*
// bitmap's containers as shared, a write into a published bitmap that
// concurrent readers (And/Or read those flags) would race with. A clone
// costs O(bitmap); ids are dense, so RunOptimize at commit keeps the live
// set and dense labels at a few run containers.

// ownLiveLocked returns the live bitmap the transaction may mutate.
func (w *work) ownLiveLocked() *roaring.Bitmap {
	if !w.mu.ownLive {
		w.v.live = w.v.live.Clone()
		w.mu.ownLive = true
	}
	return w.v.live
}

// ownLabelLocked returns the bitmap of label l the transaction may mutate.
func (w *work) ownLabelLocked(l catalog.LabelID) *roaring.Bitmap {
	for int(l) >= len(w.v.labels) {
		w.v.labels = append(w.v.labels, nil)
		w.mu.ownLabels = append(w.mu.ownLabels, false)
	}
	if !w.mu.ownLabels[l] {
		if b := w.v.labels[l]; b != nil {
			w.v.labels[l] = b.Clone()
		} else {
			w.v.labels[l] = roaring.New()
		}
		w.mu.ownLabels[l] = true
	}
	return w.v.labels[l]
}
