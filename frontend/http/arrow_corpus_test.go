package http

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	nethttp "net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/arrowio"
)

// The query corpus (testdata/*.test) over HTTP twice: every reading
// query's Arrow stream, read back with arrow-go's reader, must equal its
// JSON result: the same columns in the same order with the same types,
// and the same rows (as a bag; parallel plans need not keep an order),
// value by value with ints, floats, strings and temporals told apart. A
// query that fails fails the same way in both. Statements and writing
// queries run once, as JSON, to build each file's graph. Under -tags
// batch2 every result is many two-row batches, so the stream is many
// record batches.

// corpusWrite finds statements that change the graph (run once only).
var corpusWrite = regexp.MustCompile(`(?i)\b(CREATE|MERGE|DELETE|DETACH|SET|REMOVE|CALL|INSERT)\b`)

// corpusVolatile finds queries whose rawAnswer changes from run to run:
// the clock and random numbers.
var corpusVolatile = regexp.MustCompile(`(?i)\b(rand|randomUUID|timestamp)\s*\(|\b(date|time|localtime|datetime|localdatetime)(\.[a-z]+)?\s*\(\s*\)|\.(statement|transaction|realtime)\s*\(`)

type corpusBlock struct {
	line      int
	directive string
	params    string
	query     []string
}

func readCorpus(t *testing.T, path string) []corpusBlock {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []corpusBlock
	var cur *corpusBlock
	sep := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && (strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#")):
		case cur == nil:
			blocks = append(blocks, corpusBlock{line: n, directive: line})
			cur, sep = &blocks[len(blocks)-1], false
			if line == "reset" {
				cur = nil
			}
		case strings.TrimSpace(line) == "":
			cur = nil
		case line == "----":
			sep = true
		case sep:
		case strings.HasPrefix(line, "params ") && len(cur.query) == 0:
			cur.params = strings.TrimPrefix(line, "params ")
		default:
			cur.query = append(cur.query, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestArrowCorpus(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no query corpus found: %v", err)
	}
	compared := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) {
			compared += runArrowCorpusFile(t, f)
		})
	}
	t.Logf("%d queries compared", compared)
	if compared < 500 {
		t.Errorf("only %d queries of the corpus were compared", compared)
	}
}

// corpusDB is a database in memory: the corpus compares encodings, and
// a data directory's synced commits tripled its time.
func corpusDB(t *testing.T) *engine.DB {
	t.Helper()
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func runArrowCorpusFile(t *testing.T, path string) int {
	base := startServer(t, Config{}, corpusDB(t))
	compared := 0
	for _, b := range readCorpus(t, path) {
		if b.directive == "reset" {
			base = startServer(t, Config{}, corpusDB(t))
			continue
		}
		text := strings.Join(b.query, "\n")
		body := `{"query":` + quoteJSON(text)
		if b.params != "" {
			body += `,"parameters":` + b.params
		}
		body += "}"
		where := fmt.Sprintf("%s:%d", filepath.Base(path), b.line)
		if !strings.HasPrefix(b.directive, "query") || corpusWrite.MatchString(text) || corpusVolatile.MatchString(text) {
			postQuery(t, base, body, "")
			continue
		}
		compareArrow(t, where, text, postQuery(t, base, body, ""), postQuery(t, base, body, arrowio.MediaType))
		compared++
	}
	return compared
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type rawAnswer struct {
	status int
	ctype  string
	body   []byte
}

func postQuery(t *testing.T, base, body, accept string) rawAnswer {
	t.Helper()
	return postTo(t, base+"/api/v1/query", body, accept)
}

// postTo posts a query body to url, asking for accept ("": no Accept).
func postTo(t *testing.T, url, body, accept string) rawAnswer {
	t.Helper()
	req, err := nethttp.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawAnswer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: raw}
}

// jsonResult is a JSON rawAnswer: its fields, rows, and the code of the
// error it ended with (a status, or a streamed "error").
type jsonResult struct {
	fields []engine.Column
	rows   []string
	code   string
}

func decodeJSONAnswer(t *testing.T, where string, a rawAnswer) jsonResult {
	var out struct {
		Schema struct {
			Fields []struct{ Name, Type string }
		}
		Data  []map[string]any
		Error *struct{ Code string }
	}
	dec := json.NewDecoder(bytes.NewReader(a.body))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: JSON rawAnswer: %v: %.300s", where, err, a.body)
	}
	var r jsonResult
	if out.Error != nil {
		r.code = out.Error.Code
		return r
	}
	for _, f := range out.Schema.Fields {
		r.fields = append(r.fields, engine.Column{Name: f.Name, Type: f.Type})
	}
	for _, row := range out.Data {
		r.rows = append(r.rows, arrowio.Canonical(arrowio.Normalize(map[string]any(row))))
	}
	sort.Strings(r.rows)
	return r
}

