package http

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/arrowio"
	"github.com/quiverdb/quiver/temporal"
)

// An independent reader: the apache-arrow npm package under Node.js
// (testdata/arrowjs, its tarballs vendored and checked against the
// lockfile) decodes typed results of every kind, and what it read,
// turned into Quiver's JSON form here, equals the JSON answer of the
// same query. read.js only reads the stream; it prints each Arrow value
// as it is, and the conversion to Quiver's values is this test's.

// arrowJSQueries cover every mapping of docs/arrow.md.
var arrowJSQueries = []string{
	`UNWIND range(1, 3000) AS i RETURN i, i * 1.5 AS f, toString(i) AS s, i % 2 = 0 AS b, CASE WHEN i % 3 = 0 THEN null ELSE i END AS maybe, null AS nothing`,
	`RETURN date('2015-07-21') AS d, localtime('12:31:14.645876123') AS lt, time('12:31:14.645+01:00') AS t, localdatetime('2015-07-21T21:40:32.142') AS ldt, datetime('2015-07-21T21:40:32.142+02:00[Europe/Stockholm]') AS zdt, datetime('1999-12-31T23:59:59Z') AS udt, duration('P1Y2M3DT4H5M6.7S') AS dur, duration('PT-1M-0.001S') AS neg`,
	`MATCH (a:Person)-[r:KNOWS]->(b) RETURN a, r, b ORDER BY a.name`,
	`MATCH p = (a:Person {name: 'Ada'})-[:KNOWS*1..2]->(b) RETURN p`,
	`UNWIND [1, 'x', 2.5, null, true, [1, [2, 'y']], {k: 1, j: [null]}, date('2020-01-01'), duration('P2D')] AS v RETURN v`,
	`RETURN [1, 'a', null, date('2020-02-29'), [2.5]] AS l, {a: 1, b: [1, 2], c: {d: 'e'}, t: localtime('01:02')} AS m, [] AS empty`,
	`MATCH (p:Person) RETURN collect(p) AS people, collect(p.name) AS names, count(*) AS n`,
	`MATCH (p:Person) RETURN p.name AS name, p.born AS born, p.score AS score, p.tags AS tags ORDER BY name`,
	`UNWIND range(1, 3) AS i RETURN [i, i + 1, null] AS ints, [i * 0.5, null] AS floats, split('a b', ' ') AS strs, [i % 2 = 0, null] AS bools, range(1, i) AS r, [] AS none`,
}

