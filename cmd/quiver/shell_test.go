package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/shell"
)

// elapsedRe matches the time a footer shows, which varies.
var elapsedRe = regexp.MustCompile(`\(\d+\.\d+ m?s\)`)

func normalizeElapsed(s string) string { return elapsedRe.ReplaceAllString(s, "(T)") }

// shellGraph is the graph the shell's tests read: Ada knows Bob.
const shellGraph = `CREATE (a:Person {name: 'Ada', born: 1815})-[:KNOWS {since: 2001}]->(b:Person:Admin {name: 'Bob'});`

// The formats on a real server's results, against golden files written
// and checked by hand: a node, a relationship, a path, a list, a map, a
// float, a null and a string that needs quoting in CSV.
func TestShellFormatsGolden(t *testing.T) {
	srv := startShellServer(t)
	o := shell.Options{Addr: srv.addr}
	if code, _, errs := runShellScript(t, o, shellGraph); code != 0 {
		t.Fatalf("seeding: exit %d: %s", code, errs)
	}
	const q = `MATCH p = (a:Person {name: 'Ada'})-[r:KNOWS]->(b)
RETURN a.name AS name, a.born AS born, b, r, p, [1, 2.5, 'x'] AS list, {k: null} AS map, 2.0 AS f, null AS z, 'say "hi", Ada' AS s;`
	for _, format := range []string{"table", "csv", "json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			o := shell.Options{Addr: srv.addr, Format: format, Command: q + "\n" + q}
			code, out, errs := runShellScript(t, o, "")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "shell", format+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if got := normalizeElapsed(out); got != string(want) {
				t.Errorf("output:\n%s\nwant (testdata/shell/%s.golden):\n%s", got, format, want)
			}
		})
	}
}

