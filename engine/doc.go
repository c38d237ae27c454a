// Package engine is Quiver's embeddable database: Open a data directory,
// run GQL queries, read typed result batches. It wires the layers below it
// (gql → plan → exec over storage) and is the only package frontends call.
//
// engine never imports a frontend: it knows nothing of HTTP, JSON or wire
// messages. Frontends turn requests into Query calls and Result batches
// into bytes.
package engine
