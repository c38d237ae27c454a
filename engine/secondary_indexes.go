package engine

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/index/fulltext"
	vectorindex "github.com/quiverdb/quiver/engine/index/vector"
	"github.com/quiverdb/quiver/engine/procs"
)

// openSecondaryIndexes starts the secondary-index manager on the
// recovered store (every FULLTEXT and VECTOR index is rebuilt from it in the
// background: engine/index) and registers the procedures that search
// them and report their state. The indexes hold their structures
// against the server's memory budget (index.Memory).
func (db *DB) openSecondaryIndexes() {
	var budget index.Budget
	if b := db.mem.Budget(); b != nil { // a nil *Budget is not a nil Budget
		budget = b
	}
	db.secondary = index.NewManagerWith(db.store, db.store.Catalog(), map[catalog.IndexType]index.Kind{
		catalog.FullText: fulltext.Kind{},
		catalog.Vector:   vectorindex.Kind{},
	}, budget)
	if err := index.Register(db.procs, db.secondary); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := fulltext.Register(db.procs, db.secondary); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := vectorindex.RegisterProcedures(db.procs, db.secondary); err != nil {
		panic("BUG: engine: " + err.Error())
	}
	if err := db.procs.Register(procs.IndexesProcedure(db.secondary.State)); err != nil {
		panic("BUG: engine: " + err.Error())
	}
}
