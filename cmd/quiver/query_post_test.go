package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/quiverdb/quiver/internal/linearcheck"
)

// The process tests' client of POST /api/v1/query, and the register
// workload the linearizability tests (single server and cluster) run
// with it.

// queryReply is an answer of POST /api/v1/query: its status, rows (JSON
// numbers as json.Number), error code and Quiver-Bookmark header.
type queryReply struct {
	status   int
	code     string
	rows     []map[string]any
	bookmark string
}

// postQuery posts body (the query, its parameters and any other field)
// to base's /api/v1/query with headers (key, value pairs). An error
// means no whole answer: the outcome is unknown unless the request was
// never sent (notSent).
func postQuery(ctx context.Context, client *http.Client, base string, body map[string]any, headers ...string) (queryReply, error) {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/query", bytes.NewReader(raw))
	if err != nil {
		return queryReply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k := 0; k+1 < len(headers); k += 2 {
		req.Header.Set(headers[k], headers[k+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return queryReply{}, err
	}
	defer resp.Body.Close()
	if raw, err = io.ReadAll(resp.Body); err != nil {
		return queryReply{}, err
	}
	var out struct {
		Data  []map[string]any `json:"data"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return queryReply{}, fmt.Errorf("decoding %d %q: %w", resp.StatusCode, raw, err)
	}
	r := queryReply{status: resp.StatusCode, rows: out.Data, bookmark: resp.Header.Get("Quiver-Bookmark")}
	if out.Error != nil {
		r.code = out.Error.Code
	}
	return r, nil
}

// The register workload: :Reg nodes, one a key k, whose v clients set
// and read.
const (
	registerWrite = "MATCH (r:Reg {k: $k}) SET r.v = $v"
	registerRead  = "MATCH (r:Reg {k: $k}) RETURN r.v AS v"
)

// readRegister ends op, a read of a register that answered 200 with
// rows (one), with the value read.
func readRegister(op *linearcheck.Op, rows []map[string]any) {
	if n, ok := rows[0]["v"].(json.Number); ok {
		v, _ := n.Int64()
		op.ReadValue(v)
	} else {
		op.ReadNothing()
	}
}
