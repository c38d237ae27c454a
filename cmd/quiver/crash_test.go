package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestCrashRecovery: every commit `quiver serve` acknowledged survives
// SIGKILL, and no commit survives in part.
//
// Each cycle starts the real server on the same data directory (with
// checkpoint flags drawn per cycle, so that some kills land during a
// checkpoint), runs crashWriters concurrent writers and SIGKILLs the
// server at a random moment after the first acknowledgement. The writers
// issue auto-commit transactions of two kinds:
//
//   - a group: crashParts :Crash nodes carrying the group's tx id, their
//     part number, a random val and the sum of the group's vals as a
//     checksum, and a :CrashLink from part 0 to the last part, in one
//     CREATE;
//   - a transfer between two of the crashAccounts :Acct nodes created in
//     cycle 0, which keeps the total balance.
//
// After every restart it checks that
//
//   - every acknowledged group is present: all its parts with the values
//     sent, and its link ("acknowledged tx 17 is missing after restart
//     (0 of 4 parts)" otherwise);
//   - a group whose answer never came is present whole or absent;
//   - nothing is present that was never sent, and groups verified after
//     an earlier restart are still exactly as they were;
//   - count(:Crash) is crashParts × the distinct tx ids present, per
//     cycle and in all, and each present group has one link;
//   - the accounts are all there and their total is the initial one;
//   - quiver.storage.integrity() finds no broken invariant.
//
// QUIVER_CRASH_CYCLES sets the number of kills (default 5; make crash
// runs 200), QUIVER_CRASH_SEED the seed of every random choice (default:
// the clock; the seed is logged). Thread timing is not seeded, so a rerun
// with the same seed makes the same choices, not the same interleaving.
func TestCrashRecovery(t *testing.T) { testCrashRecovery(t, "", 5, nil, nil) }

// TestCrashRecoveryEncrypted runs the crash test on a data directory
// encrypted at rest (docs/encryption.md), with the groups' values and the
// accounts' balances in encrypted fields (sealed at every write, opened
// by every check: the server runs without authentication, so its
// clients hold every key), and then finds neither a label of the
// workload nor the QUIC key in clear in any file of it.
func TestCrashRecoveryEncrypted(t *testing.T) {
	key := filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("5a", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := testCrashRecovery(t, "", 2, []string{"--encryption-key-file", key}, []string{
		"CALL quiver.fle.createKey('crash', {deterministic: true})",
		"CALL quiver.fle.createKey('money')",
		"CALL quiver.fle.encryptProperty('Crash', 'val', 'crash')",
		"CALL quiver.fle.encryptProperty('Acct', 'bal', 'money')",
	})
	files := 0
	err := filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for _, word := range []string{"CrashLink", "Acct", "PRIVATE KEY"} {
			if bytes.Contains(b, []byte(word)) {
				t.Errorf("%s holds %q in clear", p, word)
			}
		}
		return nil
	})
	if err != nil || files < 4 {
		t.Fatalf("%d files in the data directory, %v", files, err)
	}
}

// The same on a graph other than the default: its log, checkpoints and
// catalog entry survive every kill as the default graph's do.
func TestCrashRecoveryOnGraph(t *testing.T) { testCrashRecovery(t, "bank", 3, nil, nil) }

// testCrashRecovery runs the crash test on graph ("": the default) with
// extra serve flags, and setup statements run once the accounts exist,
// and returns the data directory.
func testCrashRecovery(t *testing.T, graph string, defCycles int64, extra, setup []string) string {
	cycles := crashEnvInt(t, "QUIVER_CRASH_CYCLES", defCycles)
	seed := crashEnvInt(t, "QUIVER_CRASH_SEED", time.Now().UnixNano())
	t.Logf("seed %d, %d cycles (rerun: QUIVER_CRASH_SEED=%d QUIVER_CRASH_CYCLES=%d)", seed, cycles, seed, cycles)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))

	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "data")
	ledger := newCrashLedger()
	var nextTx atomic.Int64
	var last crashCycleReport
	for cycle := 0; cycle <= int(cycles); cycle++ {
		flags := append(crashServeFlags(rng), extra...)
		srv := startCrashServer(t, bin, data, dir, fmt.Sprintf("serve-%d", cycle), flags)
		srv.graph = graph
		client := newCrashClient(srv.addr, 2).on(graph)
		if cycle == 0 {
			if graph != "" {
				newCrashClient(srv.addr, 1).rows(t, "CREATE GRAPH "+graph, nil)
			}
			createAccounts(t, client)
			for _, st := range setup {
				client.rows(t, st, nil)
			}
		} else {
			// What the previous cycle's kill left.
			groups := verifyGroups(t, client, ledger, cycle-1)
			totals := verifyTotals(t, client, ledger)
			reportCrashProblems(t, srv, seed, "the restart after "+last.String(), totals, groups)
			last.logVerified(t, ledger)
		}
		if cycle == int(cycles) {
			// Every group of every cycle once more, in detail.
			reportCrashProblems(t, srv, seed, "the final check of all cycles", verifyGroups(t, client, ledger, -1))
			t.Logf("all %d cycles: %d groups present (%d acknowledged), %d transfers acknowledged",
				cycles, ledger.presentTotal(), ledger.ackedTotal(), ledger.transfers.Load())
			client.close()
			break
		}
		client.close()
		last = runCrashCycle(t, srv, cycle, flags, rng, ledger, &nextTx)
		reportCrashProblems(t, srv, seed, "the writers of "+last.String(), ledger.takeProblems())
	}
	return data
}

