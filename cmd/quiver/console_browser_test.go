package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/metrics"
)

// The web console in a real browser: Debian's chromium, headless, driven
// through chromedp (make chromium installs it). One browser serves every
// scenario, each in a tab of its own; a page that reports a JavaScript
// error or a Content-Security-Policy violation fails its scenario.
// Screenshots go to each scenario's artifact folder (go test -artifacts).
func TestConsoleInBrowser(t *testing.T) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH (make chromium installs it): the console's browser tests did not run")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("cannot start chromium: %v", err)
	}
	srv := startConsoleServer(t, nil)
	t.Run("QueriesTableGraphExpand", func(t *testing.T) { consoleQueries(t, browser, srv) })
	t.Run("ProfilePlanTree", func(t *testing.T) { consoleProfile(t, browser, srv) })
	t.Run("SyntaxErrorPosition", func(t *testing.T) { consoleSyntaxError(t, browser, srv) })
	t.Run("LargeGraph", func(t *testing.T) { consoleLargeGraph(t, browser, srv) })
	t.Run("Transaction", func(t *testing.T) { consoleTransaction(t, browser, srv) })
	t.Run("LargeResult", func(t *testing.T) { consoleLargeResult(t, browser, srv) })
	t.Run("CancelLongQuery", func(t *testing.T) { consoleCancel(t, browser, srv) })
	t.Run("Login403Logout", func(t *testing.T) { consoleAuth(t, browser) })
}

// consoleServer is `quiver serve`'s frontends over a fresh database, in
// this process (so the test can see the queries running).
type consoleServer struct {
	fe  *frontends
	url string
}

func startConsoleServer(t *testing.T, extra []string, authCfg ...func(*auth.Config)) *consoleServer {
	t.Helper()
	dir := t.TempDir()
	o, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--data-dir", dir, "--rate-limit", "0"}, extra...))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := engine.Open(dir, engine.Options{Logger: quiet, QueryTimeout: o.queryTimeout})
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	cfg := auth.Config{DB: db, Logger: quiet, Enabled: o.authEnabled, BootstrapOut: io.Discard}
	for _, f := range authCfg {
		f(&cfg)
	}
	authSvc, err := auth.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fe, err := startFrontends(o, db, nil, reg, nil, authSvc, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := fe.shutdown(ctx); err != nil {
			t.Error(err)
		}
		authSvc.Close()
		reg.Close()
		db.Close()
	})
	return &consoleServer{fe: fe, url: "http://" + fe.addr + "/"}
}

// tab opens the console in a new tab; the scenario fails on any error the
// page reports (an exception, console.error, a CSP violation, a failed
// load), checked when it ends.
func tab(t *testing.T, browser context.Context, url string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatal(err)
	}
	var mu sync.Mutex
	var problems []string
	listening, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	messages := chromedp.Console(listening)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				if m.Source == "network" && expectedFailure(m.Text) {
					continue
				}
				mu.Lock()
				problems = append(problems, m.String()+" "+m.URL)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.problems || "0"`))
		stop()
		<-done
		cancel()
		mu.Lock()
		defer mu.Unlock()
		if len(problems) > 0 || (n != "0" && n != "") {
			t.Errorf("the page reported %s problem(s): %s", n, strings.Join(problems, "; "))
		}
	})
	do(t, ctx, 30*time.Second, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
	return ctx
}

// expectedFailure names the log lines of answers a scenario provokes on
// purpose: the browser logs every 4xx of a fetch.
func expectedFailure(text string) bool {
	return strings.Contains(text, "status of 400") || strings.Contains(text, "status of 401") || strings.Contains(text, "status of 403")
}

// do runs steps in the tab, each call within d.
func do(t *testing.T, ctx context.Context, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("in the browser: %v", err)
	}
}

// click clicks the first element sel finds, as chromedp.Click does, and
// looks again when the page replaced that element between the query and
// the click: the click had not been sent then.
func click[S chromedp.Selectable](sel S) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			_, err := chromedp.Click(sel)(ctx, t)
			if err != nil && isStaleNode(err) && ctx.Err() == nil {
				continue
			}
			return err
		}
	})
}

// isStaleNode reports the browser's answer for a node the page removed.
func isStaleNode(err error) bool { return strings.Contains(err.Error(), "No node with given id found") }

// inTab runs one action that reads a value. A read that found its node
// replaced by the page between the query and the read (the table
// re-renders, CI saw "No node with given id found") reads again: it
// changed nothing.
func inTab[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		v, err := chromedp.Run(c, a)
		if err != nil && isStaleNode(err) && c.Err() == nil {
			continue
		}
		if err != nil {
			t.Fatalf("in the browser: %v", err)
		}
		return v
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	return inTab(t, ctx, chromedp.Evaluate[T](js))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return inTab(t, ctx, chromedp.Text(chromedp.CSS(sel)))
}

func attr(t *testing.T, ctx context.Context, sel, name string) string {
	t.Helper()
	return inTab(t, ctx, chromedp.AttributeValue(chromedp.CSS(sel), name)).Value
}

// typeQuery replaces the editor's text as a person would: select all,
// then type (inserted whole, so completion does not interfere).
func typeQuery(q string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		click(chromedp.CSS(`#editor .cm-content`)),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.KeyEvent("\b"),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: q})
			return err
		}),
	)
}

