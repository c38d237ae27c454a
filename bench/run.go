package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Config is one harness run.
type Config struct {
	Scale Scale
	Seed  uint64
	// Dataset is what DataDir holds: nil is KnowsDataset (Generate's
	// persons.csv and knows.csv), SNBDataset GenerateSNB's files.
	Dataset *Dataset
	DataDir string // the data set's CSVs (Generate or GenerateSNB, then WriteCSV)
	KuzuDir string // bench/kuzu, npm-installed
	// DuckDBDir is bench/duckdb, npm-installed: DuckDB runs the suite's
	// SQL forms (Query.SQL) in the same run. Empty leaves DuckDB out, as
	// does a data set other than KnowsDataset (its tables are person and
	// knows) or a suite without SQL forms.
	DuckDBDir string
	Runs      int // timed runs per query and engine; the median is reported
	Warmup    int // untimed runs per query and engine first
	Loader    Loader
	Commit    string
	Log       io.Writer // progress lines; nil discards
	Note      string    // a paragraph for RESULTS.md (the machine's load, what was skipped)
	Skip      []string  // suite queries not run (names, e.g. Q6), listed in the report
	// Suite is the queries to time: nil is the data set's (Suite, Q1–Q9,
	// for KnowsDataset); WideSuite is issue 17's wider one, with Wide set
	// for the report's title.
	Suite []Query
	Wide  bool
}

// Report is what a run measured; WriteMarkdown renders it.
type Report struct {
	Config
	Date        time.Time
	Machine     Machine
	GoVersion   string
	KuzuVersion string
	Nodes       int64
	Edges       int64

	QuiverLoad, KuzuLoad LoadTimes
	QuiverDisk, KuzuDisk int64
	// QuiverWAL is the write-ahead log's part of the open directory (its
	// active segment is preallocated), left out of QuiverDisk.
	QuiverWAL                   int64
	QuiverRSSLoad, QuiverRSSRun int64
	QuiverRSSOpen               int64 // a Builder's directory being opened; 0 otherwise
	KuzuRSSLoad, KuzuRSSRun     int64
	// KuzuRestarts counts the times Kùzu's process died on a query and
	// was started again (QueryReport.KuzuFailed).
	KuzuRestarts int
	// DuckDB's side, when it ran (DuckDBVersion is set).
	DuckDBVersion               string
	DuckDBLoad                  LoadTimes
	DuckDBDisk                  int64
	DuckDBRSSLoad, DuckDBRSSRun int64
	Queries                     []QueryReport
	Mismatches                  []string
	// PeerDefects are Kùzu's answers that differed where a query names
	// a known defect of Kùzu's and DuckDB agreed with Quiver
	// (Query.KuzuDefect).
	PeerDefects []string
}

