package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/internal/serverproc"
)

// servedProtocols is a real `quiver serve` with the metrics listener on:
// the addresses and the certificate fingerprint its log gave.
type servedProtocols struct {
	cmd                   *exec.Cmd
	addr, metrics, quicFP string
}

// startServeProtocols starts the binary with QUIVER_METRICS_PORT=0 and
// reads its three addresses from the log.
func startServeProtocols(t *testing.T, bin, dataDir string, extra ...string) *servedProtocols {
	t.Helper()
	args := append([]string{"--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0"}, extra...)
	s := startServeWith(t, bin, []string{"QUIVER_METRICS_PORT=0"}, args...)
	if s.metrics == "" {
		t.Fatal("no metrics listener address in the log")
	}
	if s.quicFP == "" {
		t.Fatal("no QUIC fingerprint in the listening line")
	}
	return &servedProtocols{cmd: s.cmd, addr: s.addr, metrics: s.metrics, quicFP: s.quicFP}
}

// TestServeProtocols drives every way into a real server: the HTTP API,
// the wire protocol over TCP on the same port and over QUIC at the same
// UDP port (pinned to the fingerprint the log gave), the change stream,
// and the metrics listener, whose counters must reflect it all.
func TestServeProtocols(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	srv := startServeProtocols(t, bin, filepath.Join(dir, "data"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if got := getJSON(t, "http://"+srv.metrics+"/ready"); got["ready"] != true {
		t.Fatalf("/ready = %v once listening", got)
	}
	before := scrape(t, "http://"+srv.metrics+"/metrics")

	// A change stream subscriber first: it must see the writes below.
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, "ws://"+srv.addr+"/api/v1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	wsSend(t, ws, `{"type":"AUTH","token":"Bearer x"}`, "AUTH_OK")
	wsSend(t, ws, `{"type":"SUBSCRIBE","id":"p","patterns":["(:P)"]}`, "SUBSCRIBED")

	hc := client.NewHTTP("http://" + srv.addr)
	if _, err := hc.Query(ctx, "CREATE (:P {n: 1})", nil); err != nil {
		t.Fatal(err)
	}
	tcp, err := client.DialTCP(ctx, srv.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	tx, err := tcp.Begin(ctx, "SERIALIZABLE")
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, ctx, func() (*client.WireRows, error) { return tx.Run(ctx, "CREATE (:P {n: 2})", nil) })
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	quic, err := client.DialQUIC(ctx, srv.addr, client.PinnedTLSConfig(srv.quicFP), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer quic.Close()
	mustRun(t, ctx, func() (*client.WireRows, error) { return quic.Run(ctx, "CREATE (:P {n: 3})", nil) })

	// Each protocol reads what the others wrote.
	for name, run := range map[string]func() (*client.WireRows, error){
		"tcp":  func() (*client.WireRows, error) { return tcp.Run(ctx, "MATCH (p:P) RETURN sum(p.n) AS s", nil) },
		"quic": func() (*client.WireRows, error) { return quic.Run(ctx, "MATCH (p:P) RETURN sum(p.n) AS s", nil) },
	} {
		rows := mustRun(t, ctx, run)
		if len(rows) != 1 || rows[0]["s"] != int64(6) {
			t.Errorf("%s: sum over the three writes = %v, want 6", name, rows)
		}
	}
	res, err := hc.Query(ctx, "MATCH (p:P) RETURN count(*) AS c", nil)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(3) {
		t.Fatalf("HTTP count: %v %v", res, err)
	}
	// Values of every JSON shape, and an integer beyond 2^53, read the
	// same over the wire on both transports; the escaped control
	// character and U+2028 take the client's standard decoding path.
	for _, sess := range []*client.WireSession{tcp, quic} {
		rows := mustRun(t, ctx, func() (*client.WireRows, error) {
			return sess.Run(ctx, "RETURN [1, 2.5, 'x', null, {a: true}] AS l, {k: [1]} AS m, 9007199254740993 AS big, $p AS p", map[string]any{"p": "é\n\x01\u2028"})
		})
		want := map[string]any{"l": []any{int64(1), 2.5, "x", nil, map[string]any{"a": true}}, "m": map[string]any{"k": []any{int64(1)}},
			"big": int64(9007199254740993), "p": "é\n\x01\u2028"}
		if len(rows) != 1 || !reflect.DeepEqual(rows[0], want) {
			t.Errorf("values over the wire: %#v, want %#v", rows, want)
		}
	}
	if _, err := tcp.Run(ctx, "RETURN 1 +", nil); err == nil {
		t.Fatal("a syntax error over TCP must fail")
	} else if e := new(client.Error); !errors.As(err, &e) || e.Code != "42000" {
		t.Fatalf("syntax error over TCP: %v", err)
	}

	// The stream saw the three commits, in commit order.
	for want := 1; want <= 3; want++ {
		m := wsRead(t, ws)
		data, _ := m["data"].(map[string]any)
		after, _ := data["after"].(map[string]any)
		if m["type"] != "CHANGE" || data["operation"] != "created" || after["n"] != float64(want) {
			t.Fatalf("change %d: %v", want, m)
		}
	}

	after := scrape(t, "http://"+srv.metrics+"/metrics")
	// Statements: the HTTP CREATE and count, the TCP BEGIN-less CREATE,
	// sum and failed syntax error, QUIC's CREATE and sum = 7, one failed.
	if d := after["quiver_queries_total"] - before["quiver_queries_total"]; d < 7 {
		t.Errorf("quiver_queries_total rose by %v, want at least 7", d)
	}
	if d := after["quiver_queries_failed_total"] - before["quiver_queries_failed_total"]; d != 1 {
		t.Errorf("quiver_queries_failed_total rose by %v, want 1", d)
	}
	if after["quiver_nodes_total"] != 3 {
		t.Errorf("quiver_nodes_total = %v, want 3", after["quiver_nodes_total"])
	}
	if after["quiver_connections_active"] < 3 {
		t.Errorf("quiver_connections_active = %v with an HTTP, a TCP wire and a QUIC connection open", after["quiver_connections_active"])
	}
	status := getJSON(t, "http://"+srv.addr+"/api/v1/status")
	if st, _ := status["statistics"].(map[string]any); st["total_nodes"] != float64(3) || status["role"] != "primary" {
		t.Errorf("status %v", status)
	}

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM with wire and stream clients connected: %v", err)
	}

	// A second server on another directory, given the first one's
	// generated pair as --tls-cert and --tls-key, serves QUIC with it.
	tlsDir := filepath.Join(dir, "data", "tls")
	again := startServeProtocols(t, bin, filepath.Join(dir, "data2"),
		"--tls-cert", filepath.Join(tlsDir, "wire-cert.pem"), "--tls-key", filepath.Join(tlsDir, "wire-key.pem"))
	if again.quicFP != srv.quicFP {
		t.Fatalf("fingerprint %s with the first server's certificate, want %s", again.quicFP, srv.quicFP)
	}
	quic2, err := client.DialQUIC(ctx, again.addr, client.PinnedTLSConfig(srv.quicFP), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer quic2.Close()
	if err := quic2.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func mustRun(t *testing.T, ctx context.Context, run func() (*client.WireRows, error)) []map[string]any {
	t.Helper()
	rows, err := run()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		out = append(out, rows.Row())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wsSend(t *testing.T, ws *websocket.Conn, msg, reply string) {
	t.Helper()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if m := wsRead(t, ws); m["type"] != reply {
		t.Fatalf("%s answered %v, want %s", msg, m, reply)
	}
}

func wsRead(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, b, err := ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return m
}

// scrape reads an exposition's unlabelled samples.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || strings.HasPrefix(f[0], "#") || strings.Contains(f[0], "{") {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("%s: %q", url, sc.Text())
		}
		out[f[0]] = v
	}
	return out
}
