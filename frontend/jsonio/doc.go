// Package jsonio is the JSON the frontends share: results written by hand
// straight from typed vectors into byte slices (nodes, relationships,
// paths, temporal values, rows), and request objects (I-JSON only: UTF-8
// text of Unicode characters, each key once per object) and query
// parameters decoded into engine values. The HTTP API, the wire protocol
// and the change stream all speak it, so a value reads the same on every
// way in.
//
// It knows the engine's public API (engine, vector, temporal) and nothing
// of any transport.
package jsonio