// QueryReport is one query's timings (milliseconds, every timed run) and
// Quiver's answer. DuckDBMS is empty where DuckDB did not run the query
// (no SQL form, or DuckDB left out).
type QueryReport struct {
	Query
	EmbeddedMS, HTTPMS, KuzuMS, DuckDBMS []float64
	// KuzuFailed says why Kùzu gave no answer (its process died on the
	// query, and was restarted on its database for the next ones).
	KuzuFailed string
	Answer     Rows
}

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Run loads the data set into the engines and times the suite, the
// engines alternating run by run. Quiver runs embedded in this process and
// over HTTP on a loopback port of this process; Kùzu runs in its own Node
// process, and DuckDB (unless left out, see Config.DuckDBDir) in another,
// on the queries with a SQL form. Answers that differ are listed in
// Report.Mismatches.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, a ...any) { fmt.Fprintf(logw, format+"\n", a...) }
	if cfg.Loader == nil {
		cfg.Loader = ImportLoader{}
	}
	if cfg.Dataset == nil {
		cfg.Dataset = KnowsDataset
	}
	rep := &Report{Config: cfg, Date: time.Now(), Machine: ThisMachine(), GoVersion: runtime.Version()}
	tmp, err := os.MkdirTemp("", "quiverbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	// Quiver: load, peak RSS of this process while loading.
	debug.FreeOSMemory()
	ResetPeakRSS(0)
	qdir := filepath.Join(tmp, "quiver")
	logf("quiver: loading %s with %s", cfg.DataDir, cfg.Loader.Name())
	db, err := loadQuiver(ctx, cfg, qdir, rep)
	if err != nil {
		return nil, fmt.Errorf("quiver load: %w", err)
	}
	defer db.Close()
	if rep.QuiverLoad.OpenMS > 0 {
		rep.QuiverRSSOpen, _ = PeakRSS(0)
	} else {
		rep.QuiverRSSLoad, _ = PeakRSS(0)
	}
	st := db.Counts()
	rep.Nodes, rep.Edges = st.Nodes, st.Relationships
	rep.QuiverWAL = DiskSize(filepath.Join(qdir, engine.WALDirName))
	rep.QuiverDisk = DiskSize(qdir) - rep.QuiverWAL
	logf("quiver: %d nodes in %.0f ms, %d edges in %.0f ms", rep.Nodes, rep.QuiverLoad.NodesMS, rep.Edges, rep.QuiverLoad.EdgesMS)
	srv, err := StartHTTP(db)
	if err != nil {
		return nil, err
	}
	defer srv.Close()

	// Kùzu: load with COPY FROM, peak RSS of its process.
	k, err := StartKuzu(cfg.KuzuDir)
	if err != nil {
		return nil, err
	}
	kz := &kuzuPeer{Kuzu: k, dir: cfg.KuzuDir, db: filepath.Join(tmp, "kuzu.db")}
	defer func() { kz.Close() }()
	logf("kuzu: loading with COPY FROM")
	if err := loadKuzu(kz.Kuzu, cfg, kz.db, rep); err != nil {
		return nil, err
	}
	logf("kuzu %s: nodes in %.0f ms, edges in %.0f ms", rep.KuzuVersion, rep.KuzuLoad.NodesMS, rep.KuzuLoad.EdgesMS)

	suite := cfg.Suite
	if suite == nil {
		suite = cfg.Dataset.Suite
	}
	// DuckDB: its own Node process, loaded with COPY FROM.
	var dk *DuckDB
	switch {
	case cfg.DuckDBDir == "":
		logf("duckdb: left out")
	case cfg.Dataset != KnowsDataset || !hasSQL(suite):
		logf("duckdb: the %s data set's suite has no SQL forms; not run", cfg.Dataset.Name)
	default:
		if dk, err = StartDuckDB(cfg.DuckDBDir); err != nil {
			return nil, err
		}
		defer dk.Close()
		logf("duckdb: loading with COPY FROM")
		if err := loadDuckDB(dk, cfg, filepath.Join(tmp, "duckdb.db"), rep); err != nil {
			return nil, err
		}
		logf("duckdb %s: nodes in %.0f ms, edges in %.0f ms", rep.DuckDBVersion, rep.DuckDBLoad.NodesMS, rep.DuckDBLoad.EdgesMS)
	}

	// The suite. The load's garbage goes back to the OS first, so that the
	// peak while querying starts from what the loaded graph holds.
	debug.FreeOSMemory()
	ResetPeakRSS(0)
	ResetPeakRSS(kz.Pid())
	if dk != nil {
		ResetPeakRSS(dk.Pid())
	}
	for _, q := range suite {
		if slices.Contains(cfg.Skip, q.Name) {
			continue
		}
		qr, err := timeQuery(ctx, cfg, q, db, srv, kz, dk, rep)
		if err != nil {
			return nil, err
		}
		duck := ""
		if len(qr.DuckDBMS) > 0 {
			duck = fmt.Sprintf(", duckdb %.2f ms", Median(qr.DuckDBMS))
		}
		logf("%s: quiver %.2f ms (HTTP %.2f), kuzu %.2f ms%s, answer %v", q.Name,
			Median(qr.EmbeddedMS), Median(qr.HTTPMS), Median(qr.KuzuMS), duck, short(qr.Answer))
		rep.Queries = append(rep.Queries, qr)
	}
	rep.QuiverRSSRun, _ = PeakRSS(0)
	rep.KuzuRSSRun, _ = PeakRSS(kz.Pid())
	rep.KuzuRestarts = kz.restarts
	if dk != nil {
		rep.DuckDBRSSRun, _ = PeakRSS(dk.Pid())
	}
	return rep, nil
}

// hasSQL reports whether any query of suite has a SQL form.
func hasSQL(suite []Query) bool {
	for _, q := range suite {
		if q.SQL != "" {
			return true
		}
	}
	return false
}

