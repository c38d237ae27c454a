package http

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Hermitage (github.com/ept/hermitage) over the HTTP transaction API:
// its PostgreSQL test scripts translated to the graph
// (:Test {id: 1, value: 10}), (:Test {id: 2, value: 20}), run at each
// isolation level. Each step asserts what it answers at each level; each
// script then says whether the anomaly occurred, which must agree with
// hermitageScripts and with the table in docs/transactions.md.
//
// PostgreSQL blocks a writer on a row another open transaction wrote;
// Quiver never blocks (optimistic): the second writer goes on and the
// conflict is decided when one of them commits (first committer wins),
// or, at READ_COMMITTED, at the loser's next statement, whose fresh
// snapshot already holds the winner's commit. The expected outcomes are
// therefore "prevented or not", not PostgreSQL's step-by-step blocking.

// isolationLevels in the order of the table's columns.
var isolationLevels = []string{"READ_COMMITTED", "REPEATABLE_READ", "SERIALIZABLE"}

// hermitageScripts lists each script with whether its anomaly is
// possible at READ_COMMITTED, REPEATABLE_READ and SERIALIZABLE; anomaly
// groups the scripts of one column of Hermitage's table.
var hermitageScripts = []struct {
	name, anomaly string
	possible      [3]bool
}{
	{"G0", "G0", [3]bool{false, false, false}},
	{"G1a", "G1a", [3]bool{false, false, false}},
	{"G1b", "G1b", [3]bool{false, false, false}},
	{"G1c", "G1c", [3]bool{false, false, false}},
	{"OTV", "OTV", [3]bool{false, false, false}},
	{"PMP", "PMP", [3]bool{true, false, false}},
	{"PMP write predicate", "PMP", [3]bool{false, false, false}},
	{"P4", "P4", [3]bool{false, false, false}},
	{"P4 write after commit", "P4", [3]bool{true, false, false}},
	{"G-single", "G-single", [3]bool{true, false, false}},
	{"G-single predicate read", "G-single", [3]bool{true, false, false}},
	{"G-single write predicate", "G-single", [3]bool{true, false, false}},
	{"G2-item", "G2-item", [3]bool{true, true, false}},
	{"G2", "G2", [3]bool{true, true, false}},
	{"G2 two edges", "G2", [3]bool{true, true, false}},
}

// hermitage is one script's run at one level, on a fresh graph.
type hermitage struct {
	txAPI
	level int // index in isolationLevels
}

// runHermitage runs script at each level and checks whether its anomaly
// occurred against hermitageScripts.
func runHermitage(t *testing.T, name string, script func(h *hermitage) (occurred bool)) {
	i := slices.IndexFunc(hermitageScripts, func(s struct {
		name, anomaly string
		possible      [3]bool
	}) bool {
		return s.name == name
	})
	if i < 0 {
		t.Fatalf("no script %s in hermitageScripts", name)
	}
	possible := hermitageScripts[i].possible
	for lvl, level := range isolationLevels {
		// Each script runs on the bare graph (label scans), again with
		// an index on :Test(id), through which its reads by id seek (the
		// outcome must not depend on the access path), on a graph other
		// than the default (docs/graphs.md), and on a data directory
		// encrypted at rest (docs/encryption.md).
		for _, variant := range []string{"", "indexed", "graph", "encrypted"} {
			indexed := variant == "indexed"
			sub := level
			if variant != "" {
				sub += "/" + variant
			}
			var opts engine.Options
			if variant == "encrypted" {
				key := bytes.Repeat([]byte{0x77}, 32)
				opts.Encryption = &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
			}
			t.Run(sub, func(t *testing.T) {
				t.Parallel() // a server of its own
				h := &hermitage{txAPI: newTxAPI(t, Config{}, opts), level: lvl}
				if variant == "graph" {
					h.auto("CREATE GRAPH hermitage")
					h.graph = "hermitage"
				}
				h.auto("CREATE (:Test {id: 1, value: 10}), (:Test {id: 2, value: 20})")
				if indexed {
					h.auto("CREATE INDEX test_id FOR (t:Test) ON (t.id)")
					_, out := h.post("/api/v1/query/explain", `{"query":"MATCH (t:Test) WHERE t.id = 1 RETURN t.id AS id, t.value AS value ORDER BY id"}`)
					if plan := jsonString(out["plan"]); !strings.Contains(plan, `"index_used":"test_id"`) {
						t.Fatalf("a read by id does not seek the index: %s", plan)
					}
				}
				if occurred := script(h); occurred != possible[lvl] {
					t.Errorf("%s at %s: the anomaly occurred: %v; hermitageScripts says possible: %v", name, sub, occurred, possible[lvl])
				}
				if variant == "graph" {
					h.graph = ""
					if got := h.auto("MATCH (n) RETURN count(n) AS c"); got != `[{"c":0}]` {
						t.Errorf("the script on graph hermitage wrote to the default graph: %s", got)
					}
				}
			})
		}
	}
}

