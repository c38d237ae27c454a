package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}

// ParseManifest reads a manifest's text and checks it: a known format,
// the key and endpoint columns named, and every file it names a plain
// name inside the export's folder. An import reads what the manifest
// names, so a manifest from elsewhere must not send it to read a file
// outside the folder (`../`, an absolute path).
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m.Format != FormatParquet && m.Format != FormatCSV {
		return nil, fmt.Errorf("format %q is neither %q nor %q", m.Format, FormatParquet, FormatCSV)
	}
	if m.IDColumn == "" || m.FromColumn == "" || m.ToColumn == "" {
		return nil, fmt.Errorf("id_column, from_column and to_column must each name a column")
	}
	if m.Schema != "" {
		if err := plainName(m.Schema); err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
	}
	for _, list := range [][]ManifestEntry{m.Nodes, m.Relationships} {
		for _, e := range list {
			if err := plainName(e.File); err != nil {
				return nil, fmt.Errorf("the file of %q: %w", e.Name, err)
			}
			if e.Rows < 0 {
				return nil, fmt.Errorf("the file %q has %d rows", e.File, e.Rows)
			}
		}
	}
	return &m, nil
}

// plainName accepts a file name inside a folder: not empty, not
// absolute, no folder part, no "." or "..".
func plainName(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || filepath.IsAbs(name) ||
		strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%q is not a file name inside the export's folder", name)
	}
	return nil
}
