package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestFile is the name of the manifest in an export's folder.
const ManifestFile = "manifest.json"

// Manifest describes an export's folder: what `quiver import
// --from-export DIR` reads to import it.
type Manifest struct {
	// Format is "parquet" or "csv".
	Format string `json:"format"`
	// IDColumn is the node files' key column and FromColumn and
	// ToColumn the relationship files' endpoints: node ids of the
	// exported database, which only link relationships to their nodes
	// (the import stores them nowhere).
	IDColumn   string `json:"id_column"`
	FromColumn string `json:"from_column"`
	ToColumn   string `json:"to_column"`
	// Nodes has a file per label set (Name "A:B", "" for nodes without
	// labels), Relationships one per type.
	Nodes         []ManifestEntry `json:"nodes"`
	Relationships []ManifestEntry `json:"relationships"`
	// Schema is the file of the GQL script recreating the indexes and
	// constraints.
	Schema string `json:"schema"`
	// NodeCount and RelationshipCount are the exported totals; Version
	// the snapshot's commit timestamp.
	NodeCount         int64  `json:"node_count"`
	RelationshipCount int64  `json:"relationship_count"`
	Version           uint64 `json:"version"`
}

// ManifestEntry is one file of an export.
type ManifestEntry struct {
	Name string `json:"name"`
	File string `json:"file"`
	Rows int64  `json:"rows"`
}

// ReadManifest reads the manifest of the export in dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not an export's folder: %w", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}