func (h *hermitage) begin() string { return h.beginAt(isolationLevels[h.level]) }

// do runs a statement in tx: "ok", or its error code.
func (h *hermitage) do(tx, query string) string {
	h.t.Helper()
	status, out := h.run(tx, query)
	if status == 200 {
		return "ok"
	}
	code, _ := errOf(out)
	return code
}

// set sets node id's value in tx.
func (h *hermitage) set(tx string, id, value int) string {
	h.t.Helper()
	return h.do(tx, fmt.Sprintf("MATCH (t:Test {id: %d}) SET t.value = %d", id, value))
}

// read returns the nodes matching where in tx as "id=value,…" in id
// order, or the error code.
func (h *hermitage) read(tx, where string) string {
	h.t.Helper()
	status, out := h.run(tx, "MATCH (t:Test) WHERE "+where+" RETURN t.id AS id, t.value AS value ORDER BY id")
	if status != 200 {
		code, _ := errOf(out)
		return code
	}
	return formatRows(out["data"])
}

func formatRows(data any) string {
	var parts []string
	for _, r := range data.([]any) {
		row := r.(map[string]any)
		parts = append(parts, jsonString(row["id"])+"="+jsonString(row["value"]))
	}
	return strings.Join(parts, ",")
}

// committed returns what an auto-commit read sees.
func (h *hermitage) committed() string {
	h.t.Helper()
	status, out := h.post("/api/v1/query", `{"query":"MATCH (t:Test) RETURN t.id AS id, t.value AS value ORDER BY id"}`)
	if status != 200 {
		h.t.Fatalf("read: %d %v", status, out)
	}
	return formatRows(out["data"])
}

// end commits tx: "ok", or the error code.
func (h *hermitage) end(tx string) string {
	h.t.Helper()
	status, out := h.commit(tx)
	if status == 200 {
		return "ok"
	}
	code, _ := errOf(out)
	return code
}

func (h *hermitage) abort(tx string) {
	h.t.Helper()
	if status, out := h.rollback(tx, ""); status != 200 {
		h.t.Fatalf("rollback: %d %v", status, out)
	}
}

// want checks a step's answer: one value for every level, or one per
// level in the order of isolationLevels.
func (h *hermitage) want(step, got string, want ...string) {
	h.t.Helper()
	w := want[0]
	if len(want) == len(isolationLevels) {
		w = want[h.level]
	}
	if got != w {
		h.t.Errorf("%s at %s: %q, want %q", step, isolationLevels[h.level], got, w)
	}
}

