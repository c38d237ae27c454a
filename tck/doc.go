// Package tck runs the openCypher Technology Compatibility Kit (its
// Gherkin feature files) against the engine through its public API, with
// github.com/cucumber/godog. Every scenario gets a fresh in-memory
// database; results are compared in a canonical form of the TCK's value
// syntax (values.go, literal.go) and side effects by diffing the graph
// before and after the query (state.go).
//
// TestTCK is the conformance gate: the scenarios listed in passing.txt
// must keep passing. docs/tck.md describes how to run and update it.
package tck
