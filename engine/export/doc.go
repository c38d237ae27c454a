// Package export writes a whole graph as files that `quiver import`
// reads back (docs/export.md): one file per set of labels holding its
// nodes and one per relationship type holding its relationships, in
// Parquet or CSV, a schema.gql script that recreates the indexes and
// constraints, and a manifest.json naming them. Everything is read from
// one snapshot, so the files show one consistent version of the graph.
//
// The folder rules (Resolve, path.go) are those of every statement that
// writes files on the server: files only under the export directory
// (Options.ExportDir of the engine), never through `..` or a symbolic
// link out of it. Files are written under temporary names and renamed
// when complete (files.go), so a failed export leaves nothing behind.
//
// COPY (<query>) TO writes a query's rows into one file with the same
// column writers (query.go); the engine runs the query and hands its
// batches over.
//
// export reads storage and batches and writes files; it never plans or
// runs queries.
package export
