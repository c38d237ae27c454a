package procs

// Privilege is a set of privileges (engine.Privilege documents them).
type Privilege uint8

const (
	PrivRead Privilege = 1 << iota
	PrivWrite
	PrivAdmin
)

// Has reports whether p holds every privilege of need.
func (p Privilege) Has(need Privilege) bool { return p&need == need }
