// Package memory accounts for the memory statements hold: a Tracker per
// statement (max_memory_per_query), a Budget shared by every statement of
// the server (--max-memory), and the size estimates both charge (what a
// value, a vector or a batch costs once held), and a database's Governor:
// the budget with its heap watchdog and the release of freed memory to
// the kernel after large statements (governor.go), and the machine's
// memory the budget defaults to (machine.go).
//
// It owns the figures and the failing (53200), not the allocation: it
// imports no layer above vector and errs, and never allocates on a
// caller's behalf.
package memory