func TestArrowJSReader(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH (make nodejs installs it): the apache-arrow reader test did not run")
	}
	modules := unpackArrowJS(t)
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	postQuery(t, base, `{"query":"CREATE (a:Person {name: 'Ada', born: date('1815-12-10'), score: 9.5, tags: ['math', 'poetry']}), (b:Person:Admin {name: 'Bob', score: 7}), (c:Person {name: 'Cy'}), (a)-[:KNOWS {since: 1833}]->(b), (b)-[:KNOWS {since: datetime('2020-01-01T10:00Z')}]->(c)"}`, "")

	dir := t.TempDir()
	var files []string
	var want []jsonResult
	for i, q := range arrowJSQueries {
		body := `{"query":` + quoteJSON(q) + `}`
		js := postQuery(t, base, body, "")
		if js.status != 200 {
			t.Fatalf("%s: %d %s", q, js.status, js.body)
		}
		want = append(want, decodeJSONAnswer(t, q, js))
		ar := postQuery(t, base, body, arrowio.MediaType)
		if ar.status != 200 || ar.ctype != arrowio.MediaType {
			t.Fatalf("%s: %d %s %s", q, ar.status, ar.ctype, ar.body)
		}
		f := filepath.Join(dir, fmt.Sprintf("q%d.arrow", i))
		if err := os.WriteFile(f, ar.body, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	cmd := exec.Command(node, append([]string{"testdata/arrowjs/read.js"}, files...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.js: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	defer checkJSFailure(t, node, modules, base, dir)
	if len(lines) != len(files) {
		t.Fatalf("node read %d streams of %d", len(lines), len(files))
	}
	for i, line := range lines {
		var got struct {
			Fields [][3]string
			Rows   [][]any
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		q := arrowJSQueries[i]
		var cols []engine.Column
		for _, f := range got.Fields {
			cols = append(cols, engine.Column{Name: f[0], Type: f[1]})
		}
		if fmt.Sprint(cols) != fmt.Sprint(want[i].fields) {
			t.Errorf("%s: apache-arrow read columns %v, JSON has %v", q, cols, want[i].fields)
		}
		var rows []string
		for _, r := range got.Rows {
			row := map[string]any{}
			for c, v := range r {
				row[got.Fields[c][0]] = fromArrowJS(t, v, got.Fields[c][1])
			}
			rows = append(rows, arrowio.Canonical(row))
		}
		sort.Strings(rows)
		if strings.Join(rows, "\n") != strings.Join(want[i].rows, "\n") {
			t.Errorf("%s\napache-arrow read:\n%s\nJSON:\n%s", q, strings.Join(rows, "\n"), strings.Join(want[i].rows, "\n"))
		}
	}
}

// checkJSFailure: apache-arrow fails on a stream that failed after it
// began, and does not read it as a shorter whole result.
func checkJSFailure(t *testing.T, node, modules, base, dir string) {
	a := postQuery(t, base, failingStream, arrowio.MediaType)
	f := filepath.Join(dir, "failed.arrow")
	if err := os.WriteFile(f, a.body, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/arrowjs/read.js", f)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("metadata bytes")) {
		t.Errorf("apache-arrow on a failed stream: %v: %.300s", err, out)
	}
}

// fromArrowJS turns a cell as read.js prints it into the value the JSON
// answer holds (normalised as arrowio.Normalize does). typ is the
// column's Quiver type, which tells its structs apart.
func fromArrowJS(t *testing.T, v any, typ string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // null, bool, string
	}
	num := func(x any) int64 {
		n, err := strconv.ParseInt(fmt.Sprint(x), 10, 64)
		if err != nil {
			t.Fatalf("not an integer: %v", x)
		}
		return n
	}
	switch {
	case m["i"] != nil:
		return num(m["i"])
	case m["i32"] != nil:
		return num(m["i32"])
	case hasKey(m, "f"):
		if m["f"] == nil {
			return nil
		}
		f, _ := m["f"].(json.Number).Float64()
		return f
	case m["date"] != nil:
		return temporal.Date{Days: num(m["date"])}.String()
	case m["t64"] != nil:
		return temporal.LocalTime{Nanos: num(m["t64"])}.String()
	case m["ts"] != nil:
		ns := num(m["ts"])
		sec, n := ns/1e9, ns%1e9
		if n < 0 {
			sec, n = sec-1, n+1e9
		}
		return temporal.LocalDateTime{Sec: sec, Nanos: int32(n)}.String()
	case m["mdn"] != nil:
		p := m["mdn"].([]any)
		return temporal.NewDuration(num(p[0]), num(p[1]), 0, num(p[2])).String()
	case m["list"] != nil:
		var out []any
		for _, e := range m["list"].([]any) {
			out = append(out, fromArrowJS(t, e, "ANY"))
		}
		if out == nil {
			out = []any{}
		}
		return out
	case m["map"] != nil:
		out := map[string]any{}
		for _, e := range m["map"].([]any) {
			kv := e.([]any)
			out[kv[0].(string)] = fromArrowJS(t, kv[1], "ANY")
		}
		return out
	case m["u"] != nil:
		code := num(m["u"])
		if code == 11 { // the json member
			var x any
			dec := json.NewDecoder(strings.NewReader(m["v"].(string)))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				t.Fatal(err)
			}
			return arrowio.Normalize(x)
		}
		return fromArrowJS(t, m["v"], []string{7: "TIME", 9: "DATETIME", 11: ""}[min(code, 11)])
	case m["struct"] != nil:
		return fromArrowStruct(t, m["struct"].(map[string]any), typ)
	}
	t.Fatalf("a cell read.js does not print: %v", v)
	return nil
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func fromArrowStruct(t *testing.T, s map[string]any, typ string) any {
	get := func(k string) int64 {
		x := fromArrowJS(t, s[k], "")
		n, _ := x.(int64)
		return n
	}
	switch {
	case typ == "TIME":
		lt := s["time"].(map[string]any)["t64"]
		n, _ := strconv.ParseInt(fmt.Sprint(lt), 10, 64)
		return temporal.Time{Nanos: n, Offset: int32(get("offset_seconds"))}.String()
	case typ == "DATETIME":
		ns, _ := strconv.ParseInt(fmt.Sprint(s["instant"].(map[string]any)["ts"]), 10, 64)
		sec, n := ns/1e9, ns%1e9
		if n < 0 {
			sec, n = sec-1, n+1e9
		}
		zone, _ := s["zone"].(string)
		return temporal.DateTime{Sec: sec, Nanos: int32(n), Offset: int32(get("offset_seconds")), Zone: zone}.String()
	}
	out := map[string]any{}
	for k, v := range s {
		switch k {
		case "properties":
			var x any
			dec := json.NewDecoder(strings.NewReader(v.(string)))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				t.Fatal(err)
			}
			out[k] = arrowio.Normalize(x)
		case "nodes", "relationships":
			var l []any
			for _, e := range v.(map[string]any)["list"].([]any) {
				l = append(l, fromArrowStruct(t, e.(map[string]any)["struct"].(map[string]any), ""))
			}
			if l == nil {
				l = []any{}
			}
			out[k] = l
		default:
			out[k] = fromArrowJS(t, v, "")
		}
	}
	return out
}

// unpackArrowJS unpacks the vendored tarballs, each checked against the
// integrity its lockfile records, into a node_modules folder.
func unpackArrowJS(t *testing.T) string {
	var lock struct {
		Packages map[string]struct{ Version, Integrity string }
	}
	raw, err := os.ReadFile("testdata/arrowjs/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(t.TempDir(), "node_modules")
	for _, name := range []string{"apache-arrow", "flatbuffers", "tslib"} {
		p := lock.Packages["node_modules/"+name]
		tgz, err := os.ReadFile(filepath.Join("testdata/arrowjs/vendor", name+"-"+p.Version+".tgz"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(tgz)
		if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != p.Integrity {
			t.Fatalf("%s %s: the vendored tarball's digest %s is not the lockfile's %s", name, p.Version, got, p.Integrity)
		}
		untar(t, tgz, filepath.Join(modules, name))
	}
	return modules
}

// untar writes an npm tarball's package/ folder to dir.
func untar(t *testing.T, tgz []byte, dir string) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || h.Typeflag != tar.TypeReg || strings.Contains(name, "..") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
