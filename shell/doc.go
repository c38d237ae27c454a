// Package shell is `quiver shell`, the interactive client of a Quiver
// server: a line editor with history and completion over a session of
// the wire protocol (TCP or QUIC) or of the HTTP API, results as aligned
// tables or as CSV, JSON and JSON lines, the colon commands (:param,
// :begin, :explain, :schema, …), and the scripting mode that runs
// statements from -c, a file or standard input for pipelines.
//
// It is a client of package client and nothing else of Quiver: it never
// imports the engine or a frontend, so it sees the server as any program
// does. It never exits the process; Run returns the exit code.
//
// Results stream: rows are read as the wire protocol's PULL brings them
// and written at once, so a result of any size prints in bounded memory
// (a table's column widths come from its first page of rows). A query
// runs under a context that Ctrl-C cancels; over the wire protocol the
// only way to stop a running statement is to close its session, so the
// shell then opens a new one (an open transaction is rolled back, and
// the shell says so).
package shell
