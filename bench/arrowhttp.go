package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/engine"
)

// The Arrow measurement (make bench-arrow): one wide result, fetched
// over the HTTP API as JSON and as an Arrow IPC stream (uncompressed,
// LZ4, ZSTD), against a server in this process on a loopback port, and
// run in process for the floor. For each answer it measures
//
//   - bytes: the response body;
//   - server CPU: this process's CPU time while a client that discards
//     the body reads it (the discarding costs next to nothing, so the
//     time is the server's: run, encode, write);
//   - client wall time to a usable table: from the request to the
//     result in columns, JSON decoded by encoding/json into typed rows
//     and then columns (dates parsed), Arrow read by arrow-go's IPC
//     reader into retained record batches; and the process's CPU time
//     meanwhile (server and client), which a loaded machine disturbs
//     less than wall time.
//
// The in-process floor runs the same statement through engine.DB.Run
// and drains its batches.

// ArrowHTTPQuery is the measured result: n rows of the five column
// types of the issue (INTEGER, FLOAT, STRING, DATE, LIST).
func ArrowHTTPQuery(n int64) string {
	return "UNWIND range(1, " + strconv.FormatInt(n, 10) + ") AS i RETURN i AS id, i * 0.5 AS score, 'name-' + toString(i) AS name, " +
		"date({year: 2000 + i % 20, month: 1 + i % 12, day: 1 + i % 28}) AS day, [i, i + 1, i + 2] AS tags"
}

// ArrowHTTPConfig configures RunArrowHTTP.
type ArrowHTTPConfig struct {
	Rows    int64
	Reps    int // repetitions of each measure; the median is reported
	TempDir string
	Commit  string
	Note    string
	Log     io.Writer
}

// ArrowHTTPTiming is one way of fetching the result.
type ArrowHTTPTiming struct {
	Format    string // "in process", "JSON", "Arrow", "Arrow LZ4", "Arrow ZSTD"
	Bytes     int64
	ServerCPU time.Duration
	Discard   time.Duration // wall time of the discarding read
	Table     time.Duration // client wall time to a usable table
	TableCPU  time.Duration // this process's CPU time meanwhile: server and client
}

// ArrowHTTPReport is the measurement.
type ArrowHTTPReport struct {
	Rows    int64
	Reps    int
	Commit  string
	Note    string
	Host    string
	Timings []ArrowHTTPTiming
}

// RunArrowHTTP measures the result over HTTP as JSON and as Arrow.
func RunArrowHTTP(ctx context.Context, cfg ArrowHTTPConfig) (*ArrowHTTPReport, error) {
	if cfg.Reps < 1 {
		cfg.Reps = 1
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "quiver-arrowbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	srv, err := StartHTTP(db)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	text := ArrowHTTPQuery(cfg.Rows)
	rep := &ArrowHTTPReport{Rows: cfg.Rows, Reps: cfg.Reps, Commit: cfg.Commit, Note: cfg.Note, Host: arrowHost()}

	floor, floorCPU := make([]time.Duration, cfg.Reps), make([]time.Duration, cfg.Reps)
	for i := range floor {
		runtime.GC()
		c0, start := selfCPU(), time.Now()
		n, err := drainInProcess(ctx, db, text)
		if err != nil {
			return nil, err
		}
		if n != cfg.Rows {
			return nil, fmt.Errorf("in process: %d rows, want %d", n, cfg.Rows)
		}
		floor[i], floorCPU[i] = time.Since(start), selfCPU()-c0
	}
	rep.Timings = append(rep.Timings, ArrowHTTPTiming{Format: "in process", Table: median(floor), TableCPU: median(floorCPU)})
	logf("in process: %v", median(floor))

	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, f := range []struct{ name, accept string }{
		{"JSON", "application/json"},
		{"Arrow", "application/vnd.apache.arrow.stream"},
		{"Arrow LZ4", "application/vnd.apache.arrow.stream; compression=lz4"},
		{"Arrow ZSTD", "application/vnd.apache.arrow.stream; compression=zstd"},
	} {
		t := ArrowHTTPTiming{Format: f.name}
		cpu, wall, table, tableCPU := make([]time.Duration, cfg.Reps), make([]time.Duration, cfg.Reps), make([]time.Duration, cfg.Reps), make([]time.Duration, cfg.Reps)
		for i := 0; i < cfg.Reps; i++ {
			// Each pass starts with the garbage of the ones before it
			// collected, so that none pays for another's.
			runtime.GC()
			c0, w0 := selfCPU(), time.Now()
			n, err := fetch(ctx, hc, srv.URL, text, f.accept, func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err })
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			wall[i], cpu[i], t.Bytes = time.Since(w0), selfCPU()-c0, n
			runtime.GC()
			c0, w0 = selfCPU(), time.Now()
			var rows int64
			decode := decodeJSONTable
			if f.name != "JSON" {
				decode = decodeArrowTable
			}
			if _, err := fetch(ctx, hc, srv.URL, text, f.accept, func(r io.Reader) (err error) { rows, err = decode(r); return err }); err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if rows != cfg.Rows {
				return nil, fmt.Errorf("%s: %d rows, want %d", f.name, rows, cfg.Rows)
			}
			table[i], tableCPU[i] = time.Since(w0), selfCPU()-c0
		}
		t.ServerCPU, t.Discard, t.Table, t.TableCPU = median(cpu), median(wall), median(table), median(tableCPU)
		logf("%s: %d bytes, server CPU %v, table in %v (CPU %v)", f.name, t.Bytes, t.ServerCPU, t.Table, t.TableCPU)
		rep.Timings = append(rep.Timings, t)
	}
	return rep, nil
}

