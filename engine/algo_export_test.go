package engine

// AlgoMemoryInUse is what the running statements hold of the database's
// server-wide memory budget (0 without one): after a statement ends,
// stopped or not, its algorithm's arrays must be back in it.
func AlgoMemoryInUse(db *DB) int64 {
	if db.mem.Budget() == nil {
		return 0
	}
	return db.mem.Budget().Used()
}
