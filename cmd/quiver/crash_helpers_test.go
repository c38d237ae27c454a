package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestCrashRecovery's machinery: a `quiver serve` child that can be
// SIGKILLed and restarted on the same directory, a client for
// POST /api/v1/query, the ways a writer commits a transaction, and the
// writers with their ledger.

// Bounds for a slow, shared CI machine: none is a pause, each is how long
// something may take before the test gives up on it.
const (
	crashStartTimeout   = 60 * time.Second // the server answers its health endpoint (recovery included)
	crashRequestTimeout = 30 * time.Second // one HTTP request
)

// crashServer is one run of `quiver serve` (internal/serverproc: its own
// process group, stdout and stderr in files of the test's directory).
type crashServer struct {
	t    *testing.T
	proc *serverproc.Proc
	addr string          // its HTTP address
	done <-chan struct{} // closed once it has exited
	// graph is the graph the workload runs on ("": the default).
	graph string
}

// startCrashServer starts `quiver serve` on a free port over dataDir with
// the extra flags, its output in logDir as name-1.stderr and
// name-1.stdout, and waits until it answers. The test's end kills it if
// it still runs.
func startCrashServer(t *testing.T, bin, dataDir, logDir, name string, extra []string) *crashServer {
	t.Helper()
	p := serverproc.Start(t, serverproc.Config{Bin: bin, Args: serverproc.ServeArgs(dataDir, extra...),
		Dir: logDir, Name: name, StartTimeout: crashStartTimeout})
	return &crashServer{t: t, proc: p, addr: p.Addr(), done: p.Done()}
}

// logTail is the last n lines of the server's log.
func (s *crashServer) logTail(n int) string { return s.proc.LogTail(n) }

// kill sends SIGKILL and waits until the process is gone, so that the
// next server can take the data directory. A server that had already
// exited by itself fails the test.
func (s *crashServer) kill() {
	s.t.Helper()
	if err := s.proc.Kill9(); err != nil {
		s.t.Fatal(err)
	}
}

// crashClient posts queries to one server.
type crashClient struct {
	http  *http.Client
	url   string
	graph string // sent with every statement and begin ("": none)
}

// on makes c run its statements on graph.
func (c *crashClient) on(graph string) *crashClient {
	c.graph = graph
	return c
}

func newCrashClient(addr string, conns int) *crashClient {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns}
	return &crashClient{http: &http.Client{Transport: tr, Timeout: crashRequestTimeout}, url: "http://" + addr + "/api/v1/query"}
}

func (c *crashClient) close() { c.http.CloseIdleConnections() }

// crashStmt is one statement of a transaction.
type crashStmt struct {
	query  string
	params map[string]any
}

// crashReply is the server's answer to one statement. err is set when no
// whole answer came (the connection failed or the body was cut): the
// statement may or may not have been committed.
type crashReply struct {
	status   int
	data     []map[string]any
	metadata map[string]any
	code     string // the error's ISO/IEC 39075 code when status is not 200
	message  string
	err      error
	// txID and txStatus are a transaction call's transaction_id and
	// status.
	txID, txStatus string
}

// acked reports whether the server answered success.
func (r crashReply) acked() bool { return r.err == nil && r.status == http.StatusOK }

// answered reports whether the server answered at all.
func (r crashReply) answered() bool { return r.err == nil }

func (r crashReply) String() string {
	switch {
	case r.err != nil:
		return "no answer: " + r.err.Error()
	case r.status == http.StatusOK:
		return "200"
	}
	return fmt.Sprintf("%d %s %s", r.status, r.code, r.message)
}

// post sends one statement to POST /api/v1/query.
func (c *crashClient) post(ctx context.Context, st crashStmt) crashReply {
	body := map[string]any{"query": st.query, "parameters": st.params}
	if c.graph != "" {
		body["graph"] = c.graph
	}
	return c.postTo(ctx, c.url, body)
}

// postTo sends a JSON body (none when body is nil) to url.
func (c *crashClient) postTo(ctx context.Context, url string, body any) crashReply {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			panic("BUG: " + err.Error())
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return crashReply{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return crashReply{err: err}
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	if err != nil {
		return crashReply{err: fmt.Errorf("reading the answer (status %d): %w", resp.StatusCode, err)}
	}
	var out struct {
		TransactionID string           `json:"transaction_id"`
		Status        string           `json:"status"`
		Data          []map[string]any `json:"data"`
		Metadata      map[string]any   `json:"metadata"`
		Error         *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return crashReply{err: fmt.Errorf("decoding the answer (status %d): %w: %.200s", resp.StatusCode, err, raw)}
	}
	r := crashReply{status: resp.StatusCode, data: out.Data, metadata: out.Metadata, txID: out.TransactionID, txStatus: out.Status}
	if out.Error != nil {
		r.code, r.message = out.Error.Code, out.Error.Message
	}
	if r.status == http.StatusOK && out.Error != nil {
		r.err = fmt.Errorf("status 200 with an error: %s %s", r.code, r.message)
	}
	return r
}

// rows runs a read that must succeed and returns its rows.
func (c *crashClient) rows(t *testing.T, query string, params map[string]any) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashRequestTimeout)
	defer cancel()
	r := c.post(ctx, crashStmt{query, params})
	if !r.acked() {
		t.Fatalf("%s: %v", query, r)
	}
	return r.data
}

