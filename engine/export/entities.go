package export

import "github.com/quiverdb/quiver/jsonvalue"

// Entities resolves the nodes and relationships in a query's rows (the
// engine's Result gives them): COPY … TO writes them, and lists and maps,
// as the JSON text the HTTP answer gives them (package jsonvalue), each
// entity's properties with their keys sorted so that a file does not
// depend on the storage's order.
type Entities = jsonvalue.Entities