// readArrowAnswer reads an Arrow stream as jsonResult; err is the
// reader's failure.
func readArrowAnswer(t *testing.T, where string, body []byte) (jsonResult, error) {
	var r jsonResult
	rd, err := ipc.NewReader(bytes.NewReader(body))
	if err != nil {
		return r, err
	}
	defer rd.Release()
	for _, f := range rd.Schema().Fields() {
		typ, _ := f.Metadata.GetValue(arrowio.MetaType)
		elem, _ := f.Metadata.GetValue(arrowio.MetaElem)
		r.fields = append(r.fields, engine.Column{Name: f.Name, Type: typ})
		if want := arrowio.ColumnType(engine.Column{Type: typ, Elem: elem}); !arrow.TypeEqual(f.Type, want) {
			t.Errorf("%s: column %q of type %s is Arrow %s, want %s", where, f.Name, typ, f.Type, want)
		}
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := map[string]any{}
			for c, col := range rec.Columns() {
				v, err := arrowio.JSONValue(col, i)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				row[rec.ColumnName(c)] = v
			}
			r.rows = append(r.rows, arrowio.Canonical(row))
		}
	}
	sort.Strings(r.rows)
	return r, rd.Err()
}

func compareArrow(t *testing.T, where, text string, js, ar rawAnswer) {
	t.Helper()
	if js.status != 200 {
		// An error before the first row: the same status and body.
		if ar.status != js.status || !bytes.Equal(ar.body, js.body) || ar.ctype != "application/json" {
			t.Errorf("%s: %s\nJSON answered %d %s\nArrow answered %d %s %.300s", where, text, js.status, js.body, ar.status, ar.ctype, ar.body)
		}
		return
	}
	want := decodeJSONAnswer(t, where, js)
	if ar.status == 400 && bytes.Contains(ar.body, []byte(`"code":"22008"`)) && bytes.Contains(ar.body, []byte("outside the range of Arrow's")) {
		// A temporal value past its Arrow type's range (docs/arrow.md):
		// refused before the first batch, in the error shape.
		return
	}
	if ar.status != 200 || ar.ctype != arrowio.MediaType {
		t.Errorf("%s: %s\nArrow answered %d %s: %.300s", where, text, ar.status, ar.ctype, ar.body)
		return
	}
	got, err := readArrowAnswer(t, where, ar.body)
	if want.code != "" {
		if err == nil {
			t.Errorf("%s: %s\nJSON ended with error %s; the Arrow stream read without error", where, text, want.code)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %s\nthe Arrow stream fails: %v", where, text, err)
		return
	}
	if fmt.Sprint(got.fields) != fmt.Sprint(want.fields) {
		t.Errorf("%s: %s\nArrow columns %v, JSON %v", where, text, got.fields, want.fields)
	}
	if strings.Join(got.rows, "\n") != strings.Join(want.rows, "\n") {
		t.Errorf("%s: %s\nArrow rows:\n%s\nJSON rows:\n%s", where, text, strings.Join(got.rows, "\n"), strings.Join(want.rows, "\n"))
	}
}
