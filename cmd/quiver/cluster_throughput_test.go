package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestClusterThroughput measures (it asserts only that the work was
// done): commit throughput of 32 HTTP clients against a single server
// and against the leader of three members on loopback, and read
// throughput served by the followers against a single server's. It runs
// only with QUIVER_CLUSTER_BENCH=1 (bench/RESULTS-cluster.md):
//
//	QUIVER_CLUSTER_BENCH=1 go test ./cmd/quiver -run '^TestClusterThroughput$' -v
func TestClusterThroughput(t *testing.T) {
	if os.Getenv("QUIVER_CLUSTER_BENCH") == "" {
		t.Skip("a measurement: QUIVER_CLUSTER_BENCH=1 runs it")
	}
	const (
		clients = 32
		seed    = 2000 // values the reads look up
	)
	window := 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv("QUIVER_CLUSTER_BENCH_WINDOW")); err == nil {
		window = d
	}

	single := serverproc.Start(t, serverproc.Config{Bin: serverproc.Build(t),
		Args: serverproc.ServeArgs(filepath.Join(t.TempDir(), "single")), Name: "single"})
	one := &processCluster{t: t, urls: []string{single.URL()}, http: &http.Client{Timeout: 30 * time.Second}}
	singleLatency := measureLoad(t, one, []int{0}, 1, window/2, writeOp)
	cpu0 := procCPU(t, single.Pid())
	singleWrites := measureLoad(t, one, []int{0}, clients, window, writeOp)
	singleCPU := procCPU(t, single.Pid()) - cpu0
	seedValues(t, one, 0, seed)
	singleReads := measureLoad(t, one, []int{0}, clients, window, readOp(seed))
	if err := single.Term(30 * time.Second); err != nil {
		t.Fatal(err)
	}

	c := startProcessCluster(t, 3, false)
	l := c.awaitLeader(-1)
	c.mustQuery(l, "CREATE (:Warm)", nil) // the leader takes commits (mustQuery waits)
	clusterLatency := measureLoad(t, c, []int{l}, 1, window/2, writeOp)
	cpu0 = c.cpu(t)
	clusterWrites := measureLoad(t, c, []int{l}, clients, window, writeOp)
	clusterCPU := c.cpu(t) - cpu0
	seedValues(t, c, l, seed)
	var followers []int
	for i := range c.procs {
		if i != l {
			followers = append(followers, i)
		}
	}
	// The followers have applied the seed before the reads start.
	mark := c.mustQuery(l, "RETURN 1 AS one", nil).bookmark
	for _, f := range followers {
		c.mustQuery(f, "RETURN 1 AS one", nil, "Quiver-Bookmark", mark)
	}
	followerReads := measureLoad(t, c, followers, clients, window, readOp(seed))

	t.Logf("RESULT 1 writer, single server:      %s", singleLatency)
	t.Logf("RESULT 1 writer, 3 members (leader): %s", clusterLatency)
	t.Logf("RESULT writes, single server:        %s", singleWrites)
	t.Logf("RESULT writes, 3 members (leader):   %s (%.0f%% of the single server's)", clusterWrites, 100*clusterWrites.perSecond()/singleWrites.perSecond())
	t.Logf("RESULT server CPU per commit at 32 writers: single %v, 3 members %v (CPU of the servers over the window: %v, %v)",
		(singleCPU / time.Duration(singleWrites.ok)).Round(time.Microsecond), (clusterCPU / time.Duration(clusterWrites.ok)).Round(time.Microsecond),
		singleCPU.Round(10*time.Millisecond), clusterCPU.Round(10*time.Millisecond))
	t.Logf("RESULT reads, single server:         %s", singleReads)
	t.Logf("RESULT reads, 2 followers (local):   %s (%.0f%% of the single server's)", followerReads, 100*followerReads.perSecond()/singleReads.perSecond())
}

// loadResult is one measurement: operations answered 200 in a window,
// their latencies, and the others.
type loadResult struct {
	ok, failed int
	window     time.Duration
	p50, p99   time.Duration
	reasons    map[string]int // why operations failed, with counts
}

func (r loadResult) perSecond() float64 { return float64(r.ok) / r.window.Seconds() }

func (r loadResult) String() string {
	s := fmt.Sprintf("%.0f ops/s (%d in %v, %d failed), latency p50 %v p99 %v",
		r.perSecond(), r.ok, r.window, r.failed, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	if len(r.reasons) > 0 {
		s += fmt.Sprintf(", failures %v", r.reasons)
	}
	return s
}

type loadOp func(client, seq int) (string, map[string]any)

func writeOp(client, seq int) (string, map[string]any) {
	return "CREATE (:T {v: $v})", map[string]any{"v": client*100_000_000 + seq}
}

func readOp(n int) loadOp {
	return func(client, seq int) (string, map[string]any) {
		return "MATCH (s:S {v: $v}) RETURN s.v AS v", map[string]any{"v": (client*7919 + seq) % n}
	}
}

// seedValues creates n :S nodes through member i, in one statement.
func seedValues(t *testing.T, c *processCluster, i, n int) {
	t.Helper()
	c.mustQuery(i, "UNWIND range(0, $n - 1) AS v CREATE (:S {v: v})", map[string]any{"n": n})
}

// measureLoad runs clients, each sending op to members in turn over its
// own keep-alive connection, for window.
func measureLoad(t *testing.T, c *processCluster, members []int, clients int, window time.Duration, op loadOp) loadResult {
	t.Helper()
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	reasons := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	var wg sync.WaitGroup
	for k := range clients {
		client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		wg.Go(func() {
			defer client.CloseIdleConnections()
			var mine []time.Duration
			for seq := 0; ctx.Err() == nil; seq++ {
				q, params := op(k, seq)
				start := time.Now()
				r, err := c.query(context.Background(), client, members[(k+seq)%len(members)], q, params, nil)
				if err == nil && r.status == http.StatusOK {
					ok.Add(1)
					mine = append(mine, time.Since(start))
				} else {
					failed.Add(1)
					why := fmt.Sprint(err)
					if err == nil {
						why = fmt.Sprintf("HTTP %d %s", r.status, r.code)
					}
					mu.Lock()
					reasons[why]++
					mu.Unlock()
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if ok.Load() == 0 {
		t.Fatalf("no operation succeeded (%d failed)", failed.Load())
	}
	slices.Sort(lat)
	return loadResult{ok: int(ok.Load()), failed: int(failed.Load()), window: window,
		p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], reasons: reasons}
}

// procCPU is the user and system CPU time process pid used so far
// (/proc/pid/stat, in clock ticks of 10 ms).
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's closing parenthesis: state is the
	// first, utime and stime the 12th and 13th.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// cpu is the CPU time the members used so far.
func (c *processCluster) cpu(t *testing.T) time.Duration {
	var d time.Duration
	for _, p := range c.procs {
		d += procCPU(t, p.Pid())
	}
	return d
}
