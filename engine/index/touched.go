package index

import "github.com/quiverdb/quiver/engine/storage"

// Touched lists the elements ops wrote, once each, in first-write order:
// the nodes (rel false) or the relationships (rel true) whose labels,
// type, properties or existence a commit or a transaction changed. A
// kind re-reads each of them at the versions it needs rather than
// interpreting the ops.
func Touched(ops []storage.Op, rel bool) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for i := range ops {
		op := &ops[i]
		var isRel bool
		switch op.Kind {
		case storage.OpCreateNode, storage.OpSetNodeProps, storage.OpAddLabels, storage.OpRemoveLabels, storage.OpDeleteNode:
		case storage.OpCreateRel, storage.OpSetRelProps, storage.OpDeleteRel:
			isRel = true
		default:
			continue
		}
		if isRel != rel || seen[op.ID] {
			continue
		}
		seen[op.ID] = true
		out = append(out, op.ID)
	}
	return out
}