// Every colon command, in a script on standard input over the wire
// protocol.
func TestShellCommands(t *testing.T) {
	srv := startShellServer(t)
	dir := t.TempDir()
	sourced := filepath.Join(dir, "more.gql")
	if err := os.WriteFile(sourced, []byte("// a sourced file\nMATCH (c:City)\nRETURN c.name AS city;\n:params\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `:help
:param name => 'Ada'
:param born => 1800 + 15
:params {"tags": ["a", 1.5], "n": 2}
:params
CREATE (:Person {name: $name, born: $born, tags: $tags});
:begin
CREATE (:Person {name: 'Gone'});
:rollback
:begin
CREATE (:City {name: 'London'});
:commit
MATCH (n) RETURN n.name AS name, n.born AS born ORDER BY name;
:explain MATCH (n:Person) WHERE n.born > 1800 RETURN n.name
:profile MATCH (n:Person) WHERE n.born > 1800 RETURN n.name
CREATE INDEX person_name FOR (p:Person) ON (p.name);
:schema
:status
:format jsonl
:format
:source ` + sourced + `
:params clear
:params
:quit
RETURN 'not reached' AS x;
`
	code, out, errs := runShellScript(t, shell.Options{Addr: srv.addr}, script)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		":param name => expr", // :help
		":param born => 1815\n:param n => 2\n:param name => \"Ada\"\n:param tags => [\"a\", 1.5]\n", // :params
		"0 rows (T), 1 node created, 3 properties set, 1 label added",                               // CREATE with parameters
		"| Ada    | 1815 |\n| London | null |\n",                                                    // the commit kept London, the rollback dropped Gone
		"Filter (n.born > 1800) [range-filter] (est.",                                               // :explain's tree
		"└─ NodeScan n:Person (est. ",
		"estimated total cost",
		"└─ NodeScan n:Person (1 row, ", // :profile's tree with the work done
		// One person: the range filter's column is too small for a view.
		"; fell back: range-filter: ",
		"total ",
		"Labels:\n  1  :City\n  1  :Person\n", // :schema with counts
		"Relationship types:\nProperty keys:\n  born\n  name\n  tags\n",
		"Indexes:\n  person_name  BTREE  Person  name\n",
		"Constraints:\n  (none)\n",
		"transport: wire protocol over TCP\naddress: " + srv.addr, // :status
		"graph: 2 nodes, 0 relationships",
		"jsonl\n",                                                             // :format
		"{\"city\":\"London\"}\n",                                             // :source, in jsonl
		"{\"born\":1815,\"n\":2,\"name\":\"Ada\",\"tags\":[\"a\",1.5]}\n{}\n", // :params in jsonl, then cleared
	} {
		if !strings.Contains(normalizeElapsed(out), want) {
			t.Errorf("output lacks %q:\n%s", want, normalizeElapsed(out))
		}
	}
	if strings.Contains(out, "not reached") || strings.Contains(out, "Gone") {
		t.Errorf("ran past :quit or kept a rolled-back write:\n%s", out)
	}
	if errs != "" {
		t.Errorf("stderr: %s", errs)
	}
}

// A script stops at its first error and exits 1, with the error's code
// and its position in the script on stderr; what follows does not run.
func TestShellScriptError(t *testing.T) {
	srv := startShellServer(t)
	file := filepath.Join(t.TempDir(), "bad.gql")
	script := "CREATE (:Person {name: 'First'});\n\nMATCH (n)\nRETURN n.name +;\nCREATE (:Person {name: 'Never'});\n"
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runShellScript(t, shell.Options{Addr: srv.addr, File: file}, "")
	if code != shell.ExitError {
		t.Fatalf("exit %d, want %d; stderr: %s", code, shell.ExitError, errs)
	}
	if !strings.Contains(errs, "error 42000 SYNTAX_ERROR: ") || !strings.Contains(errs, "at "+file+":4:16\n  RETURN n.name +\n                 ^\n") {
		t.Errorf("stderr: %q", errs)
	}
	code, out, errs := runShellScript(t, shell.Options{Addr: srv.addr, Format: "csv", Command: "MATCH (n:Person) RETURN n.name AS name"}, "")
	if code != 0 || out != "name\nFirst\n" || errs != "" {
		t.Errorf("after the failed script: exit %d, stdout %q, stderr %q (want only First)", code, out, errs)
	}
	code, _, errs = runShellScript(t, shell.Options{Addr: srv.addr}, ":nonsense\n")
	if code != shell.ExitError || !strings.Contains(errs, "unknown command :nonsense") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errs)
	}
}

// The transports: the wire protocol over QUIC (pinned to the server's
// fingerprint) and the HTTP API give the same output as TCP.
func TestShellTransports(t *testing.T) {
	srv := startShellServer(t)
	script := shellGraph + "\n:begin\nCREATE (:Person {name: 'Tx'});\n:commit\nMATCH (n:Person) RETURN n.name AS name ORDER BY name;\n:explain MATCH (n:Person) RETURN n\n"
	base := shell.Options{Addr: srv.addr, Format: "csv"}
	_, want, errs := runShellScript(t, base, script)
	if !strings.Contains(want, "name\nAda\nBob\nTx\n") || !strings.Contains(want, "NodeScan n:Person") {
		t.Fatalf("over TCP: %q %s", want, errs)
	}
	for _, o := range []shell.Options{
		{Addr: srv.addr, Format: "csv", Transport: shell.TransportQUIC, TLS: client.PinnedTLSConfig(srv.fingerprint)},
		{Addr: srv.addr, Format: "csv", Transport: shell.TransportHTTP},
	} {
		code, out, errs := runShellScript(t, o, "MATCH (n:Person) RETURN n.name AS name ORDER BY name;\n:explain MATCH (n:Person) RETURN n\n")
		if code != 0 || out != strings.TrimPrefix(want, "") || errs != "" {
			t.Errorf("over %s: exit %d\n%s\nwant\n%s\nstderr: %s", o.Transport, code, out, want, errs)
		}
	}
}

// A connection that cannot be made, and one lost in the middle of a
// script (the server stops), exit 3 with a message and no stack.
func TestShellLostConnection(t *testing.T) {
	srv := startShellServer(t)
	pr, pw := io.Pipe()
	out := &syncBuffer{}
	errs := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- shell.Run(t.Context(), shell.Options{Addr: srv.addr, Format: "csv", Stdin: pr, Stdout: out, Stderr: errs})
	}()
	io.WriteString(pw, "RETURN 1 AS x;\n")
	waitFor(t, out.String, "x\n1\n")
	srv.stop(t)
	io.WriteString(pw, "RETURN 2 AS x;\n")
	pw.Close()
	select {
	case code := <-done:
		if code != shell.ExitConnection {
			t.Errorf("exit %d, want %d", code, shell.ExitConnection)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shell did not end after its server stopped")
	}
	if e := errs.String(); !strings.Contains(e, "connection error: the connection to "+srv.addr+" was lost") || strings.Contains(e, "goroutine") {
		t.Errorf("stderr: %q", e)
	}
	code, _, e := runShellScript(t, shell.Options{Addr: srv.addr}, "RETURN 1;")
	if code != shell.ExitConnection || !strings.Contains(e, "cannot connect to "+srv.addr) {
		t.Errorf("no server: exit %d, stderr %q", code, e)
	}
}

// waitFor polls get until it holds want.
func waitFor(t *testing.T, get func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(get(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %q; have:\n%s", want, get())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// USE name on its own holds for the shell's later statements and
// transactions on every transport; --graph starts on a graph.
func TestShellUse(t *testing.T) {
	srv := startShellServer(t)
	if code, _, errs := runShellScript(t, shell.Options{Addr: srv.addr}, "CREATE GRAPH IF NOT EXISTS g;\n"); code != 0 {
		t.Fatalf("CREATE GRAPH: exit %d: %s", code, errs)
	}
	script := "USE g;\nCREATE (:OnG);\n:begin\nCREATE (:OnG);\n:commit\nMATCH (n:OnG) RETURN count(n) AS c;\nUSE default;\nMATCH (n:OnG) RETURN count(n) AS c;\n"
	for i, o := range []shell.Options{
		{Addr: srv.addr, Format: "csv"},
		{Addr: srv.addr, Format: "csv", Transport: shell.TransportHTTP},
	} {
		code, out, errs := runShellScript(t, o, script)
		// Each transport adds its two nodes to g: 2, then 4.
		want := "c\n" + []string{"2", "4"}[i] + "\n"
		if code != 0 || !strings.Contains(out, want+"graph\ndefault\nc\n0\n") {
			t.Errorf("over %q: exit %d\n%s\nwant %q then c 0; stderr: %s", o.Transport, code, out, want, errs)
		}
	}
	code, out, errs := runShellScript(t, shell.Options{Addr: srv.addr, Format: "csv", Graph: "g", Transport: shell.TransportHTTP}, "MATCH (n:OnG) RETURN count(n) AS c;\n")
	if code != 0 || !strings.Contains(out, "c\n4\n") {
		t.Errorf("--graph g: exit %d\n%s\nstderr: %s", code, out, errs)
	}
}
