package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// OpKind names a logical write.
type OpKind uint8

const (
	// OpCreateNode creates node ID with Labels and properties Keys/Vals.
	OpCreateNode OpKind = iota + 1
	// OpCreateRel creates relationship ID of Type from Src to Dst with
	// properties Keys/Vals.
	OpCreateRel
	// OpSetNodeProps sets properties Keys/Vals of node ID; a nil value
	// removes the property.
	OpSetNodeProps
	// OpSetRelProps sets properties Keys/Vals of relationship ID; a nil
	// value removes the property.
	OpSetRelProps
	// OpAddLabels adds Labels (none already on the node) to node ID.
	OpAddLabels
	// OpRemoveLabels removes Labels (all on the node) from node ID.
	OpRemoveLabels
	// OpDeleteRel deletes relationship ID (of Type from Src to Dst, kept
	// so replay need not look them up) with its properties.
	OpDeleteRel
	// OpDeleteNode deletes node ID, which has no relationships left, with
	// its labels and properties.
	OpDeleteNode
)

// Op is one logical write of a transaction, after validation: ids are
// assigned, values are deep copies of validated property values and nil
// values are dropped. A commit's WAL record will be its ops in order plus
// the commit ts; replaying them in order onto the previous version (with
// the recorded ids) rebuilds the committed version exactly.
//
//	WAL record (durability issue; sketch)
//	┌────────┬──────────┬──────────────────────────────────────────────┐
//	│ ts u64 │ n uvarint│ n × op: kind u8, id uvarint, then             │
//	│        │          │  CreateNode: labels (count + ids)             │
//	│        │          │  CreateRel:  type, src, dst                   │
//	│        │          │  both:       props (count + key id + value)   │
//	│        │          │  Set*Props:  props, a null value removes      │
//	│        │          │  Add/RemoveLabels: labels (count + ids)       │
//	│        │          │  DeleteRel:  type, src, dst                   │
//	│        │          │  DeleteNode: nothing more                     │
//	└────────┴──────────┴──────────────────────────────────────────────┘
//
// Catalog ids in ops refer to names that the record must carry (or that a
// catalog record logged before it carries): names are not transactional.
type Op struct {
	Kind   OpKind
	ID     uint64
	Labels []catalog.LabelID // OpCreateNode, OpAddLabels, OpRemoveLabels
	Type   catalog.TypeID    // OpCreateRel, OpDeleteRel
	Src    uint64            // OpCreateRel, OpDeleteRel
	Dst    uint64            // OpCreateRel, OpDeleteRel
	Keys   []catalog.KeyID
	Vals   []vector.Value
}