// runQuery types q and runs it with Ctrl-Enter, waiting for its end.
func runQuery(q string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		typeQuery(q),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="idle"] #summary:not([data-state="running"])`)),
	)
}

// waitAttr waits until sel's attribute name reads want.
func waitAttr(sel, name, want string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`%s[%s="%s"]`, sel, name, want)))
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := inTab(t, ctx, chromedp.FullScreenshot(100))
	file := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}

func consoleQueries(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	// The README's first query, its parameter in the parameters pane.
	do(t, ctx, 30*time.Second,
		chromedp.SetValue(chromedp.ID("params"), `{"n": "Al"}`),
		runQuery(`CREATE (a:Person {name:$n, age:41})-[:KNOWS {since:2015}]->(b:Person {name:"Bo", age:29})`),
	)
	if summary := text(t, ctx, "#summary"); !strings.Contains(summary, "nodes created 2") {
		t.Fatalf("the CREATE's summary: %q", summary)
	}
	// The header links the API's OpenAPI document, which the page can read.
	if v := inTab(t, ctx, chromedp.Evaluate[string](`fetch(document.querySelector("#api-doc").href).then(r => r.json()).then(d => d.openapi + " " + Object.keys(d.paths).length)`, chromedp.EvalAwaitPromise)); !strings.HasPrefix(v, "3.1.0 ") {
		t.Fatalf("the API link's document: %q, want OpenAPI 3.1.0", v)
	}
	do(t, ctx, 30*time.Second,
		chromedp.SetValue(chromedp.ID("params"), `{}`),
		runQuery(`MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > 30 RETURN a.name AS who, b.name, k.since, count(*) AS c`),
		waitAttr(`#summary`, "data-rows", "1"),
	)
	cells := eval[[]string](t, ctx, `[...document.querySelectorAll("#table .t-row .t-cell")].map(c => c.textContent)`)
	if strings.Join(cells, ",") != "Al,Bo,2015,1" {
		t.Fatalf("the table shows %q, want Al, Bo, 2015, 1", cells)
	}
	// The schema sidebar has caught up with the write.
	do(t, ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#schema button[data-sample^="MATCH (n:Person)"]`)))
	screenshot(t, ctx, "console-table.png")

	// Completion offers the graph's labels, keys and functions.
	do(t, ctx, 20*time.Second,
		typeQuery(`MATCH (p:Pe`),
		chromedp.KeyEvent(" ", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-tooltip-autocomplete li`)),
	)
	if options := text(t, ctx, ".cm-tooltip-autocomplete"); !strings.Contains(options, ":Person") {
		t.Fatalf("completion after :Pe offers %q, not :Person", options)
	}
	do(t, ctx, 20*time.Second,
		chromedp.KeyEvent("\x1b"),
		typeQuery(`RETURN toUpp`),
		chromedp.KeyEvent(" ", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-tooltip-autocomplete li`)),
	)
	if options := text(t, ctx, ".cm-tooltip-autocomplete"); !strings.Contains(options, "toUpper") {
		t.Fatalf("completion after toUpp offers %q, not toUpper (SHOW FUNCTIONS)", options)
	}
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("\x1b"))

	// Paths in the rows: the graph view, with cytoscape's own counts.
	do(t, ctx, 30*time.Second,
		runQuery(`MATCH p = (:Person)-[:KNOWS]->(:Person) RETURN p`),
		click(chromedp.CSS(`button[data-tab="graph"]`)),
		waitAttr(`#graph-status`, "data-nodes", "2"),
	)
	if e := attr(t, ctx, `#graph-status`, "data-edges"); e != "1" {
		t.Fatalf("the graph draws %s relationships, want 1", e)
	}
	screenshot(t, ctx, "console-graph.png")

	// One node; a click shows it, a double-click expands its neighbours.
	do(t, ctx, 30*time.Second,
		runQuery(`MATCH (a:Person {name: "Al"}) RETURN a`),
		click(chromedp.CSS(`button[data-tab="graph"]`)),
		waitAttr(`#graph-status`, "data-nodes", "1"),
	)
	at := eval[[]float64](t, ctx, `(() => { const r = document.getElementById("graph").getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	do(t, ctx, 30*time.Second,
		chromedp.MouseClickXY(at[0], at[1]),
		chromedp.WaitVisible(chromedp.ID("details")),
		chromedp.MouseClickXY(at[0], at[1], chromedp.ClickCount(2)),
		waitAttr(`#graph-status`, "data-nodes", "2"),
		waitAttr(`#graph-status`, "data-edges", "1"),
	)
	if details := text(t, ctx, "#details"); !strings.Contains(details, "Person") || !strings.Contains(details, "Al") {
		t.Fatalf("a click on the node shows %q, not its labels and properties", details)
	}

	// The history outlives a reload: the editor opens with the last
	// statement, and the list holds the earlier ones.
	do(t, ctx, 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
	if got := text(t, ctx, "#editor .cm-content"); got != `MATCH (a:Person {name: "Al"}) RETURN a` {
		t.Fatalf("after a reload the editor holds %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#history option").length`); n < 5 {
		t.Fatalf("after a reload the history lists %d entries", n-1)
	}
}

func consoleProfile(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	do(t, ctx, 30*time.Second,
		runQuery(`PROFILE MATCH (a:Person)-[:KNOWS]->(b) RETURN b.name AS name`),
		chromedp.WaitVisible(chromedp.CSS(`#plan .plan-tree .op`)),
	)
	ops := eval[[]string](t, ctx, `[...document.querySelectorAll("#plan .op")].map(o => o.dataset.operator + ": " + o.querySelector(".op-facts").textContent)`)
	joined := strings.Join(ops, "\n")
	for _, want := range []string{"NodeScan", "Expand", "Project", "db hits", "time", "est. rows"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("the plan tree lacks %q:\n%s", want, joined)
		}
	}
	// The tree nests: the scan is drawn as the expansion's input.
	if !eval[bool](t, ctx, `!!document.querySelector('#plan .op[data-operator="Expand"] + ul .op[data-operator="NodeScan"]')`) {
		t.Fatalf("NodeScan is not drawn as Expand's input:\n%s", joined)
	}
	screenshot(t, ctx, "console-plan.png")
	// A strategy turned down as the statement ran is said under its
	// operator: two people are too few for the range filter's view.
	do(t, ctx, 30*time.Second,
		runQuery(`PROFILE MATCH (a:Person) WHERE a.age > 0 RETURN a.name AS name`),
		chromedp.WaitVisible(chromedp.CSS(`#plan .op[data-operator="Filter"] .op-fallback`)),
	)
	if fb := text(t, ctx, `#plan .op[data-operator="Filter"] .op-fallback`); !strings.HasPrefix(fb, "fell back: range-filter: ") {
		t.Fatalf("the Filter's fallback reads %q", fb)
	}
}

