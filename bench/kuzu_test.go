package bench

import (
	"bufio"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Lines recorded from bench/kuzu/run.js (Kùzu 0.11.3) on a 5,000-node
// data set.
const (
	recordedLoad  = `{"ok":true,"nodes_ms":112.568691,"edges_ms":58.075053000000025,"version":"0.11.3"}`
	recordedQ2    = `{"ok":true,"ms":9.024607000000003,"columns":["p.city","COUNT_STAR()","AVG(p.age)"],"rows":[["City000",1041,50.390009606147935],["City001",454,48.52863436123348],["City002",318,48.63522012578616]]}`
	recordedQ7    = `{"ok":true,"ms":16.109286999999995,"columns":["+(0,._LENGTH)"],"rows":[[4]]}`
	recordedError = `{"ok":false,"error":"Parser exception: Invalid input <MATCH (>: expected rule oC_SingleQuery"}`
)

func TestParseKuzuAnswer(t *testing.T) {
	a, err := ParseKuzuAnswer([]byte(recordedLoad))
	if err != nil || a.NodesMS != 112.568691 || a.Version != "0.11.3" {
		t.Fatalf("load answer %+v, %v", a, err)
	}
	a, err = ParseKuzuAnswer([]byte(recordedQ2))
	if err != nil {
		t.Fatal(err)
	}
	if a.MS != 9.024607000000003 || len(a.Columns) != 3 || len(a.Rows) != 3 {
		t.Fatalf("Q2 answer %+v", a)
	}
	if a.Rows[0][0] != "City000" || a.Rows[0][1] != int64(1041) || a.Rows[0][2] != 50.390009606147935 {
		t.Fatalf("Q2 first row %#v", a.Rows[0])
	}
	a, err = ParseKuzuAnswer([]byte(recordedQ7))
	if err != nil || len(a.Rows) != 1 || a.Rows[0][0] != int64(4) {
		t.Fatalf("Q7 answer %+v, %v", a, err)
	}
	// The embedded answer to Q7 (int64 4) agrees with Kùzu's.
	if err := Compare(Suite[6], Rows{{int64(4)}}, a.Rows); err != nil {
		t.Fatal(err)
	}
	if _, err = ParseKuzuAnswer([]byte(recordedError)); err == nil || !strings.Contains(err.Error(), "Parser exception") {
		t.Fatalf("error answer gave %v", err)
	}
	if _, err = ParseKuzuAnswer([]byte("Segmentation fault\n")); err == nil {
		t.Fatal("a non-JSON line parsed")
	}
}

func TestDecodeHTTPResult(t *testing.T) {
	raw := `{"schema":{"fields":[{"name":"a.id","type":"INTEGER"},{"name":"d","type":"INTEGER"}]},` +
		`"data":[{"d":785,"a.id":1244},{"a.id":3673,"d":529}],"metadata":{"rows_returned":2}}`
	rows, err := DecodeHTTPResult([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := Rows{{int64(1244), int64(785)}, {int64(3673), int64(529)}}
	if len(rows) != 2 || !rowEqual(rows[0], want[0]) || !rowEqual(rows[1], want[1]) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
}

func TestSuite(t *testing.T) {
	if len(Suite) != 9 {
		t.Fatalf("%d queries", len(Suite))
	}
	for i, q := range Suite {
		if q.Name != "Q"+string(rune('1'+i)) || q.Quiver == "" || q.Kuzu == "" {
			t.Fatalf("query %d: %+v", i, q)
		}
		if (q.TopK != nil) != strings.Contains(q.Quiver, "LIMIT") {
			t.Fatalf("%s: TopK does not match its LIMIT", q.Name)
		}
	}
}

// A runner whose process was killed answers a round trip with
// errRunnerEnded, and ended says it was killed (what the kernel's OOM
// killer does to a peer at scale L).
func TestRunnerEnded(t *testing.T) {
	cmd := exec.Command("sh", "-c", "read line; kill -9 $$")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &nodeRunner{name: "Kùzu", cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := n.roundTrip(map[string]any{"op": "query", "text": "x"}); !errors.Is(err, errRunnerEnded) {
		t.Fatalf("round trip: %v, want errRunnerEnded", err)
	}
	if got := n.ended(); !strings.Contains(got, "killed") || !strings.Contains(got, "kernel for memory") {
		t.Fatalf("ended: %q", got)
	}
}
