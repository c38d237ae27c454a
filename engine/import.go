package engine

// Loading data in bulk: Import builds a new data directory offline (quiver
// import); COPY … FROM loads files into an open database (engine/admin).
// Both read files with package load.

import (
	"time"

	"github.com/quiverdb/quiver/engine/load"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
)

// ImportOptions configure Import (see package load and docs/import.md).
type ImportOptions = load.Options

// ImportInput is one file of an import: a node label (or "A:B" labels)
// or a relationship type, and the path of a CSV or (.parquet) Parquet file.
type ImportInput = load.Input

// Progress is the advance of long work (package progress): an import's
// phases (ImportOptions.Progress) and their counts.
type Progress = progress.Tracker

// ProgressSnapshot is a Progress's state at one moment.
type ProgressSnapshot = progress.Snapshot

// NewProgress returns a Progress that calls onPhase, when set, as each
// phase begins and as it ends (progress.New).
func NewProgress(onPhase func(ProgressSnapshot)) *Progress { return progress.New(onPhase) }

// WatchProgress calls fn with p's snapshot after first and then every
// interval until stop is called (progress.Watch).
func WatchProgress(p *Progress, first, every time.Duration, fn func(ProgressSnapshot)) (stop func()) {
	return progress.Watch(p, first, every, fn)
}

// The phases of an import, in order (a phase without work, such as
// reading relationships when there are none, is left out).
const (
	PhaseReadNodes           = load.PhaseReadNodes
	PhaseReadRels            = load.PhaseReadRels
	PhaseStoreNodeProperties = storage.PhaseStoreNodeProperties
	PhaseBuildAdjacency      = storage.PhaseBuildAdjacency
	PhaseWriteFiles          = storage.PhaseWriteFiles
)

// ImportSummary is what Import did: rows, edges, bytes and seconds.
type ImportSummary = load.Summary

// Import builds a new data directory from CSV or Parquet files, offline:
// the directory `quiver serve --data-dir` (Open) then loads. Bad input is
// an error naming file, line (Parquet: row and row group) and column, and
// leaves no directory behind.
func Import(o ImportOptions) (ImportSummary, error) { return load.Import(o) }

// Graphalytics describes an LDBC Graphalytics graph (ImportOptions.Graphalytics):
// its files, direction, edge properties and algorithm parameters.
type Graphalytics = load.Graphalytics

// ReadGraphalytics reads the NAME.properties file of the Graphalytics
// graph at path prefix NAME.
func ReadGraphalytics(prefix string) (*Graphalytics, error) { return load.ReadGraphalytics(prefix) }
