package procs

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Visibility is what the statement's principal sees of the graph under
// row-level security (docs/row-security.md), at the statement's snapshot:
// a procedure that reads the graph without a plan (the algorithms'
// projections) keeps to it.
//
// A relationship is visible when it is not in HiddenRels and both its
// endpoints are visible nodes, as MATCH sees it.
type Visibility struct {
	// Nodes are the visible live nodes; nil when every live node is
	// visible (no policy applies to a node).
	Nodes *roaring.Bitmap
	// HiddenRels are the live relationships whose own policies hide
	// them (endpoints aside); nil when none is.
	HiddenRels *roaring64.Bitmap
}

// Bytes is the memory the sets hold.
func (v *Visibility) Bytes() int64 {
	var n int64
	if v.Nodes != nil {
		n += int64(v.Nodes.GetSizeInBytes())
	}
	if v.HiddenRels != nil {
		n += int64(v.HiddenRels.GetSizeInBytes())
	}
	return n
}