func consoleSyntaxError(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	do(t, ctx, 30*time.Second,
		runQuery("MATCH (n)\nRETRUN n"),
		waitAttr(`#error`, "data-code", "42000"),
		chromedp.WaitVisible(chromedp.CSS(`#editor .cm-lintRange-error`)),
	)
	if marked := text(t, ctx, `#editor .cm-lintRange-error`); marked != "RETRUN" {
		t.Fatalf("the editor marks %q, want RETRUN", marked)
	}
	if l, c := attr(t, ctx, `#editor .cm-editor`, "data-error-line"), attr(t, ctx, `#editor .cm-editor`, "data-error-column"); l != "2" || c != "1" {
		t.Fatalf("the error is placed at line %s column %s, want 2:1", l, c)
	}
	if message := text(t, ctx, "#error"); !strings.Contains(message, "line 2, column 1") {
		t.Fatalf("the message %q does not give the position", message)
	}
}

func consoleLargeResult(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	const n = 50000
	do(t, ctx, 30*time.Second, typeQuery(fmt.Sprintf(`UNWIND range(1, %d) AS i RETURN i, 'row ' + toString(i) AS s, i * 2 AS twice`, n)))
	start := time.Now()
	do(t, ctx, 60*time.Second,
		click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.CSS(`#table[data-rows]:not([data-rows="0"])`)),
	)
	firstSeen := time.Since(start)
	do(t, ctx, 60*time.Second, waitAttr(`#summary`, "data-rows", strconv.Itoa(n)))
	all := time.Since(start)
	firstMs := attr(t, ctx, `body`, "data-first-rows-ms")
	// Scrolling to the end draws the last rows, and only about a
	// screenful of rows is ever in the DOM.
	scrollStart := time.Now()
	do(t, ctx, 20*time.Second,
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("#table .t-scroll"); s.scrollTop = s.scrollHeight; })()`),
		chromedp.WaitVisible(chromedp.CSS(`#table .t-row:last-child .t-cell:first-child`)),
	)
	last := inTab(t, ctx, chromedp.Poll[string](`(() => { const r = document.querySelector("#table .t-row:last-child"); return r && r.firstChild.textContent === "50000" ? r.textContent : false; })()`))
	scroll := time.Since(scrollStart)
	inDOM := eval[int](t, ctx, `document.querySelectorAll("#table .t-row").length`)
	if inDOM > 200 {
		t.Fatalf("%d rows are in the DOM for a screenful: the table is not virtualised", inDOM)
	}
	if last != "50000row 50000100000" {
		t.Fatalf("the last row reads %q", last)
	}
	// The page answers while it holds the rows: a script turn is quick.
	turn := inTab(t, ctx, chromedp.Evaluate[float64](`(async () => { const t0 = performance.now(); await new Promise(r => setTimeout(r, 0)); return performance.now() - t0; })()`, chromedp.EvalAwaitPromise))
	t.Logf("%d rows: first rows drawn %s ms after the request in the page (%s as the test saw it), all %s; scrolled to the end in %s with %d rows in the DOM; an idle turn takes %.1f ms",
		n, firstMs, firstSeen.Round(time.Millisecond), all.Round(time.Millisecond), scroll.Round(time.Millisecond), inDOM, turn)
	if turn > 500 {
		t.Fatalf("the page is busy for %.0f ms holding %d rows", turn, n)
	}
}

