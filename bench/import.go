package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Builder is a loader that builds the data directory offline, before the
// database is opened: bulk import. Run calls Build, then opens the
// directory, and counts the opening (reading the base) as load time too.
type Builder interface {
	Name() string
	Build(ctx context.Context, ds *Dataset, dataDir, dbDir string) (LoadTimes, error)
}

// ImportLoader builds the database with `quiver import` (engine.Import):
// parallel CSV parsing, CSRs by counting sort, columns written as the
// on-disk base format. With Parquet set it imports the data set's Parquet
// files (WriteParquet) instead of its CSVs; only the Person/KNOWS data
// set has them.
type ImportLoader struct{ Parquet bool }

// Name implements Builder.
func (l ImportLoader) Name() string {
	if l.Parquet {
		return "quiver import of Parquet files (offline bulk load), then open"
	}
	return "quiver import (offline bulk load), then open"
}

// Build implements Builder. The node phase ends when the importer starts
// reading the first relationship file; everything after it (parsing the
// relationships, building the CSRs, writing the directory) is the edge
// phase.
func (l ImportLoader) Build(_ context.Context, ds *Dataset, dataDir, dbDir string) (LoadTimes, error) {
	nodes, rels := ds.ImportInputs(dataDir)
	if l.Parquet {
		if ds != KnowsDataset {
			return LoadTimes{}, fmt.Errorf("data set %s has no Parquet files", ds.Name)
		}
		nodes[0].Path, rels[0].Path = filepath.Join(dataDir, PersonsParquet), filepath.Join(dataDir, KnowsParquet)
	}
	start := time.Now()
	var nodesDone time.Duration
	_, err := engine.Import(engine.ImportOptions{
		Dir:   dbDir,
		Nodes: nodes,
		Rels:  rels,
		Progress: engine.NewProgress(func(p engine.ProgressSnapshot) {
			if p.Ended && p.Name == engine.PhaseReadNodes && len(rels) > 0 {
				nodesDone = time.Since(start)
			}
		}),
	})
	if err != nil {
		return LoadTimes{}, err
	}
	total := time.Since(start)
	return LoadTimes{NodesMS: ms(nodesDone), EdgesMS: ms(total - nodesDone)}, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
