package engine

// Compact folds the relationship overlays of the latest version into
// their base CSRs now (normally a background compactor does it when an
// overlay grows large). Readers are not blocked; writers wait only while
// the result is installed.
func (db *DB) Compact() { db.store.Compact() }