// G0, write cycles (dirty writes): two transactions write both items;
// the outcome must be one's writes or the other's, never a mix.
func TestHermitageG0(t *testing.T) {
	runHermitage(t, "G0", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T2 sets 1", h.set(t2, 1, 12), "ok") // PostgreSQL blocks T2 here
		h.want("T1 sets 2", h.set(t1, 2, 21), "ok")
		h.want("T1 commits", h.end(t1), "ok")
		// READ_COMMITTED: T2's statement reads T1's commit, against which
		// T2's write of 1 is a conflict, found at once.
		h.want("T2 sets 2", h.set(t2, 2, 22), "40001", "ok", "ok")
		h.want("T2 commits", h.end(t2), "40000", "40001", "40001")
		final := h.committed()
		h.want("committed", final, "1=11,2=21")
		return final != "1=11,2=21" && final != "1=12,2=22"
	})
}

// G1a, aborted reads: nobody sees the writes of a transaction that
// rolled back.
func TestHermitageG1a(t *testing.T) {
	runHermitage(t, "G1a", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 sets 1", h.set(t1, 1, 101), "ok")
		r1 := h.read(t2, "true")
		h.want("T2 reads", r1, "1=10,2=20")
		h.abort(t1)
		r2 := h.read(t2, "true")
		h.want("T2 reads again", r2, "1=10,2=20")
		h.want("T2 commits", h.end(t2), "ok")
		return strings.Contains(r1+r2, "101")
	})
}

// G1b, intermediate reads: nobody sees a value a transaction overwrote
// before committing.
func TestHermitageG1b(t *testing.T) {
	runHermitage(t, "G1b", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 sets 1", h.set(t1, 1, 101), "ok")
		r1 := h.read(t2, "true")
		h.want("T2 reads", r1, "1=10,2=20")
		h.want("T1 sets 1 again", h.set(t1, 1, 11), "ok")
		h.want("T1 commits", h.end(t1), "ok")
		r2 := h.read(t2, "true")
		h.want("T2 reads again", r2, "1=11,2=20", "1=10,2=20", "1=10,2=20")
		h.want("T2 commits", h.end(t2), "ok")
		return strings.Contains(r1+r2, "101")
	})
}

// G1c, circular information flow: each transaction reads the other's
// uncommitted write.
func TestHermitageG1c(t *testing.T) {
	runHermitage(t, "G1c", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T2 sets 2", h.set(t2, 2, 22), "ok")
		r1 := h.read(t1, "t.id = 2")
		h.want("T1 reads 2", r1, "2=20")
		r2 := h.read(t2, "t.id = 1")
		h.want("T2 reads 1", r2, "1=10")
		h.want("T1 commits", h.end(t1), "ok")
		// SERIALIZABLE: T2 read the value key T1 wrote (the read check's
		// granularity is label and key, not node).
		h.want("T2 commits", h.end(t2), "ok", "ok", "40001")
		h.want("committed", h.committed(), "1=11,2=22", "1=11,2=22", "1=11,2=20")
		return r1 == "2=22" && r2 == "1=11"
	})
}

// OTV, observed transaction vanishes: T3 sees T2's write and later a
// value T2 had overwritten.
func TestHermitageOTV(t *testing.T) {
	runHermitage(t, "OTV", func(h *hermitage) bool {
		t1, t2, t3 := h.begin(), h.begin(), h.begin()
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T1 sets 2", h.set(t1, 2, 19), "ok")
		h.want("T2 sets 1", h.set(t2, 1, 12), "ok") // PostgreSQL blocks T2 here
		h.want("T1 commits", h.end(t1), "ok")
		var seen []string
		seen = append(seen, h.read(t3, "t.id = 1"))
		h.want("T3 reads 1", seen[0], "1=11", "1=10", "1=10")
		h.want("T2 sets 2", h.set(t2, 2, 18), "40001", "ok", "ok")
		seen = append(seen, h.read(t3, "t.id = 2"))
		h.want("T3 reads 2", seen[1], "2=19", "2=20", "2=20")
		h.want("T2 commits", h.end(t2), "40000", "40001", "40001")
		seen = append(seen, h.read(t3, "t.id = 2"), h.read(t3, "t.id = 1"))
		h.want("T3 reads 2 again", seen[2], "2=19", "2=20", "2=20")
		h.want("T3 reads 1 again", seen[3], "1=11", "1=10", "1=10")
		h.want("T3 commits", h.end(t3), "ok")
		h.want("committed", h.committed(), "1=11,2=19")
		// The anomaly: a value of T2 seen, then one T2 overwrote.
		sawT2 := false
		for _, s := range seen {
			switch s {
			case "1=12", "2=18":
				sawT2 = true
			case "1=11", "2=19":
				if sawT2 {
					return true
				}
			}
		}
		return false
	})
}

