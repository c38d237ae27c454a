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
	// OpCreateIndex creates index Index (its Slot is assigned at apply).
	OpCreateIndex
	// OpDropIndex drops the index called Name.
	OpDropIndex
	// OpCreateConstraint creates constraint Constraint (with the index a
	// UNIQUE constraint creates, if it creates one).
	OpCreateConstraint
	// OpDropConstraint drops the constraint called Name (and the index it
	// owns).
	OpDropConstraint
	// OpSetSystem sets the system record Name to Value, or deletes it when
	// Value is nil (system.go). System records are not graph data:
	// queries, conflict detection and change feeds never see them.
	OpSetSystem
)

// Op is one logical write of a transaction, after validation: ids are
// assigned, values are deep copies of validated property values and nil
// values are dropped. A commit's WAL record is its ops in order plus the
// commit ts and the catalog names logged with it (record.go); replaying
// them in order onto the previous version (with the recorded ids)
// rebuilds the committed version exactly. Schema changes are ops too, so
// a savepoint or a rebase replays them in their place.
//
// Catalog ids in ops refer to names that the record carries (or that a
// record logged before it carries): names are not transactional.
type Op struct {
	Kind       OpKind
	ID         uint64
	Labels     []catalog.LabelID // OpCreateNode, OpAddLabels, OpRemoveLabels
	Type       catalog.TypeID    // OpCreateRel, OpDeleteRel
	Src        uint64            // OpCreateRel, OpDeleteRel
	Dst        uint64            // OpCreateRel, OpDeleteRel
	Keys       []catalog.KeyID
	Vals       []vector.Value
	Index      *catalog.Index      // OpCreateIndex
	Constraint *catalog.Constraint // OpCreateConstraint
	Name       string              // OpDropIndex, OpDropConstraint, OpSetSystem (the key)
	Value      []byte              // OpSetSystem: the value, nil to delete
}