// crashInt reads an integer a JSON answer holds (decoded with UseNumber);
// ok is false for anything else, null included.
func crashInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// crashCommitter is a way of running one transaction's statements. It
// answers the reply that decides whether the transaction committed: the
// statement's own for auto-commit; an explicit transaction would answer
// its commit's (with the statements' replies in stmts).
type crashCommitter interface {
	name() string
	commit(ctx context.Context, c *crashClient, stmts []crashStmt) (commit crashReply, replies []crashReply)
}

// autoCommit runs a transaction of one statement as POST /api/v1/query:
// the server commits it before answering 200.
type autoCommit struct{}

func (autoCommit) name() string { return "auto-commit" }

func (autoCommit) commit(ctx context.Context, c *crashClient, stmts []crashStmt) (crashReply, []crashReply) {
	if len(stmts) != 1 {
		panic(fmt.Sprintf("BUG: an auto-commit transaction is one statement, not %d", len(stmts)))
	}
	r := c.post(ctx, stmts[0])
	return r, []crashReply{r}
}

// explicitTx runs a transaction's statements in an explicit transaction
// (POST /api/v1/transaction/begin, …/{id}/query, …/{id}/commit): the
// commit's answer decides. A statement that fails rolls it back.
type explicitTx struct{ isolation string }

func (e explicitTx) name() string { return "explicit " + e.isolation }

func (e explicitTx) commit(ctx context.Context, c *crashClient, stmts []crashStmt) (crashReply, []crashReply) {
	base := strings.TrimSuffix(c.url, "/query") + "/transaction/"
	begin := map[string]any{"isolation_level": e.isolation, "timeout": 60000}
	if c.graph != "" {
		begin["graph"] = c.graph
	}
	b := c.postTo(ctx, base+"begin", begin)
	if !b.acked() {
		return b, nil
	}
	if b.txID == "" {
		return crashReply{err: fmt.Errorf("begin answered no transaction_id")}, nil
	}
	var replies []crashReply
	for _, st := range stmts {
		r := c.postTo(ctx, base+b.txID+"/query", map[string]any{"query": st.query, "parameters": st.params})
		replies = append(replies, r)
		if !r.acked() {
			if r.answered() {
				c.postTo(ctx, base+b.txID+"/rollback", nil)
			}
			return r, replies
		}
	}
	r := c.postTo(ctx, base+b.txID+"/commit", nil)
	if r.acked() && r.txStatus != "committed" {
		r.err = fmt.Errorf("commit answered 200 with status %q", r.txStatus)
	}
	return r, replies
}

// The workload: the writers, their transactions, and the ledger of what
// they sent and what the server answered.

// crashGroupQuery creates one group: crashParts nodes and a link, with
// the vals in $v0 … and their sum in $sum.
var crashGroupQuery = func() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	for p := range crashParts {
		fmt.Fprintf(&b, "(p%d:Crash {tx: $tx, cycle: $cycle, part: %d, n: %d, val: $v%d, sum: $sum}), ", p, p, crashParts, p)
	}
	fmt.Fprintf(&b, "(p0)-[:CrashLink {tx: $tx, cycle: $cycle}]->(p%d)", crashParts-1)
	return b.String()
}()

const crashTransferQuery = `MATCH (a:Acct {id: $i}), (b:Acct {id: $j}) SET a.bal = a.bal - $x, b.bal = b.bal + $x`

// crashState is what a writer learnt of a group's commit.
type crashState uint8

const (
	crashUnanswered crashState = iota // sent; no answer came
	crashAcked                        // the server answered success
	crashRefused                      // the server answered an error
)

// crashGroup is one group a writer sent, and what the checks found.
type crashGroup struct {
	cycle int
	vals  [crashParts]int64
	state crashState
	// verified is set by the first check after the group's cycle, which
	// sets present; later checks must find the same.
	verified, present bool
}

func (g *crashGroup) sum() (s int64) {
	for _, v := range g.vals {
		s += v
	}
	return s
}

