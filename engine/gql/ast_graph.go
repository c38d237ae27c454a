package gql

import "strings"

// GraphKind tells the graph management statements apart.
type GraphKind uint8

// Graph statement kinds.
const (
	// GraphCreate is CREATE GRAPH [IF NOT EXISTS] name [OPTIONS {…}].
	GraphCreate GraphKind = iota + 1
	// GraphDrop is DROP GRAPH [IF EXISTS] name.
	GraphDrop
	// GraphShow is SHOW GRAPHS.
	GraphShow
	// GraphUse is USE name on its own: the session's graph from then on.
	GraphUse
)

// Graph is a graph management statement: it creates, drops, lists or
// selects one of the server's graphs instead of reading or writing one.
// Which names exist and who may see them is the engine's business.
type Graph struct {
	Kind GraphKind
	Pos  Pos
	// Name is the graph's name as written (CREATE, DROP, USE).
	Name    string
	NamePos Pos
	// IfNotExists (CREATE) and IfExists (DROP) make the statement succeed
	// without effect when the graph already exists, or does not.
	IfNotExists, IfExists bool
	// MaxMemory and MaxDisk are CREATE GRAPH's OPTIONS {max_memory,
	// max_disk}: nil when absent, else a size literal (an int64 of bytes,
	// or a string such as '2GB' the engine reads), with its position.
	MaxMemory, MaxDisk       any
	MaxMemoryPos, MaxDiskPos Pos
}

// Use is the USE name prefix of a statement: the graph it runs on.
type Use struct {
	Name string
	Pos  Pos
}

// String prints the statement in the canonical form Statement.String
// uses; it parses back to the same statement.
func (g *Graph) String() string {
	switch g.Kind {
	case GraphCreate:
		s := "CREATE GRAPH "
		if g.IfNotExists {
			s += "IF NOT EXISTS "
		}
		s += quoteName(g.Name)
		var opts []string
		if g.MaxMemory != nil {
			opts = append(opts, "max_memory: "+formatLiteral(g.MaxMemory))
		}
		if g.MaxDisk != nil {
			opts = append(opts, "max_disk: "+formatLiteral(g.MaxDisk))
		}
		if len(opts) > 0 {
			s += " OPTIONS {" + strings.Join(opts, ", ") + "}"
		}
		return s
	case GraphDrop:
		s := "DROP GRAPH "
		if g.IfExists {
			s += "IF EXISTS "
		}
		return s + quoteName(g.Name)
	case GraphShow:
		return "SHOW GRAPHS"
	case GraphUse:
		return "USE " + quoteName(g.Name)
	}
	panic("BUG: gql: unknown graph statement kind")
}
