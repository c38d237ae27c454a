package engine

import "github.com/quiverdb/quiver/engine/load"

// ImportOptions configure Import (see package load and docs/import.md).
type ImportOptions = load.Options

// ImportInput is one file of an import: a node label (or "A:B" labels)
// or a relationship type, and the path of a CSV or (.parquet) Parquet file.
type ImportInput = load.Input

// ImportProgress is what ImportOptions.Progress is called with.
type ImportProgress = load.Progress

// ImportSummary is what Import did: rows, edges, bytes and seconds.
type ImportSummary = load.Summary

// Import builds a new data directory from CSV or Parquet files, offline:
// the directory `quiver serve --data-dir` (Open) then loads. Bad input is
// an error naming file, line (Parquet: row and row group) and column, and
// leaves no directory behind.
func Import(o ImportOptions) (ImportSummary, error) { return load.Import(o) }