// crashLedger is every group sent in the test, by tx id.
type crashLedger struct {
	mu struct {
		sync.Mutex // guards groups and problems
		groups     map[int64]*crashGroup
		problems   []string // what writers saw that no server should answer
	}
	transfers atomic.Int64 // acknowledged transfers, all cycles
}

func newCrashLedger() *crashLedger {
	l := &crashLedger{}
	l.mu.groups = make(map[int64]*crashGroup)
	return l
}

func (l *crashLedger) send(tx int64, g *crashGroup) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.groups[tx] = g
}

func (l *crashLedger) settle(tx int64, s crashState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.groups[tx].state = s
}

func (l *crashLedger) problem(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.problems = append(l.mu.problems, fmt.Sprintf(format, args...))
}

func (l *crashLedger) takeProblems() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.mu.problems
	l.mu.problems = nil
	return p
}

// inCycle returns the tx ids of a cycle's groups (all when cycle is
// negative), ascending.
func (l *crashLedger) inCycle(cycle int) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var txs []int64
	for tx, g := range l.mu.groups {
		if cycle < 0 || g.cycle == cycle {
			txs = append(txs, tx)
		}
	}
	slices.Sort(txs)
	return txs
}

func (l *crashLedger) group(tx int64) *crashGroup {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.groups[tx]
}

// presentByCycle counts the verified groups found present, per cycle.
func (l *crashLedger) presentByCycle() map[int64]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[int64]int64)
	for _, g := range l.mu.groups {
		if g.verified && g.present {
			m[int64(g.cycle)]++
		}
	}
	return m
}

func (l *crashLedger) presentTotal() (n int64) {
	for _, c := range l.presentByCycle() {
		n += c
	}
	return n
}

func (l *crashLedger) ackedTotal() (n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range l.mu.groups {
		if g.state == crashAcked {
			n++
		}
	}
	return n
}

// crashCycleReport is what one cycle did, for its log line.
type crashCycleReport struct {
	cycle      int
	flags      []string
	killAfter  time.Duration
	groupsSent int64
	acked      int64
	transfers  int64
	conflicts  int64
}

func (r crashCycleReport) String() string {
	return fmt.Sprintf("cycle %d %v (killed %v after the first acknowledgement; %d groups sent, %d acknowledged)",
		r.cycle, r.flags, r.killAfter.Round(time.Millisecond), r.groupsSent, r.acked)
}

// logVerified logs the cycle once the restart after it has been checked.
func (r crashCycleReport) logVerified(t *testing.T, l *crashLedger) {
	t.Helper()
	unanswered, kept := 0, 0
	for _, tx := range l.inCycle(r.cycle) {
		if g := l.group(tx); g.state == crashUnanswered {
			unanswered++
			if g.present {
				kept++
			}
		}
	}
	t.Logf("cycle %d %v: killed %v after the first acknowledgement; %d groups sent, %d acknowledged, %d unanswered (%d of them present after the restart); %d transfers acknowledged, %d serialization conflicts",
		r.cycle, r.flags, r.killAfter.Round(time.Millisecond), r.groupsSent, r.acked, unanswered, kept, r.transfers, r.conflicts)
}

// crashWriter issues transactions until the server stops answering.
type crashWriter struct {
	id        int
	cycle     int
	rng       *rand.Rand
	client    *crashClient
	committer crashCommitter
	ledger    *crashLedger
	nextTx    *atomic.Int64
	killed    *atomic.Bool // set just before the SIGKILL
	acked     func()       // called on every acknowledgement
	stats     *crashCycleStats
}

type crashCycleStats struct {
	groupsSent, groupsAcked, transfers, conflicts atomic.Int64
}

// crashWorks are the kinds of transaction a writer issues, with their
// weights. Each returns whether the server answered.
var crashWorks = []struct {
	weight int
	run    func(w *crashWriter, ctx context.Context) bool
}{
	{3, (*crashWriter).group},
	{1, (*crashWriter).transfer},
}

// crashCommitters are the ways a writer runs a transaction: auto-commit,
// and explicit transactions at each isolation level.
var crashCommitters = []crashCommitter{autoCommit{}, explicitTx{"READ_COMMITTED"}, explicitTx{"REPEATABLE_READ"}, explicitTx{"SERIALIZABLE"}}

func (w *crashWriter) run(ctx context.Context) {
	total := 0
	for _, k := range crashWorks {
		total += k.weight
	}
	for ctx.Err() == nil {
		pick := w.rng.IntN(total)
		for _, k := range crashWorks {
			if pick -= k.weight; pick < 0 {
				if !k.run(w, ctx) {
					return // the server is gone: nothing sent now would reach it
				}
				break
			}
		}
	}
}

