package http

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/arrowio"
	"github.com/quiverdb/quiver/vector"
)

// failingStream rows pass the first chunk, then a division by zero
// fails the query while its rows stream.
const failingStream = `{"query":"UNWIND range(1, 60000) AS i RETURN 'row ' + toString(i) AS s, 100 / (59990 - i) AS d"}`

// An error after the stream began: a 200 whose stream no Arrow reader
// reads to its end, with the error's JSON after the failure marker.
func TestArrowStreamFailure(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	a := postQuery(t, base, failingStream, arrowio.MediaType)
	if a.status != 200 || a.ctype != arrowio.MediaType {
		t.Fatalf("answered %d %s", a.status, a.ctype)
	}
	rd, err := ipc.NewReader(bytes.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rd.Next() {
		rows += int(rd.RecordBatch().NumRows())
	}
	if rd.Err() == nil {
		t.Fatalf("the failed stream reads as a whole result of %d rows", rows)
	}
	rd.Release()
	if rows == 0 || rows >= 59990 {
		t.Errorf("%d rows before the failure", rows)
	}
	at := bytes.LastIndex(a.body, []byte{0xFF, 0xFF, 0xFF, 0xFF})
	if at < 0 {
		t.Fatal("no failure marker")
	}
	tail := a.body[at+8:]
	if n := binary.LittleEndian.Uint32(a.body[at+4:]); int(n) != len(tail)+8 {
		t.Errorf("the failure message announces %d bytes; %d follow", n, len(tail))
	}
	var e struct {
		Error struct{ Code, Category string }
	}
	if err := json.Unmarshal(tail, &e); err != nil || e.Error.Code != "22012" {
		t.Errorf("failure JSON %q: %v", tail, err)
	}
	// The same query as JSON streams too and ends with "error".
	if js := postQuery(t, base, failingStream, ""); !bytes.Contains(js.body, []byte(`"error":{"code":"22012"`)) {
		t.Errorf("JSON answer ends %q", js.body[len(js.body)-200:])
	}
}

// Errors before the first batch answer as JSON does: status and body.
func TestArrowErrorBeforeStream(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	for _, q := range []string{
		`{"query":"RETURN 1 +"}`,
		`{"query":"RETURN 1 / 0 AS x"}`,
		`{"query":"MATCH (n) RETURN m"}`,
		`{"query":"RETURN $p AS x"}`,
		`{"nope":1}`,
	} {
		js, ar := postQuery(t, base, q, ""), postQuery(t, base, q, arrowio.MediaType)
		if js.status == 200 || ar.status != js.status || !bytes.Equal(ar.body, js.body) || ar.ctype != "application/json" {
			t.Errorf("%s: JSON %d %s; Arrow %d %s %s", q, js.status, js.body, ar.status, ar.ctype, ar.body)
		}
	}
}

func TestArrowNegotiation(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	const q = `{"query":"UNWIND range(1, 5000) AS i RETURN i, toString(i) AS s, i * 0.5 AS f"}`
	plain := postQuery(t, base, q, arrowio.MediaType)
	want, err := readArrowAnswer(t, "plain", plain.body)
	if err != nil || len(want.rows) != 5000 {
		t.Fatalf("%d rows, %v", len(want.rows), err)
	}
	for _, c := range []struct {
		accept string
		status int
		ctype  string
		code   string
	}{
		{"", 200, "application/json", ""},
		{"*/*", 200, "application/json", ""},
		{"application/json", 200, "application/json", ""},
		{"application/json, " + arrowio.MediaType + ";q=0.5", 200, "application/json", ""},
		{arrowio.MediaType + ", application/json;q=0.9", 200, arrowio.MediaType, ""},
		{arrowio.MediaType + "; compression=lz4", 200, arrowio.MediaType, ""},
		{arrowio.MediaType + ";compression=\"zstd\"", 200, arrowio.MediaType, ""},
		{arrowio.MediaType + "; compression=none", 200, arrowio.MediaType, ""},
		{arrowio.MediaType + "; compression=brotli", 400, "application/json", "22023"},
		{"text/html", 406, "application/json", "22000"},
		{arrowio.MediaType + ";q=0, text/csv", 406, "application/json", "22000"},
	} {
		a := postQuery(t, base, q, c.accept)
		if a.status != c.status || a.ctype != c.ctype {
			t.Errorf("Accept %q: %d %s: %.200s", c.accept, a.status, a.ctype, a.body)
			continue
		}
		switch {
		case c.code != "":
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(a.body, &e); err != nil || e.Error.Code != c.code || e.Error.Message == "" {
				t.Errorf("Accept %q: error body %s", c.accept, a.body)
			}
		case c.ctype == arrowio.MediaType:
			got, err := readArrowAnswer(t, c.accept, a.body)
			if err != nil || strings.Join(got.rows, "\n") != strings.Join(want.rows, "\n") {
				t.Errorf("Accept %q: the stream reads otherwise (%v)", c.accept, err)
			}
			// Compressed, the stream is smaller: at the default batch
			// size (two-row batches, -tags batch2, compress to more).
			compressed := strings.Contains(c.accept, "lz4") || strings.Contains(c.accept, "zstd")
			if vector.Capacity >= 1024 && compressed != (len(a.body) < len(plain.body)*3/4) {
				t.Errorf("Accept %q: %d bytes, %d uncompressed", c.accept, len(a.body), len(plain.body))
			}
		}
	}
}

// A statement of an explicit transaction answers as Arrow too, and sees
// the transaction's writes.
func TestArrowTransaction(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	_, begin, _ := call(t, "POST", base+"/api/v1/transaction/begin", "")
	id, _ := begin["transaction_id"].(string)
	if id == "" {
		t.Fatalf("begin: %v", begin)
	}
	tx := base + "/api/v1/transaction/" + id
	if code, out, _ := call(t, "POST", tx+"/query", `{"query":"CREATE (:P {name: 'a', born: date('1990-05-01')})"}`); code != 200 {
		t.Fatalf("create: %d %v", code, out)
	}
	a := postTo(t, tx+"/query", `{"query":"MATCH (p:P) RETURN p, p.born AS born"}`, arrowio.MediaType)
	got, err := readArrowAnswer(t, "tx", a.body)
	if err != nil || a.ctype != arrowio.MediaType {
		t.Fatalf("%d %s: %v", a.status, a.ctype, err)
	}
	if len(got.rows) != 1 || !strings.Contains(got.rows[0], `"labels":["P"]`) || !strings.Contains(got.rows[0], `"name":"a"`) {
		t.Errorf("rows %v", got.rows)
	}
	if code, out, _ := call(t, "POST", tx+"/commit", ""); code != 200 {
		t.Fatalf("commit: %d %v", code, out)
	}
}

// A value the Arrow stream cannot hold fails the statement inside a
// transaction as a failing row does: the transaction is failed, and its
// commit rolls the earlier write back.
func TestArrowEncodingFailsTheTransaction(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	_, begin, _ := call(t, "POST", base+"/api/v1/transaction/begin", "")
	id, _ := begin["transaction_id"].(string)
	tx := base + "/api/v1/transaction/" + id
	if code, out, _ := call(t, "POST", tx+"/query", `{"query":"CREATE (:P {at: localdatetime('2300-01-01T00:00')})"}`); code != 200 {
		t.Fatalf("create: %d %v", code, out)
	}
	a := postTo(t, tx+"/query", `{"query":"MATCH (p:P) RETURN p.at AS at"}`, arrowio.MediaType)
	if a.status != 400 || !strings.Contains(string(a.body), `"22008"`) {
		t.Fatalf("a timestamp past Arrow's range: %d %s, want 400 22008", a.status, a.body)
	}
	if code, out, _ := call(t, "POST", tx+"/query", `{"query":"RETURN 1 AS x"}`); code != 500 || !strings.Contains(jsonString(out), "aborted") {
		t.Fatalf("the next statement: %d %v, want 500: the transaction is aborted", code, out)
	}
	if code, _, _ := call(t, "POST", tx+"/commit", ""); code == 200 {
		t.Fatal("a failed transaction committed")
	}
	if _, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (p:P) RETURN count(p) AS n"}`); jsonString(out["data"]) != `[{"n":0}]` {
		t.Fatalf("after the failed transaction: %v, want no P", out["data"])
	}
}