// loadDuckDB loads the Person/KNOWS data set into DuckDB's database file
// ddb and records the load's times, its peak RSS and the file's size.
func loadDuckDB(dk *DuckDB, cfg Config, ddb string, rep *Report) error {
	l, err := loadPeer(&dk.nodeRunner, ddb, func() (peerAnswer, error) {
		a, err := dk.Load(ddb, cfg.DataDir)
		return a.peerAnswer, err
	})
	rep.DuckDBVersion, rep.DuckDBLoad, rep.DuckDBRSSLoad, rep.DuckDBDisk = l.version, l.times, l.rss, l.disk
	return err
}

// loadKuzu loads the data set into Kùzu's database kdb and records the
// load's times, its peak RSS and the database's size.
func loadKuzu(kz *Kuzu, cfg Config, kdb string, rep *Report) error {
	l, err := loadPeer(&kz.nodeRunner, kdb, func() (peerAnswer, error) {
		a, err := kz.Load(kdb, cfg.Dataset, cfg.DataDir)
		return a.peerAnswer, err
	})
	rep.KuzuVersion, rep.KuzuLoad, rep.KuzuRSSLoad, rep.KuzuDisk = l.version, l.times, l.rss, l.disk
	return err
}

// peerLoad is what a peer's load measured.
type peerLoad struct {
	version   string
	times     LoadTimes
	rss, disk int64
}

// loadPeer runs a peer runner's load into database db, with the runner's
// peak RSS reset before it, and measures the database on disk: its file
// and the write-ahead log beside it (db*).
func loadPeer(r *nodeRunner, db string, load func() (peerAnswer, error)) (peerLoad, error) {
	ResetPeakRSS(r.Pid())
	a, err := load()
	if err != nil {
		return peerLoad{}, fmt.Errorf("%s load: %w", r.name, err)
	}
	l := peerLoad{version: a.Version, times: LoadTimes{NodesMS: a.NodesMS, EdgesMS: a.EdgesMS}}
	l.rss, _ = PeakRSS(r.Pid())
	files, _ := filepath.Glob(db + "*")
	for _, f := range files {
		l.disk += DiskSize(f)
	}
	return l, nil
}

// timeQuery runs q on the engines in turn (Kùzu, DuckDB when dk is set
// and q has a SQL form, Quiver embedded, Quiver over HTTP), warm-up runs
// first, and compares the first run's answers with Quiver's (a difference
// goes to rep.Mismatches).
func timeQuery(ctx context.Context, cfg Config, q Query, db *engine.DB, srv *HTTPServer, kz *kuzuPeer, dk *DuckDB, rep *Report) (QueryReport, error) {
	qr := QueryReport{Query: q}
	withDuckDB := dk != nil && q.SQL != ""
	for i := 0; i < cfg.Warmup+cfg.Runs; i++ {
		timed := i >= cfg.Warmup
		var ka KuzuAnswer
		var err error
		if qr.KuzuFailed == "" {
			if ka, qr.KuzuFailed, err = kz.query(q.Kuzu); err != nil {
				return qr, fmt.Errorf("%s on Kùzu: %w", q.Name, err)
			}
		}
		var da DuckDBAnswer
		if withDuckDB {
			if da, err = dk.Query(q.SQL); err != nil {
				return qr, fmt.Errorf("%s on DuckDB: %w", q.Name, err)
			}
		}
		sw := startWatch()
		emb, err := QueryEmbedded(ctx, db, q.Quiver)
		embMS := sw.ms()
		if err != nil {
			return qr, fmt.Errorf("%s on Quiver: %w", q.Name, err)
		}
		sw = startWatch()
		web, err := srv.Query(ctx, q.Quiver)
		webMS := sw.ms()
		if err != nil {
			return qr, fmt.Errorf("%s on Quiver over HTTP: %w", q.Name, err)
		}
		if i == 0 {
			qr.Answer = emb
			compareAnswers(q, emb, web, ka.Rows, qr.KuzuFailed == "", da.Rows, withDuckDB, rep)
		}
		if timed && qr.KuzuFailed == "" {
			qr.KuzuMS = append(qr.KuzuMS, ka.MS)
		}
		if timed {
			if withDuckDB {
				qr.DuckDBMS = append(qr.DuckDBMS, da.MS)
			}
			qr.EmbeddedMS = append(qr.EmbeddedMS, embMS)
			qr.HTTPMS = append(qr.HTTPMS, webMS)
		}
	}
	return qr, nil
}