// PMP, predicate-many-preceders: a predicate read sees a row another
// transaction inserted and committed after the first read.
func TestHermitagePMP(t *testing.T) {
	runHermitage(t, "PMP", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads value = 30", h.read(t1, "t.value = 30"), "")
		h.want("T2 inserts 3", h.do(t2, "CREATE (:Test {id: 3, value: 30})"), "ok")
		h.want("T2 commits", h.end(t2), "ok")
		r := h.read(t1, "t.value % 3 = 0")
		h.want("T1 reads value % 3 = 0", r, "3=30", "", "")
		h.want("T1 commits", h.end(t1), "ok")
		return r != ""
	})
}

// PMP for write predicates (PostgreSQL's documentation example): T2
// deletes by a predicate that T1's committed update changed.
func TestHermitagePMPWritePredicate(t *testing.T) {
	runHermitage(t, "PMP write predicate", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 adds 10 to all", h.do(t1, "MATCH (t:Test) SET t.value = t.value + 10"), "ok")
		h.want("T2 deletes value = 20", h.do(t2, "MATCH (t:Test) WHERE t.value = 20 DETACH DELETE t"), "ok") // PostgreSQL blocks T2 here
		h.want("T1 commits", h.end(t1), "ok")
		// READ_COMMITTED: T2's next statement reads T1's commit, which
		// changed the node T2 deleted: a conflict.
		h.want("T2 reads value = 20", h.read(t2, "t.value = 20"), "40001", "", "")
		end := h.end(t2)
		h.want("T2 commits", end, "40000", "40001", "40001")
		h.want("committed", h.committed(), "1=20,2=30")
		return end == "ok"
	})
}

// P4, lost update, as Hermitage orders it: both write before either
// commits.
func TestHermitageP4(t *testing.T) {
	runHermitage(t, "P4", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads 1", h.read(t1, "t.id = 1"), "1=10")
		h.want("T2 reads 1", h.read(t2, "t.id = 1"), "1=10")
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T2 sets 1", h.set(t2, 1, 11), "ok") // PostgreSQL blocks T2 here
		h.want("T1 commits", h.end(t1), "ok")
		end := h.end(t2)
		h.want("T2 commits", end, "40001")
		h.want("committed", h.committed(), "1=11,2=20")
		return end == "ok"
	})
}

// P4 with T2's write sent after T1 committed: each computed value + 1
// from its own read. At READ_COMMITTED T2's write runs on a fresh
// snapshot and conflicts with nothing, so T1's increment is lost.
func TestHermitageP4WriteAfterCommit(t *testing.T) {
	runHermitage(t, "P4 write after commit", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads 1", h.read(t1, "t.id = 1"), "1=10")
		h.want("T2 reads 1", h.read(t2, "t.id = 1"), "1=10")
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T1 commits", h.end(t1), "ok")
		h.want("T2 sets 1", h.set(t2, 1, 11), "ok")
		end := h.end(t2)
		h.want("T2 commits", end, "ok", "40001", "40001")
		h.want("committed", h.committed(), "1=11,2=20")
		return end == "ok"
	})
}