// The server holds one record batch of a stream at a time: past the
// first streamAfter bytes, each fill stops at the first batch that takes
// the buffer past streamChunk, however long the result.
func TestArrowStreamBounded(t *testing.T) {
	db := openDB(t, engine.Options{})
	const rows = 300_000
	res, err := db.Run(context.Background(), engine.ModeAsWritten,
		"UNWIND range(1, $n) AS i RETURN i, 'row ' + toString(i) AS s, [i, i] AS l", engine.Params{"n": int64(rows)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	a := &arrowAnswer{res: res}
	a.w = arrowio.NewWriter(&a.sink, res.Columns(), res.Entities(), arrowio.CodecNone)
	var stream bytes.Buffer
	most, fills := 0, 0
	for done := false; !done; fills++ {
		a.sink.b = a.sink.b[:0]
		if done, err = a.fill(streamChunk); err != nil {
			t.Fatal(err)
		}
		most = max(most, len(a.sink.b))
		stream.Write(a.sink.b)
	}
	// A batch of this result is at most Capacity rows of about 60 bytes,
	// and its message's metadata under a kilobyte.
	if bound := streamChunk + vector.Capacity*100 + 4096; most > bound {
		t.Errorf("a fill held %d bytes, past %d", most, bound)
	}
	rd, err := ipc.NewReader(&stream)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	n := 0
	for rd.Next() {
		n += int(rd.RecordBatch().NumRows())
	}
	if rd.Err() != nil || n != rows || fills < stream.Len()/(2*streamChunk) {
		t.Errorf("%d rows of %d in %d fills of a %d-byte stream: %v", n, rows, fills, stream.Len(), rd.Err())
	}
}
