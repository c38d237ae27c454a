package bench

import (
	"encoding/json"
	"fmt"
)

// KuzuVectorAnswer is run.js's answer to a "vector" request.
type KuzuVectorAnswer struct {
	OK      bool    `json:"ok"`
	Error   string  `json:"error"`
	LoadMS  float64 `json:"load_ms"`
	BuildMS float64 `json:"build_ms"`
	RSSMB   float64 `json:"rss_mb"`
	Version string  `json:"version"`
	Points  []struct {
		Ef  int        `json:"ef"`
		MS  float64    `json:"ms"`
		IDs [][]uint64 `json:"ids"`
	} `json:"points"`
}

// Vector loads s (written as the .npy columns files by WriteVectorNPY:
// ids, then embeddings) into a new Kùzu database at dbPath, builds Kùzu's HNSW vector index with the given
// named options (mu, ml, efc, …), and searches the first len(truth)
// queries at each ef; recall@k is scored against truth. See run.js.
func (k *Kuzu) Vector(dbPath string, files []string, s *VectorSet, index map[string]any, truth [][]uint64, kk int, efs []int) (VectorResult, error) {
	queries := make([][]float32, len(truth))
	for i := range queries {
		queries[i] = s.Query(i)
	}
	line, err := k.roundTrip(map[string]any{"op": "vector", "db": dbPath, "files": files, "dim": s.Dim,
		"metric": "cosine", "index": index, "queries": queries, "k": kk, "efs": efs})
	if err != nil {
		return VectorResult{}, err
	}
	var a KuzuVectorAnswer
	if err := json.Unmarshal(line, &a); err != nil {
		return VectorResult{}, fmt.Errorf("kuzu runner: bad vector answer: %w", err)
	}
	if !a.OK {
		return VectorResult{}, fmt.Errorf("kuzu: %s", a.Error)
	}
	res := VectorResult{Engine: "kuzu " + a.Version, BuildMS: a.BuildMS, HeapMB: a.RSSMB}
	for _, p := range a.Points {
		res.Points = append(res.Points, VectorPoint{Ef: p.Ef, Recall: Recall(p.IDs, truth), QPS: float64(len(truth)) / (p.MS / 1000)})
	}
	return res, nil
}