// Shape of the workload.
const (
	crashWriters        = 8
	crashParts          = 4
	crashAccounts       = 16
	crashInitialBalance = 1000
	// The kill comes this long at most after the first acknowledgement of
	// a cycle (uniformly drawn).
	crashMaxKillDelay = 300 * time.Millisecond
	// reportCrashProblems shows this many problems of a check.
	crashShowProblems = 20
)

// crashEnvInt reads an integer environment variable.
func crashEnvInt(t *testing.T, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return n
}

// crashServeFlags draws a cycle's checkpoint flags: checkpoints after
// 64 KB or 1 MB of log make kills land during one and recovery start from
// a checkpoint; the default (256 MB) leaves it all to the log.
func crashServeFlags(rng *rand.Rand) []string {
	var flags []string
	switch rng.IntN(3) {
	case 0:
		flags = append(flags, "--checkpoint-wal-size", "64KB")
	case 1:
		flags = append(flags, "--checkpoint-wal-size", "1MB")
	}
	if rng.IntN(4) == 0 {
		flags = append(flags, "--checkpoint-interval", "20ms")
	}
	return flags
}

// createAccounts creates the accounts transfers move balance between.
func createAccounts(t *testing.T, c *crashClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashRequestTimeout)
	defer cancel()
	r := c.post(ctx, crashStmt{"UNWIND range(0, $n - 1) AS i CREATE (:Acct {id: i, bal: $bal})",
		map[string]any{"n": crashAccounts, "bal": crashInitialBalance}})
	if n, _ := crashInt(r.metadata["nodes_created"]); !r.acked() || n != crashAccounts {
		t.Fatalf("creating the accounts: %v, %d nodes created", r, n)
	}
}

// crashNode is one :Crash node as read back.
type crashNode struct{ tx, cycle, part, n, val, sum int64 }

// crashLink is one :CrashLink as read back, with its ends' tx and part.
type crashLink struct{ tx, fromTx, fromPart, toTx, toPart int64 }