// compareAnswers compares Quiver's answers (embedded and over HTTP) with
// Kùzu's and DuckDB's (withDuckDB), into rep.Mismatches. Kùzu's
// differing answer to a query with a KuzuDefect goes to rep.PeerDefects
// instead when DuckDB answered as Quiver did: two engines and a known
// defect against one.
func compareAnswers(q Query, emb, web, kuzu Rows, withKuzu bool, duck Rows, withDuckDB bool, rep *Report) {
	duckAgrees := false
	if withDuckDB {
		err := ComparePeer(q, "DuckDB", emb, duck)
		if err != nil {
			rep.Mismatches = append(rep.Mismatches, err.Error())
		}
		duckAgrees = err == nil
	}
	for _, a := range []struct {
		how  string
		rows Rows
	}{{"", emb}, {"over HTTP: ", web}} {
		if !withKuzu {
			// Kùzu gave no answer: the answer over HTTP against DuckDB's
			// (the embedded one was above), or against the embedded one.
			var err error
			switch {
			case a.how == "":
			case withDuckDB:
				err = ComparePeer(q, "DuckDB", a.rows, duck)
			default:
				err = ComparePeer(q, "Quiver embedded", a.rows, emb)
			}
			if err != nil {
				rep.Mismatches = append(rep.Mismatches, a.how+err.Error())
			}
			continue
		}
		err := Compare(q, a.rows, kuzu)
		switch {
		case err == nil:
		case q.KuzuDefect != "" && duckAgrees && ComparePeer(q, "DuckDB", a.rows, duck) == nil:
			rep.PeerDefects = append(rep.PeerDefects, fmt.Sprintf("%s%s: %s; DuckDB's answer agrees with Quiver's", a.how, q.Name, q.KuzuDefect))
		default:
			rep.Mismatches = append(rep.Mismatches, a.how+err.Error())
		}
	}
}

func short(r Rows) string {
	s := fmt.Sprint(r)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// loadQuiver opens the Quiver database in qdir, filled by cfg.Loader: a
// Builder builds the directory first, and its opening is timed and
// measured apart (rep.QuiverLoad.OpenMS, rep.QuiverRSSOpen: the peak RSS
// of the build is taken, and reset, before it); an OnlineLoader loads
// after opening (only the Person/KNOWS data set).
func loadQuiver(ctx context.Context, cfg Config, qdir string, rep *Report) (*engine.DB, error) {
	t := &rep.QuiverLoad
	ds := cfg.Dataset
	if ds == nil {
		ds = KnowsDataset
	}
	switch l := cfg.Loader.(type) {
	case Builder:
		var err error
		if *t, err = l.Build(ctx, ds, cfg.DataDir, qdir); err != nil {
			return nil, err
		}
		rep.QuiverRSSLoad, _ = PeakRSS(0)
		debug.FreeOSMemory()
		ResetPeakRSS(0)
		start := time.Now()
		db, err := engine.Open(qdir, engine.Options{})
		t.OpenMS = ms(time.Since(start))
		return db, err
	case OnlineLoader:
		if ds != KnowsDataset {
			return nil, fmt.Errorf("loader %s loads only the Person/KNOWS data set, not %s", l.Name(), ds.Name)
		}
		db, err := engine.Open(qdir, engine.Options{})
		if err != nil {
			return nil, err
		}
		if *t, err = l.Load(ctx, db, cfg.DataDir); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	return nil, fmt.Errorf("loader %s neither builds nor loads", cfg.Loader.Name())
}

// kuzuPeer is the Kùzu side of a run: its runner, started again on the
// loaded database when its process dies on a query (at scale L a query
// may take Kùzu past the machine's memory), so that the other queries
// still run.
type kuzuPeer struct {
	*Kuzu
	dir, db  string
	restarts int
}

// query runs text. When the runner's process died on it, failed says
// how, and the runner is restarted on the database; err is any other
// failure.
func (p *kuzuPeer) query(text string) (a KuzuAnswer, failed string, err error) {
	a, err = p.Query(text)
	if err == nil || !errors.Is(err, errRunnerEnded) {
		return a, "", err
	}
	failed = "its process ended (" + p.ended() + ")"
	k, err := StartKuzu(p.dir)
	if err != nil {
		return a, failed, err
	}
	if err := k.Open(p.db); err != nil {
		k.Close()
		return a, failed, fmt.Errorf("reopening Kùzu's database after %s: %w", failed, err)
	}
	p.Kuzu = k
	p.restarts++
	ResetPeakRSS(k.Pid())
	return KuzuAnswer{}, failed, nil
}
