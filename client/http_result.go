package client

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Column is one column of a result: its name and its type as the server
// names it (INTEGER, FLOAT, STRING, BOOLEAN, NODE, …).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Result is a statement's answer over HTTP: its columns, its rows in
// column order, and what the server measured.
//
// Values are decoded from JSON as: nil, bool, string, int64 (a number
// written without a fraction or exponent that fits), float64 (any other
// number), []any (a list) and map[string]any (a map, and a node
// {"id","labels","properties"}, a relationship {"id","type","start",
// "end","properties"} or a path as the server writes them).
type Result struct {
	Columns  []Column
	Rows     [][]any
	Metadata Metadata
	// Profile is set when the statement was profiled.
	Profile *Profile
}

// Map returns row i as a map from column name to value.
func (r *Result) Map(i int) map[string]any {
	m := make(map[string]any, len(r.Columns))
	for j, c := range r.Columns {
		m[c.Name] = r.Rows[i][j]
	}
	return m
}

// Metadata is a result's metadata. The write counters are set for a
// statement that writes (Write true).
type Metadata struct {
	RowsReturned    int64 `json:"rows_returned"`
	ExecutionTimeMS int64 `json:"execution_time_ms"`
	RowsScanned     int64 `json:"rows_scanned"`
	// Write reports a writing statement: the counters below apply.
	Write                bool  `json:"-"`
	RowsAffected         int64 `json:"rows_affected"`
	NodesCreated         int64 `json:"nodes_created"`
	RelationshipsCreated int64 `json:"relationships_created"`
	PropertiesSet        int64 `json:"properties_set"`
	LabelsAdded          int64 `json:"labels_added"`
	NodesDeleted         int64 `json:"nodes_deleted"`
	RelationshipsDeleted int64 `json:"relationships_deleted"`
	PropertiesRemoved    int64 `json:"properties_removed"`
	LabelsRemoved        int64 `json:"labels_removed"`
}

// Profile is a profiled statement's per-operator work.
type Profile struct {
	TotalTimeMS float64           `json:"total_time_ms"`
	Operators   []OperatorProfile `json:"operators"`
}

// OperatorProfile is one operator's share of a profile.
type OperatorProfile struct {
	Name          string  `json:"name"`
	TimeMS        float64 `json:"time_ms"`
	RowsProcessed int64   `json:"rows_processed"`
	DBHits        int64   `json:"db_hits"`
	Index         string  `json:"index,omitempty"`
	// Fallbacks name the strategies EXPLAIN showed for the operator that
	// a guard turned down as it ran, each with why.
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// Plan is an EXPLAIN's answer: the operator tree, never run.
type Plan struct {
	Root               *PlanNode `json:"plan"`
	EstimatedTotalCost float64   `json:"estimated_total_cost"`
	EstimatedRows      float64   `json:"estimated_rows"`
	// Rules names the optimizer rules that changed the plan.
	Rules []string `json:"rules"`
}

// PlanNode is one operator of a plan.
type PlanNode struct {
	Operator      string      `json:"operator"`
	Columns       []string    `json:"columns"`
	Details       string      `json:"details,omitempty"`
	Pattern       string      `json:"pattern,omitempty"`
	Label         string      `json:"label,omitempty"`
	Filter        string      `json:"filter,omitempty"`
	IndexUsed     string      `json:"index_used,omitempty"`
	EstimatedRows float64     `json:"estimated_rows"`
	EstimatedCost float64     `json:"estimated_cost"`
	Children      []*PlanNode `json:"children"`
}

// resultJSON is the server's result object: /api/v1/query's, a
// transaction statement's, or a batch entry's.
type resultJSON struct {
	Schema struct {
		Fields []Column `json:"fields"`
	} `json:"schema"`
	Data     []map[string]any `json:"data"`
	Metadata json.RawMessage  `json:"metadata"`
	Profile  *Profile         `json:"profile"`
	// Error ends a 200 whose rows failed while they streamed, and marks
	// a failed batch entry.
	Error *errorJSON `json:"error"`
	// Batch entries: their position and status, an EXPLAIN's plan.
	Index   *int            `json:"index"`
	Status  string          `json:"status"`
	Explain json.RawMessage `json:"explain"`
}

// result converts a decoded result; a trailing error becomes *Error.
func (r *resultJSON) result(status int) (*Result, error) {
	if r.Error != nil {
		return nil, r.Error.toError(status, 0)
	}
	res := &Result{Columns: r.Schema.Fields, Profile: r.Profile, Rows: make([][]any, len(r.Data))}
	if res.Columns == nil {
		res.Columns = []Column{}
	}
	for i, obj := range r.Data {
		row := make([]any, len(res.Columns))
		for j, c := range res.Columns {
			row[j] = convert(obj[c.Name])
		}
		res.Rows[i] = row
	}
	if len(r.Metadata) > 0 {
		if err := decodeJSON(r.Metadata, &res.Metadata); err != nil {
			return nil, err
		}
		res.Metadata.Write = strings.Contains(string(r.Metadata), `"rows_affected"`)
	}
	return res, nil
}

// convert turns decoded JSON numbers into int64 or float64, throughout.
func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case []any:
		for i := range x {
			x[i] = convert(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = convert(e)
		}
	}
	return v
}

// errorJSON is the spec's error object.
type errorJSON struct {
	Code     string `json:"code"`
	Category string `json:"category"`
	Message  string `json:"message"`
	Details  struct {
		Position *struct {
			Line   int `json:"line"`
			Column int `json:"column"`
		} `json:"position"`
		Leader *struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		} `json:"leader"`
	} `json:"details"`
	RetryAfter int `json:"retry_after"`
}

// toError converts the object; retryAfter is the Retry-After header's
// seconds, used when the body gives none.
func (e *errorJSON) toError(status, retryAfter int) *Error {
	out := &Error{Status: status, Code: e.Code, Category: e.Category, Message: e.Message, RetryAfter: e.RetryAfter}
	if p := e.Details.Position; p != nil {
		out.Line, out.Column = p.Line, p.Column
	}
	if l := e.Details.Leader; l != nil {
		out.LeaderID, out.LeaderAddress = l.ID, l.URL
	}
	if out.RetryAfter == 0 {
		out.RetryAfter = retryAfter
	}
	return out
}

// BatchResult is a batch's answer: an entry per statement, in request
// order.
type BatchResult struct {
	Results     []BatchEntry
	TotalTimeMS float64
}

// BatchEntry is one statement's outcome in a batch. Exactly one of
// Result, Plan (an EXPLAIN statement) and Err is set; Err only in a batch
// run without a transaction, whose other statements still ran.
type BatchEntry struct {
	Index  int
	Result *Result
	Plan   *Plan
	Err    *Error
}