// G-single, read skew: T1 reads 1 before T2's commit and 2 after it.
func TestHermitageGSingle(t *testing.T) {
	runHermitage(t, "G-single", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads 1", h.read(t1, "t.id = 1"), "1=10")
		h.want("T2 reads 1", h.read(t2, "t.id = 1"), "1=10")
		h.want("T2 reads 2", h.read(t2, "t.id = 2"), "2=20")
		h.want("T2 sets 1", h.set(t2, 1, 12), "ok")
		h.want("T2 sets 2", h.set(t2, 2, 18), "ok")
		h.want("T2 commits", h.end(t2), "ok")
		r := h.read(t1, "t.id = 2")
		h.want("T1 reads 2", r, "2=18", "2=20", "2=20")
		h.want("T1 commits", h.end(t1), "ok")
		return r == "2=18"
	})
}

// G-single with predicate reads.
func TestHermitageGSinglePredicateRead(t *testing.T) {
	runHermitage(t, "G-single predicate read", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads value % 5 = 0", h.read(t1, "t.value % 5 = 0"), "1=10,2=20")
		h.want("T2 sets value = 10 to 12", h.do(t2, "MATCH (t:Test) WHERE t.value = 10 SET t.value = 12"), "ok")
		h.want("T2 commits", h.end(t2), "ok")
		r := h.read(t1, "t.value % 3 = 0")
		h.want("T1 reads value % 3 = 0", r, "1=12", "", "")
		h.want("T1 commits", h.end(t1), "ok")
		return r != ""
	})
}

// G-single with a write predicate: T1 read 1 before T2's commit; its
// delete by predicate then runs after it.
func TestHermitageGSingleWritePredicate(t *testing.T) {
	runHermitage(t, "G-single write predicate", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads 1", h.read(t1, "t.id = 1"), "1=10")
		h.want("T2 reads all", h.read(t2, "true"), "1=10,2=20")
		h.want("T2 sets 1", h.set(t2, 1, 12), "ok")
		h.want("T2 sets 2", h.set(t2, 2, 18), "ok")
		h.want("T2 commits", h.end(t2), "ok")
		_, out := h.run(t1, "MATCH (t:Test) WHERE t.value = 20 DETACH DELETE t")
		deleted := jsonString(out["metadata"].(map[string]any)["nodes_deleted"])
		// READ_COMMITTED: the delete reads T2's commit (2 is 18 now) and
		// deletes nothing; the other levels delete 2 on their snapshot
		// and fail at commit, since T2 changed it.
		h.want("T1 deletes value = 20", deleted, "0", "1", "1")
		end := h.end(t1)
		h.want("T1 commits", end, "ok", "40001", "40001")
		h.want("committed", h.committed(), "1=12,2=18")
		// The anomaly: T1 read 1 before T2 and decided its delete after.
		return end == "ok" && deleted == "0"
	})
}

// G2-item, write skew: each reads both items and writes a different one.
func TestHermitageG2Item(t *testing.T) {
	runHermitage(t, "G2-item", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads 1, 2", h.read(t1, "t.id IN [1, 2]"), "1=10,2=20")
		h.want("T2 reads 1, 2", h.read(t2, "t.id IN [1, 2]"), "1=10,2=20")
		h.want("T1 sets 1", h.set(t1, 1, 11), "ok")
		h.want("T2 sets 2", h.set(t2, 2, 21), "ok")
		h.want("T1 commits", h.end(t1), "ok")
		end := h.end(t2)
		h.want("T2 commits", end, "ok", "ok", "40001")
		h.want("committed", h.committed(), "1=11,2=21", "1=11,2=21", "1=11,2=20")
		return end == "ok"
	})
}

