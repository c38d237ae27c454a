package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// WriteStatement is the auto-commit write every client sends: one node,
// two integer properties, no index or constraint on :W, so commits never
// conflict and each is one logged record.
const WriteStatement = "CREATE (:W {id: $id, c: $c})"

// FloorStatement takes the same parameters and writes nothing: the same
// load with it measures what HTTP, the request's decoding and a
// statement's parse, plan and run cost without a commit.
const FloorStatement = "RETURN $id + $c AS x"

// WriteLoad is one load of auto-commit writes against a server.
type WriteLoad struct {
	Addr string // host:port of the HTTP API
	// Statement is sent with parameters $id and $c; empty means
	// WriteStatement. Its text goes into JSON as it is: no quotes or
	// backslashes.
	Statement string
	Clients   int // concurrent clients, each with its own keep-alive connection
	// Duration ends the timed part (clients finish the request in flight);
	// with Count set instead, the clients share exactly Count commits.
	Duration time.Duration
	Count    int64
	// Warmup runs untimed first, on the same connections.
	Warmup time.Duration
	// FirstID is the id of the first statement; ids are then consecutive
	// over the load (warm-up included).
	FirstID int64
	// ServerPid, when set, has its CPU time measured over the timed part.
	ServerPid int
	// Flushes, when set, counts the disk's flush requests (disk-wide).
	Flushes func() (int64, bool)
}

// WriteResult is what a WriteLoad measured over its timed part.
type WriteResult struct {
	Clients  int
	Commits  int64 // acknowledged: HTTP 200
	Failures int64 // any other answer or a transport error (warm-up included)
	FirstErr string
	Warmup   int64 // commits acknowledged during the warm-up
	Elapsed  time.Duration
	Latency  LatencySummary
	// ServerCPU and ClientCPU are CPU time used during the timed part by
	// the server process and by this process (the clients); OtherCPU by
	// everything else on the machine (other processes, the kernel's
	// threads), -1 when unknown.
	ServerCPU, ClientCPU, OtherCPU time.Duration
	// DiskFlushes is the disk's completed flush requests during the timed
	// part, -1 when unknown. Disk-wide: other processes' syncs count too.
	DiskFlushes int64
}

// Rate is acknowledged commits per second.
func (r WriteResult) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Commits) / r.Elapsed.Seconds()
}

// AppendWriteBody appends the JSON body of statement with parameters id
// and c to dst: {"query":…,"parameters":{"id":…,"c":…}}.
func AppendWriteBody(dst []byte, statement string, id, c int64) []byte {
	dst = append(dst, `{"query":"`...)
	dst = append(dst, statement...)
	dst = append(dst, `","parameters":{"id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"c":`...)
	dst = strconv.AppendInt(dst, c, 10)
	return append(dst, "}}"...)
}

// Run drives the load: Clients goroutines, each sending one statement at a
// time over its own keep-alive connection (fasthttp's client: it
// allocates nothing per request, so the clients take as little of the
// machine's CPU from the server as a client can) and waiting for the
// answer before the next. Only answers with status 200 count as commits.
func (w WriteLoad) Run(ctx context.Context) (WriteResult, error) {
	if w.Clients <= 0 || (w.Duration <= 0 && w.Count <= 0) {
		return WriteResult{}, errors.New("write load: need clients and a duration or a count")
	}
	hc := &fasthttp.HostClient{Addr: w.Addr, MaxConns: w.Clients, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	defer hc.CloseIdleConnections()
	uri := "http://" + w.Addr + "/api/v1/query"
	stmt := w.Statement
	if stmt == "" {
		stmt = WriteStatement
	}
	var nextID atomic.Int64
	nextID.Store(w.FirstID)

	// phase runs every client until stop says so and returns the
	// latencies of the acknowledged requests.
	var failures atomic.Int64
	var firstErr atomic.Value
	phase := func(stop func(*atomic.Int64) bool, keep bool) ([]time.Duration, int64) {
		var wg sync.WaitGroup
		var commits, issued atomic.Int64
		lats := make([][]time.Duration, w.Clients)
		for i := range w.Clients {
			wg.Go(func() {
				req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(resp)
				req.SetRequestURI(uri)
				req.Header.SetMethod(fasthttp.MethodPost)
				req.Header.SetContentType("application/json")
				var body []byte
				var lat []time.Duration
				if keep {
					lat = make([]time.Duration, 0, 1<<14)
				}
				for !stop(&issued) && ctx.Err() == nil {
					id := nextID.Add(1) - 1
					body = AppendWriteBody(body[:0], stmt, id, id%1000)
					req.SetBodyRaw(body)
					t0 := time.Now()
					err := hc.Do(req, resp)
					d := time.Since(t0)
					if err == nil && resp.StatusCode() != fasthttp.StatusOK {
						err = fmt.Errorf("HTTP %d: %s", resp.StatusCode(), resp.Body())
					}
					if err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					commits.Add(1)
					if keep {
						lat = append(lat, d)
					}
				}
				lats[i] = lat
			})
		}
		wg.Wait()
		var all []time.Duration
		for _, l := range lats {
			all = append(all, l...)
		}
		return all, commits.Load()
	}
	until := func(d time.Duration) func(*atomic.Int64) bool {
		end := time.Now().Add(d)
		return func(*atomic.Int64) bool { return time.Now().After(end) }
	}

	var res WriteResult
	res.Clients = w.Clients
	if w.Warmup > 0 {
		_, res.Warmup = phase(until(w.Warmup), false)
	}
	stop := func(issued *atomic.Int64) bool { return issued.Add(1) > w.Count }
	if w.Count <= 0 {
		stop = until(w.Duration)
	}
	srvCPU0, _ := procCPUIf(w.ServerPid)
	cliCPU0 := selfCPU()
	span := startCPUSpan()
	flush0, flushOK := flushesIf(w.Flushes)
	start := time.Now()
	lat, commits := phase(stop, true)
	res.Elapsed = time.Since(start)
	srvCPU1, _ := procCPUIf(w.ServerPid)
	res.ServerCPU = time.Duration(srvCPU1-srvCPU0) * 10 * time.Millisecond
	res.ClientCPU = selfCPU() - cliCPU0
	res.OtherCPU = -1
	if w.ServerPid > 0 {
		res.OtherCPU = span.others(res.ServerCPU)
	}
	res.DiskFlushes = -1
	if flush1, ok := flushesIf(w.Flushes); ok && flushOK {
		res.DiskFlushes = flush1 - flush0
	}
	res.Commits = commits
	res.Failures = failures.Load()
	if s, ok := firstErr.Load().(string); ok {
		res.FirstErr = s
	}
	res.Latency = Summarize(lat)
	return res, ctx.Err()
}

func procCPUIf(pid int) (int64, error) {
	if pid <= 0 {
		return 0, nil
	}
	return ProcCPU(pid)
}

func flushesIf(f func() (int64, bool)) (int64, bool) {
	if f == nil {
		return 0, false
	}
	return f()
}

// selfCPU is this process's user plus system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