// verifyGroups reads back the groups of a cycle (every cycle when cycle
// is negative) and checks them against the ledger; the groups checked
// are then verified, with what was found. It returns the problems.
func verifyGroups(t *testing.T, c *crashClient, l *crashLedger, cycle int) []string {
	t.Helper()
	nodeWhere, linkWhere, params := "", "", map[string]any{}
	if cycle >= 0 {
		nodeWhere, linkWhere = " WHERE n.cycle = $cycle", " WHERE r.cycle = $cycle"
		params["cycle"] = cycle
	}
	var problems []string
	nodes := map[int64][]crashNode{}
	for _, row := range c.rows(t, "MATCH (n:Crash)"+nodeWhere+" RETURN n.tx AS tx, n.cycle AS cycle, n.part AS part, n.n AS n, n.val AS val, n.sum AS sum", params) {
		var n crashNode
		if !crashScan(row, []string{"tx", "cycle", "part", "n", "val", "sum"}, &n.tx, &n.cycle, &n.part, &n.n, &n.val, &n.sum) {
			problems = append(problems, fmt.Sprintf("a :Crash node is not whole: %v", row))
			continue
		}
		nodes[n.tx] = append(nodes[n.tx], n)
	}
	links := map[int64][]crashLink{}
	for _, row := range c.rows(t, "MATCH (a)-[r:CrashLink]->(b)"+linkWhere+" RETURN r.tx AS tx, a.tx AS from_tx, a.part AS from_part, b.tx AS to_tx, b.part AS to_part", params) {
		var k crashLink
		if !crashScan(row, []string{"tx", "from_tx", "from_part", "to_tx", "to_part"}, &k.tx, &k.fromTx, &k.fromPart, &k.toTx, &k.toPart) {
			problems = append(problems, fmt.Sprintf("a :CrashLink is not whole: %v", row))
			continue
		}
		links[k.tx] = append(links[k.tx], k)
	}

	for _, tx := range slices.Sorted(maps.Keys(nodes)) {
		if l.group(tx) == nil {
			problems = append(problems, fmt.Sprintf("tx %d is present after restart but was never sent (%d nodes)", tx, len(nodes[tx])))
		}
	}
	for _, tx := range slices.Sorted(maps.Keys(links)) {
		if l.group(tx) == nil && nodes[tx] == nil {
			problems = append(problems, fmt.Sprintf("tx %d has a CrashLink after restart but was never sent", tx))
		}
	}
	for _, tx := range l.inCycle(cycle) {
		g := l.group(tx)
		ns, ks := nodes[tx], links[tx]
		present := len(ns) > 0 || len(ks) > 0
		problems = append(problems, checkGroup(tx, g, ns, ks)...)
		switch {
		case g.verified && g.present != present:
			was := map[bool]string{true: "present", false: "absent"}
			problems = append(problems, fmt.Sprintf("tx %d of cycle %d was %s after an earlier restart and is %s now (%d of %d parts)",
				tx, g.cycle, was[g.present], was[present], len(ns), crashParts))
		case g.state == crashAcked && !present:
			problems = append(problems, fmt.Sprintf("acknowledged tx %d is missing after restart (0 of %d parts)", tx, crashParts))
		}
		g.verified, g.present = true, present
	}
	return problems
}

// checkGroup checks that a present group is whole: every part once with
// the values sent, and one link from part 0 to the last part.
func checkGroup(tx int64, g *crashGroup, ns []crashNode, ks []crashLink) []string {
	if len(ns) == 0 && len(ks) == 0 {
		return nil
	}
	var problems []string
	seen := make(map[int64]int)
	for _, n := range ns {
		seen[n.part]++
		switch {
		case n.part < 0 || n.part >= crashParts:
			problems = append(problems, fmt.Sprintf("tx %d has a node of part %d", tx, n.part))
		case n.cycle != int64(g.cycle) || n.n != crashParts || n.val != g.vals[n.part] || n.sum != g.sum():
			problems = append(problems, fmt.Sprintf("tx %d part %d reads cycle %d, n %d, val %d, sum %d; sent cycle %d, n %d, val %d, sum %d",
				tx, n.part, n.cycle, n.n, n.val, n.sum, g.cycle, crashParts, g.vals[n.part], g.sum()))
		}
	}
	have := 0 // parts present
	for p := range int64(crashParts) {
		switch k := seen[p]; {
		case k > 1:
			problems = append(problems, fmt.Sprintf("tx %d has part %d %d times", tx, p, k))
			fallthrough
		case k == 1:
			have++
		}
	}
	if have != crashParts {
		kind := "unacknowledged tx %d is present in part after restart (%d of %d parts, %d links)"
		if g.state == crashAcked {
			kind = "acknowledged tx %d is missing after restart (%d of %d parts, %d links)"
		}
		problems = append(problems, fmt.Sprintf(kind, tx, have, crashParts, len(ks)))
	}
	switch {
	case len(ks) == 0:
		problems = append(problems, fmt.Sprintf("tx %d has %d nodes but no CrashLink after restart", tx, len(ns)))
	case len(ks) > 1:
		problems = append(problems, fmt.Sprintf("tx %d has %d CrashLinks after restart", tx, len(ks)))
	case ks[0].fromTx != tx || ks[0].toTx != tx || ks[0].fromPart != 0 || ks[0].toPart != crashParts-1:
		k := ks[0]
		problems = append(problems, fmt.Sprintf("tx %d's CrashLink joins tx %d part %d to tx %d part %d, not part 0 to part %d",
			tx, k.fromTx, k.fromPart, k.toTx, k.toPart, crashParts-1))
	}
	return problems
}

// crashScan reads the named integer columns of a row into dst.
func crashScan(row map[string]any, cols []string, dst ...*int64) bool {
	for i, c := range cols {
		v, ok := crashInt(row[c])
		if !ok {
			return false
		}
		*dst[i] = v
	}
	return true
}