// A graph of 3,000 elements is drawn and laid out automatically.
func consoleLargeGraph(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	do(t, ctx, 30*time.Second, runQuery(`UNWIND range(0, 999) AS i CREATE (:Chain {i: i})-[:NEXT]->(:Chain {i: i + 1000})`))
	start := time.Now()
	do(t, ctx, 120*time.Second,
		runQuery(`MATCH p = (:Chain)-[:NEXT]->(:Chain) RETURN p`),
		click(chromedp.CSS(`button[data-tab="graph"]`)),
		waitAttr(`#graph-status`, "data-layout", "done"),
	)
	took := time.Since(start)
	if n, e := attr(t, ctx, `#graph-status`, "data-nodes"), attr(t, ctx, `#graph-status`, "data-edges"); n != "2000" || e != "1000" {
		t.Fatalf("the graph draws %s nodes and %s relationships, want 2000 and 1000", n, e)
	}
	t.Logf("2,000 nodes and 1,000 relationships queried, drawn and laid out in %s (the layout %s ms)", took.Round(time.Millisecond), attr(t, ctx, `#graph-status`, "data-layout-ms"))
	screenshot(t, ctx, "console-large-graph.png")
}

// The transaction toggle: statements run in one transaction until
// Rollback (nothing stays) or Commit (everything does).
func consoleTransaction(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	// The count's cell as the page shows it, once the page shows one (CI
	// once read an empty cell right after the summary said 1 row).
	count := func() string {
		t.Helper()
		do(t, ctx, 30*time.Second, runQuery(`MATCH (n:Draft) RETURN count(n) AS n`), waitAttr(`#summary`, "data-rows", "1"))
		return inTab(t, ctx, chromedp.Poll[string](`(document.querySelector("#table .t-row .t-cell") || {}).textContent`))
	}
	do(t, ctx, 30*time.Second,
		click(chromedp.ID("tx-toggle")),
		runQuery(`CREATE (:Draft {v: 1})`),
		chromedp.WaitVisible(chromedp.ID("rollback")),
	)
	if id := attr(t, ctx, "body", "data-transaction"); id == "" {
		t.Fatal("no transaction is shown after a statement with the toggle on")
	}
	if n := count(); n != "1" {
		t.Fatalf("inside the transaction the count is %s, want 1", n)
	}
	do(t, ctx, 30*time.Second, click(chromedp.ID("rollback")), chromedp.WaitNotVisible(chromedp.ID("rollback")))
	do(t, ctx, 30*time.Second, click(chromedp.ID("tx-toggle")))
	if n := count(); n != "0" {
		t.Fatalf("after the rollback the count is %s, want 0", n)
	}
	do(t, ctx, 30*time.Second,
		click(chromedp.ID("tx-toggle")),
		runQuery(`CREATE (:Draft {v: 2})`),
		click(chromedp.ID("commit")),
		chromedp.WaitNotVisible(chromedp.ID("commit")),
		click(chromedp.ID("tx-toggle")),
	)
	if n := count(); n != "1" {
		t.Fatalf("after the commit the count is %s, want 1", n)
	}
}