// G2, anti-dependency cycles over a predicate: each inserts what the
// other's predicate read would have returned.
func TestHermitageG2(t *testing.T) {
	runHermitage(t, "G2", func(h *hermitage) bool {
		t1, t2 := h.begin(), h.begin()
		h.want("T1 reads value % 3 = 0", h.read(t1, "t.value % 3 = 0"), "")
		h.want("T2 reads value % 3 = 0", h.read(t2, "t.value % 3 = 0"), "")
		h.want("T1 inserts 3", h.do(t1, "CREATE (:Test {id: 3, value: 30})"), "ok")
		h.want("T2 inserts 4", h.do(t2, "CREATE (:Test {id: 4, value: 42})"), "ok")
		h.want("T1 commits", h.end(t1), "ok")
		end := h.end(t2)
		h.want("T2 commits", end, "ok", "ok", "40001")
		h.want("committed", h.committed(), "1=10,2=20,3=30,4=42", "1=10,2=20,3=30,4=42", "1=10,2=20,3=30")
		return end == "ok"
	})
}

// G2 with two anti-dependency edges (Fekete et al.): a read-only T3 sees
// T2's commit, which T1 read before; T1 then writes.
func TestHermitageG2TwoEdges(t *testing.T) {
	runHermitage(t, "G2 two edges", func(h *hermitage) bool {
		t1 := h.begin()
		h.want("T1 reads all", h.read(t1, "true"), "1=10,2=20")
		t2 := h.begin()
		h.want("T2 adds 5 to 2", h.do(t2, "MATCH (t:Test {id: 2}) SET t.value = t.value + 5"), "ok")
		h.want("T2 commits", h.end(t2), "ok")
		t3 := h.begin()
		h.want("T3 reads all", h.read(t3, "true"), "1=10,2=25")
		h.want("T3 commits", h.end(t3), "ok")
		h.want("T1 sets 1", h.set(t1, 1, 0), "ok") // PostgreSQL fails here at SERIALIZABLE
		end := h.end(t1)
		h.want("T1 commits", end, "ok", "ok", "40001")
		h.want("committed", h.committed(), "1=0,2=25", "1=0,2=25", "1=10,2=25")
		return end == "ok"
	})
}

// The tables in docs/transactions.md say what hermitageScripts says: a
// row per script with a cell per level that starts with "prevented" or
// "possible"; and the summary in Hermitage's shape, a row per level and
// a column per anomaly, possible when any of its scripts is.
func TestHermitageTableDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/transactions.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for line := range strings.SplitSeq(string(doc), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		parts := strings.Split(strings.Trim(line, "| "), " | ")
		for i := range parts {
			parts[i] = strings.Trim(parts[i], "`*_ ")
		}
		rows[parts[0]] = parts[1:]
	}
	word := func(p bool) string {
		if p {
			return "possible"
		}
		return "prevented"
	}
	summary := map[string][3]bool{}
	for _, s := range hermitageScripts {
		row := rows[s.name]
		if len(row) < len(isolationLevels) {
			t.Errorf("docs/transactions.md has no row for the script %q", s.name)
			continue
		}
		for i, p := range s.possible {
			if !strings.HasPrefix(row[i], word(p)) {
				t.Errorf("docs/transactions.md: script %s at %s says %q, the test finds it %s", s.name, isolationLevels[i], row[i], word(p))
			}
		}
		sum := summary[s.anomaly]
		for i := range sum {
			sum[i] = sum[i] || s.possible[i]
		}
		summary[s.anomaly] = sum
	}
	header := rows["isolation level"]
	if len(header) != len(summary) {
		t.Fatalf("docs/transactions.md: the summary's header names %v, want the %d anomalies", header, len(summary))
	}
	for i, level := range isolationLevels {
		row := rows[level]
		if len(row) != len(header) {
			t.Errorf("docs/transactions.md: the summary has no full row for %s", level)
			continue
		}
		for c, anomaly := range header {
			sum, ok := summary[anomaly]
			if !ok {
				t.Errorf("docs/transactions.md: the summary names an anomaly %q no script tests", anomaly)
				continue
			}
			if !strings.HasPrefix(row[c], word(sum[i])) {
				t.Errorf("docs/transactions.md: the summary says %s is %q at %s, the scripts find it %s", anomaly, row[c], level, word(sum[i]))
			}
		}
	}
}