// unanswered records a request that got no answer, which only the kill
// may cause.
func (w *crashWriter) unanswered(what string, r crashReply) {
	if !w.killed.Load() {
		w.ledger.problem("cycle %d, writer %d (%s), %s, before the kill: %v", w.cycle, w.id, w.committer.name(), what, r)
	}
}

// group creates one group in one transaction.
func (w *crashWriter) group(ctx context.Context) bool {
	tx := w.nextTx.Add(1)
	g := &crashGroup{cycle: w.cycle}
	params := map[string]any{"tx": tx, "cycle": w.cycle}
	for p := range crashParts {
		g.vals[p] = w.rng.Int64N(1_000_000)
		params["v"+strconv.Itoa(p)] = g.vals[p]
	}
	params["sum"] = g.sum()
	w.ledger.send(tx, g)
	w.stats.groupsSent.Add(1)
	r, replies := w.committer.commit(ctx, w.client, []crashStmt{{crashGroupQuery, params}})
	switch {
	case r.acked():
		w.ledger.settle(tx, crashAcked)
		w.stats.groupsAcked.Add(1)
		w.acked()
		nodes, _ := crashInt(replies[0].metadata["nodes_created"])
		rels, _ := crashInt(replies[0].metadata["relationships_created"])
		if nodes != crashParts || rels != 1 {
			w.ledger.problem("tx %d: acknowledged with %d nodes and %d relationships created, not %d and 1", tx, nodes, rels, crashParts)
		}
	case r.answered():
		// Creating new nodes conflicts with nothing.
		w.ledger.settle(tx, crashRefused)
		w.ledger.problem("tx %d: refused: %v", tx, r)
	default:
		w.unanswered(fmt.Sprintf("tx %d", tx), r)
	}
	return r.answered()
}

// transfer moves a random amount between two accounts in one
// transaction; concurrent transfers over the same account may fail with
// a serialization conflict (40001).
func (w *crashWriter) transfer(ctx context.Context) bool {
	i := w.rng.IntN(crashAccounts)
	j := (i + 1 + w.rng.IntN(crashAccounts-1)) % crashAccounts
	x := 1 + w.rng.IntN(100)
	r, replies := w.committer.commit(ctx, w.client, []crashStmt{{crashTransferQuery, map[string]any{"i": i, "j": j, "x": x}}})
	switch {
	case r.acked():
		w.stats.transfers.Add(1)
		w.ledger.transfers.Add(1)
		w.acked()
		if set, _ := crashInt(replies[0].metadata["properties_set"]); set != 2 {
			w.ledger.problem("transfer %d→%d of %d: acknowledged with %d properties set, not 2", i, j, x, set)
		}
	case r.answered() && r.code == "40001":
		w.stats.conflicts.Add(1)
	case r.answered():
		w.ledger.problem("transfer %d→%d of %d: refused: %v", i, j, x, r)
	default:
		w.unanswered(fmt.Sprintf("transfer %d→%d of %d", i, j, x), r)
	}
	return r.answered()
}

// runCrashCycle runs the writers against srv and kills it at a random
// moment after the first acknowledgement.
func runCrashCycle(t *testing.T, srv *crashServer, cycle int, flags []string, rng *rand.Rand, ledger *crashLedger, nextTx *atomic.Int64) crashCycleReport {
	t.Helper()
	client := newCrashClient(srv.addr, crashWriters).on(srv.graph)
	defer client.close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		// On a failure too: no writer outlives its cycle.
		cancel()
		wg.Wait()
	}()
	var killed atomic.Bool
	var stats crashCycleStats
	first := make(chan struct{})
	var once sync.Once
	for id := range crashWriters {
		w := &crashWriter{
			id: id, cycle: cycle,
			rng:    rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())),
			client: client, committer: crashCommitters[rng.IntN(len(crashCommitters))],
			ledger: ledger, nextTx: nextTx, killed: &killed, stats: &stats,
			acked: func() { once.Do(func() { close(first) }) },
		}
		wg.Go(func() { w.run(ctx) })
	}
	delay := time.Duration(rng.Int64N(int64(crashMaxKillDelay)))
	select {
	case <-first:
	case <-srv.done:
		srv.kill() // fails, with the log
	case <-time.After(crashStartTimeout):
		t.Fatalf("cycle %d: no write acknowledged within %v; problems: %q", cycle, crashStartTimeout, ledger.takeProblems())
	}
	// The random moment of the crash; the server dying first fails in kill.
	select {
	case <-time.After(delay):
	case <-srv.done:
	}
	killed.Store(true)
	srv.kill()
	cancel()
	wg.Wait()
	return crashCycleReport{cycle: cycle, flags: flags, killAfter: delay,
		groupsSent: stats.groupsSent.Load(), acked: stats.groupsAcked.Load(),
		transfers: stats.transfers.Load(), conflicts: stats.conflicts.Load()}
}