// arrowHost names the machine's cores and its load when the run began.
func arrowHost() string {
	s := strconv.Itoa(runtime.NumCPU()) + " cores"
	if l, err := LoadAvg(); err == nil {
		s += fmt.Sprintf(", load average %.1f at the start", l[0])
	}
	return s
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// drainInProcess runs text in process and counts its rows.
func drainInProcess(ctx context.Context, db *engine.DB, text string) (int64, error) {
	res, err := db.Run(ctx, engine.ModeAsWritten, text, nil)
	if err != nil {
		return 0, err
	}
	defer res.Close()
	var n int64
	for {
		b, err := res.Next()
		if err != nil || b == nil {
			return n, err
		}
		n += int64(b.Rows())
	}
}

// fetch posts text asking for accept and hands the body to read; it
// returns the body's size.
func fetch(ctx context.Context, hc *http.Client, base, text, accept string, read func(io.Reader) error) (int64, error) {
	body, _ := json.Marshal(map[string]any{"query": text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/query", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	cr := &countingReader{r: resp.Body}
	return cr.n, read(cr)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// jsonTable is the result in columns, as a client builds it from JSON.
type jsonTable struct {
	id    []int64
	score []float64
	name  []string
	day   []int32 // days since 1970-01-01, as Arrow's date32
	tags  [][]int64
}

// decodeJSONTable decodes a JSON answer into typed columns.
func decodeJSONTable(r io.Reader) (int64, error) {
	var doc struct {
		Data []struct {
			ID    int64   `json:"id"`
			Score float64 `json:"score"`
			Name  string  `json:"name"`
			Day   string  `json:"day"`
			Tags  []int64 `json:"tags"`
		} `json:"data"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return 0, err
	}
	if doc.Error != nil {
		return 0, fmt.Errorf("the query failed: %s", doc.Error.Message)
	}
	n := len(doc.Data)
	t := jsonTable{id: make([]int64, n), score: make([]float64, n), name: make([]string, n), day: make([]int32, n), tags: make([][]int64, n)}
	for i, row := range doc.Data {
		d, err := time.Parse(time.DateOnly, row.Day)
		if err != nil {
			return 0, err
		}
		t.id[i], t.score[i], t.name[i], t.day[i], t.tags[i] = row.ID, row.Score, row.Name, int32(d.Unix()/86400), row.Tags
	}
	return int64(len(t.id)), nil
}

// decodeArrowTable reads an Arrow stream into retained record batches.
func decodeArrowTable(r io.Reader) (int64, error) {
	rd, err := ipc.NewReader(r)
	if err != nil {
		return 0, err
	}
	defer rd.Release()
	var table []arrow.RecordBatch
	var n int64
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		table = append(table, rec)
		n += rec.NumRows()
	}
	for _, rec := range table {
		rec.Release()
	}
	return n, rd.Err()
}

// ArrowHTTPHeading is the report's section in bench/RESULTS.md.
const ArrowHTTPHeading = "## Arrow results over HTTP"

// ExportHeading opens the section of RESULTS.md kept by hand with the
// export's and COPY TO's figures (bench/README.md, "Export (by hand)"),
// which `quiverbench run` keeps as it keeps the sections above.
const ExportHeading = "## Export and COPY TO (by hand)"

// WriteArrowHTTPSection renders the report as a markdown section.
func WriteArrowHTTPSection(w io.Writer, rep *ArrowHTTPReport, notes string) error {
	fmt.Fprintf(w, "%s\n\n", ArrowHTTPHeading)
	fmt.Fprintf(w, "`make bench-arrow` at %s, %s; %d rows of `%s`, each figure the median of %d runs.\n\n",
		rep.Commit, rep.Host, rep.Rows, ArrowHTTPQuery(rep.Rows), rep.Reps)
	if rep.Note != "" {
		fmt.Fprintf(w, "%s\n\n", rep.Note)
	}
	fmt.Fprintln(w, "| answer | bytes | server CPU (ms) | read and discarded (ms) | client, to a usable table (ms) | CPU meanwhile, server and client (ms) | table vs JSON | table vs in process |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	var jsonTable, floor time.Duration
	for _, t := range rep.Timings {
		switch t.Format {
		case "JSON":
			jsonTable = t.Table
		case "in process":
			floor = t.Table
		}
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 0, 64) }
	ratio := func(a, b time.Duration) string {
		if a == 0 || b == 0 {
			return "—"
		}
		return strconv.FormatFloat(float64(a)/float64(b), 'f', 2, 64) + "×"
	}
	for _, t := range rep.Timings {
		if t.Format == "in process" {
			fmt.Fprintf(w, "| in process (engine.DB.Run, batches drained) | — | — | — | %s | %s | %s | 1.00× |\n", ms(t.Table), ms(t.TableCPU), ratio(jsonTable, t.Table))
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", t.Format, t.Bytes, ms(t.ServerCPU), ms(t.Discard), ms(t.Table),
			ms(t.TableCPU), ratio(jsonTable, t.Table), ratio(t.Table, floor))
	}
	fmt.Fprintln(w)
	if notes != "" {
		fmt.Fprintf(w, "%s\n", notes)
	}
	return nil
}