func consoleCancel(t *testing.T, browser context.Context, srv *consoleServer) {
	ctx := tab(t, browser, srv.url)
	// A count over 10^10 rows: far longer than the test. The schema's
	// queries have ended first, so that the server runs this one alone.
	do(t, ctx, 30*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#schema[data-loaded="true"]`)),
		typeQuery(`UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n`),
		click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("running")),
	)
	if elapsed := text(t, ctx, "#elapsed"); !strings.HasPrefix(elapsed, "running for ") {
		t.Fatalf("the running bar reads %q", elapsed)
	}
	if r := srv.fe.http.Running(); r != 1 {
		t.Fatalf("%d queries run on the server before the cancel, want 1", r)
	}
	do(t, ctx, 30*time.Second,
		click(chromedp.ID("cancel")),
		waitAttr(`#summary`, "data-state", "cancelled"),
	)
	deadline := time.Now().Add(30 * time.Second)
	for srv.fe.http.Running() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the query still runs on the server 30 s after the cancel")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func consoleAuth(t *testing.T, browser context.Context) {
	const adminPassword = "console test admin password"
	srv := startConsoleServer(t, []string{"--auth-enabled"}, func(c *auth.Config) { c.AdminPassword = adminPassword })
	// The admin makes a reader, over the API.
	code, body := postBasic(t, srv.url+"api/v1/query", "admin", adminPassword,
		`{"query":"CALL dbms.security.createUser($u, $p, ['reader'])","parameters":{"u":"rita","p":"reader password 1"}}`)
	if code != 200 {
		t.Fatalf("createUser: %d %s", code, body)
	}
	ctx := tab(t, browser, srv.url)
	do(t, ctx, 30*time.Second,
		chromedp.WaitVisible(chromedp.ID("login-form")),
		chromedp.SendKeys(chromedp.ID("login-user"), "rita"),
		chromedp.SendKeys(chromedp.ID("login-password"), "reader password 1"),
		click(chromedp.CSS(`#login-form button[type="submit"]`)),
		waitAttr(`#user`, "data-user", "rita"),
		chromedp.WaitNotVisible(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.CSS(`#status dd[data-field="version"]`)),
	)
	if stored := eval[string](t, ctx, `document.cookie + "|" + (sessionStorage.getItem("quiver.console.session") ? "session" : "")`); stored != "|session" {
		t.Fatalf("the token is kept as %q: not in sessionStorage only", stored)
	}
	do(t, ctx, 30*time.Second,
		runQuery(`RETURN 1 AS one`),
		waitAttr(`#summary`, "data-rows", "1"),
		runQuery(`CREATE (:Intruder)`),
		waitAttr(`#error`, "data-status", "403"),
	)
	if msg := text(t, ctx, "#error"); !strings.Contains(msg, "PERMISSION_DENIED") {
		t.Fatalf("the reader's write shows %q", msg)
	}
	do(t, ctx, 30*time.Second,
		click(chromedp.ID("logout")),
		chromedp.WaitVisible(chromedp.ID("login-form")),
	)
	if stored := eval[string](t, ctx, `sessionStorage.getItem("quiver.console.session") || ""`); stored != "" {
		t.Fatal("the token outlived the logout in sessionStorage")
	}
}

// postBasic posts a JSON body with Basic credentials; answers the status
// and the body.
func postBasic(t *testing.T, url, user, password, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