// verifyTotals checks the whole database against the ledger: per-cycle
// and total counts of groups, nodes and links, the accounts and their
// total, the labels, and the store's own invariants.
func verifyTotals(t *testing.T, c *crashClient, l *crashLedger) []string {
	t.Helper()
	var problems []string
	want := l.presentByCycle()
	nodes, txs, links := map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
	for _, row := range c.rows(t, "MATCH (n:Crash) RETURN n.cycle AS cycle, count(n) AS nodes, count(DISTINCT n.tx) AS txs", nil) {
		var cy, n, x int64
		if !crashScan(row, []string{"cycle", "nodes", "txs"}, &cy, &n, &x) {
			problems = append(problems, fmt.Sprintf(":Crash nodes without a cycle: %v", row))
			continue
		}
		nodes[cy], txs[cy] = n, x
	}
	for _, row := range c.rows(t, "MATCH ()-[r:CrashLink]->() RETURN r.cycle AS cycle, count(r) AS links", nil) {
		var cy, n int64
		if !crashScan(row, []string{"cycle", "links"}, &cy, &n) {
			problems = append(problems, fmt.Sprintf(":CrashLinks without a cycle: %v", row))
			continue
		}
		links[cy] = n
	}
	cycles := map[int64]bool{}
	for _, m := range []map[int64]int64{want, nodes, txs, links} {
		for cy := range m {
			cycles[cy] = true
		}
	}
	for _, cy := range slices.Sorted(maps.Keys(cycles)) {
		if txs[cy] != want[cy] || nodes[cy] != crashParts*want[cy] || links[cy] != want[cy] {
			problems = append(problems, fmt.Sprintf("cycle %d holds %d groups, %d :Crash nodes, %d links; its verified groups make %d, %d, %d",
				cy, txs[cy], nodes[cy], links[cy], want[cy], crashParts*want[cy], want[cy]))
		}
	}

	row := c.rows(t, "MATCH (n:Crash) RETURN count(n) AS nodes, count(DISTINCT n.tx) AS txs", nil)[0]
	var n, x int64
	if !crashScan(row, []string{"nodes", "txs"}, &n, &x) || n != crashParts*x {
		problems = append(problems, fmt.Sprintf("count(:Crash) is not %d × the distinct tx ids: %v", crashParts, row))
	}

	row = c.rows(t, "MATCH (a:Acct) RETURN count(a) AS accounts, count(DISTINCT a.id) AS ids, sum(a.bal) AS total", nil)[0]
	var accounts, ids, total int64
	if !crashScan(row, []string{"accounts", "ids", "total"}, &accounts, &ids, &total) ||
		accounts != crashAccounts || ids != crashAccounts || total != crashAccounts*crashInitialBalance {
		problems = append(problems, fmt.Sprintf("the accounts read %v after restart; want %d accounts, %d ids, total %d",
			row, crashAccounts, crashAccounts, crashAccounts*crashInitialBalance))
	}

	var labels []string
	for _, row := range c.rows(t, "CALL db.labels()", nil) {
		if s, ok := row["label"].(string); ok {
			labels = append(labels, s)
		}
	}
	if !slices.Contains(labels, "Acct") || (len(want) > 0 && !slices.Contains(labels, "Crash")) {
		problems = append(problems, fmt.Sprintf("db.labels() lists %q after restart", labels))
	}

	row = c.rows(t, "CALL quiver.storage.integrity() YIELD total_errors RETURN total_errors", nil)[0]
	if e, ok := crashInt(row["total_errors"]); !ok || e != 0 {
		problems = append(problems, fmt.Sprintf("quiver.storage.integrity() after restart: %v errors (the server's log names the first)", row["total_errors"]))
	}
	return problems
}

// reportCrashProblems fails the test with the first problems of each
// list a check made, the seed, and the end of the server's log.
func reportCrashProblems(t *testing.T, srv *crashServer, seed int64, check string, lists ...[]string) {
	t.Helper()
	n := 0
	for _, problems := range lists {
		n += len(problems)
		for i, p := range problems {
			if i == crashShowProblems {
				t.Errorf("… and %d more like these", len(problems)-crashShowProblems)
				break
			}
			t.Error(p)
		}
	}
	if n > 0 {
		t.Fatalf("%s: %d problems (seed %d); the server's log ends:\n%s", check, n, seed, srv.logTail(15))
	}
}
