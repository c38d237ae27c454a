package engine

// A server holds several graphs (docs/graphs.md). The default graph is the
// database Open returns; every other graph is a database of its own in
// D/graphs/<name>, with its own store, write-ahead log, checkpoints,
// indexes, change feed, projection cache and memory budget, opened by the
// default graph's DB, which keeps their catalog in its system records
// (so the catalog is as durable as a commit) and routes each statement to
// the graph it names. Grants per graph are system records too (grants.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/settings"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storageprocs"
)

// DefaultGraph is the graph every server has: a request that names no
// graph runs on it.
const DefaultGraph = storageprocs.GraphName

// GraphsDirName is the directory, inside the data directory, that holds
// one directory per graph other than the default.
const GraphsDirName = "graphs"

// MaxGraphs bounds the graphs of a server besides the default one: each
// holds open files, a log and background work.
const MaxGraphs = 256

// graphRecordPrefix keys the graph catalog in the default graph's system
// records: graph/<name> → graphMeta as JSON.
const graphRecordPrefix = "graph/"

// graphMeta is what the catalog keeps of a graph.
type graphMeta struct {
	Created   string `json:"created"`
	MaxMemory int64  `json:"max_memory,omitempty"`
	MaxDisk   int64  `json:"max_disk,omitempty"`
}

// graphSet is the default graph's table of the other graphs, open.
type graphSet struct {
	// admin serialises CREATE and DROP GRAPH.
	admin sync.Mutex
	mu    sync.RWMutex
	open  map[string]*DB
	metas map[string]graphMeta
}

// graphKey is the context key of the graph a frontend's request names.
type graphKey struct{}

// WithGraph returns ctx naming the graph its statements run on (the HTTP
// body's or a wire message's "graph"). A USE prefix in the text wins
// over it; an empty name is the session's graph.
func WithGraph(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, graphKey{}, name)
}

// graphFrom is the graph ctx names, "" for none.
func graphFrom(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	s, _ := ctx.Value(graphKey{}).(string)
	return s
}

// GraphName is the name of the graph db holds.
func (db *DB) GraphName() string { return db.graph }

// normalGraphName checks a graph name and returns its canonical form:
// lower case, a letter then letters, digits or underscores, at most 63.
func normalGraphName(name string) (string, error) {
	n := strings.ToLower(name)
	ok := len(n) > 0 && len(n) <= 63 && n[0] >= 'a' && n[0] <= 'z'
	for i := 0; ok && i < len(n); i++ {
		c := n[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return "", errs.DataCode(errs.CodeInvalidParam,
			"invalid graph name %q: a letter, then letters, digits or underscores, at most 63 (names are not case-sensitive)", truncateName(name))
	}
	return n, nil
}

func truncateName(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// noGraph is the error for a graph that does not exist, or that the
// principal may not see: the two are answered alike, so that nobody
// learns of a graph they have no access to.
func noGraph(name string) *errs.Error {
	return errs.New(errs.CodeNoObject, errs.CatNoObject, "graph %q does not exist", truncateName(name)).
		Suggest("SHOW GRAPHS lists the graphs you can use")
}

// Graph returns the graph name names, and ctx with its principal's
// privileges narrowed to that graph (grants.go). An unknown graph, and
// one the principal may not use, is the same 42S02 error.
func (db *DB) Graph(ctx context.Context, name string) (*DB, context.Context, error) {
	root := db.root
	n, err := normalGraphName(name)
	if err != nil {
		return nil, ctx, noGraph(name)
	}
	g := root
	if n != DefaultGraph {
		root.graphs.mu.RLock()
		g = root.graphs.open[n]
		root.graphs.mu.RUnlock()
		if g == nil {
			return nil, ctx, noGraph(name)
		}
	}
	gctx, ok := root.narrow(ctx, n)
	if !ok {
		return nil, ctx, noGraph(name)
	}
	return g, gctx, nil
}

// Graphs lists the graphs ctx's principal may use, the default first.
func (db *DB) Graphs(ctx context.Context) []string {
	root := db.root
	out := []string{DefaultGraph}
	root.graphs.mu.RLock()
	names := make([]string, 0, len(root.graphs.open))
	for n := range root.graphs.open {
		names = append(names, n)
	}
	root.graphs.mu.RUnlock()
	sort.Strings(names)
	for _, n := range names {
		if _, ok := root.narrow(ctx, n); ok {
			out = append(out, n)
		}
	}
	return out
}

// openGraphs opens every graph of the catalog at the default graph's
// Open, and removes the directories of graphs no longer in it (a DROP
// GRAPH cut short by a crash after its record was deleted).
func (db *DB) openGraphs() error {
	db.graphs = &graphSet{open: map[string]*DB{}, metas: map[string]graphMeta{}}
	recs := db.SystemScan(graphRecordPrefix)
	for _, r := range recs {
		name := strings.TrimPrefix(r.Key, graphRecordPrefix)
		var m graphMeta
		if err := json.Unmarshal(r.Value, &m); err != nil {
			return fmt.Errorf("cannot read the catalog entry of graph %s: %w", name, err)
		}
		if db.opts.Replication != nil {
			db.log.Warn("a cluster serves the default graph only: graph not opened", "graph", name)
			continue
		}
		g, err := db.openChild(name, m)
		if err != nil {
			db.closeGraphs()
			return fmt.Errorf("cannot open graph %s: %w", name, err)
		}
		db.graphs.open[name], db.graphs.metas[name] = g, m
	}
	if db.dir == "" {
		return nil
	}
	dir := filepath.Join(db.dir, GraphsDirName)
	ents, err := db.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		db.closeGraphs()
		return fmt.Errorf("cannot list %s: %w", dir, err)
	}
	for _, e := range ents {
		if _, ok := db.graphs.metas[e.Name()]; ok || db.opts.Replication != nil || strings.HasPrefix(e.Name(), ".") {
			continue // a graph, or `quiver import --graph` staging one
		}
		db.log.Warn("removing the directory of a dropped graph", "dir", filepath.Join(dir, e.Name()))
		if err := db.fs.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			db.closeGraphs()
			return fmt.Errorf("cannot remove the dropped graph's %s: %w", e.Name(), err)
		}
	}
	return vfs.SyncDir(db.fs, dir)
}

// openChild opens graph name's database under db, the default graph.
func (db *DB) openChild(name string, m graphMeta) (*DB, error) {
	opts := db.opts
	opts.Replication, opts.LockedDir = nil, nil
	opts.Logger = db.log.With("graph", name)
	if m.MaxDisk > 0 {
		// The log's segments are preallocated: a quarter of the quota at
		// most, so that one segment never fills it alone.
		seg := opts.WALSegmentSize
		if seg == 0 {
			seg = 64 << 20
		}
		opts.WALSegmentSize = max(min(seg, m.MaxDisk/4), 64<<10)
	}
	parent := &graphParent{root: db, name: name, meta: m}
	if db.dir == "" {
		return openGraph(nil, opts, parent)
	}
	dir := filepath.Join(db.dir, GraphsDirName, name)
	if _, err := vfs.MkdirAllSync(db.fs, dir); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", dir, err)
	}
	dd, err := LockDataDir(dir, opts)
	if err != nil {
		return nil, err
	}
	opts.FS = dd.FS()
	return openGraph(dd, opts, parent)
}

// graphParent is what a graph other than the default takes from it.
type graphParent struct {
	root *DB
	name string
	meta graphMeta
}

// closeGraphs closes every graph but the default (at its Close).
func (db *DB) closeGraphs() {
	if db.graphs == nil {
		return
	}
	db.graphs.mu.Lock()
	open := db.graphs.open
	db.graphs.open = map[string]*DB{}
	db.graphs.mu.Unlock()
	for name, g := range open {
		if err := g.Close(); err != nil {
			db.log.Error("closing a graph", "graph", name, "err", err)
		}
	}
}

// createGraph runs CREATE GRAPH.
func (db *DB) createGraph(ctx context.Context, st *gql.Graph) error {
	name, err := normalGraphName(st.Name)
	if err != nil {
		return err.(*errs.Error).At(st.NamePos.Line, st.NamePos.Column)
	}
	if name == DefaultGraph {
		if st.IfNotExists {
			return nil
		}
		return errs.New(errs.CodeObjectExists, errs.CatObjectExists, "graph %q already exists: it is the default graph", name).At(st.NamePos.Line, st.NamePos.Column)
	}
	if db.opts.Replication != nil {
		return errs.NotSupported("CREATE GRAPH in a cluster: a cluster serves the default graph only (graphs.md)")
	}
	m := graphMeta{Created: time.Now().UTC().Format(time.RFC3339)}
	for _, o := range []struct {
		v   any
		pos gql.Pos
		out *int64
		opt string
	}{{st.MaxMemory, st.MaxMemoryPos, &m.MaxMemory, "max_memory"}, {st.MaxDisk, st.MaxDiskPos, &m.MaxDisk, "max_disk"}} {
		if o.v == nil {
			continue
		}
		n, err := graphSize(o.v)
		if err != nil || n <= 0 {
			return errs.DataCode(errs.CodeInvalidParam, "CREATE GRAPH OPTIONS: %s must be a positive size in bytes, or a string such as '2GB'", o.opt).At(o.pos.Line, o.pos.Column)
		}
		*o.out = n
	}
	gs := db.graphs
	gs.admin.Lock()
	defer gs.admin.Unlock()
	gs.mu.RLock()
	_, exists := gs.open[name]
	count := len(gs.open)
	gs.mu.RUnlock()
	switch {
	case exists && st.IfNotExists:
		return nil
	case exists:
		return errs.New(errs.CodeObjectExists, errs.CatObjectExists, "graph %q already exists", name).At(st.NamePos.Line, st.NamePos.Column)
	case count >= MaxGraphs:
		return errs.New(errs.CodeTooMany, errs.CatResource, "a server holds at most %d graphs besides the default one (MaxGraphs)", MaxGraphs)
	}
	v, _ := json.Marshal(m)
	// The record first: a crash before the directory exists leaves a graph
	// the next Open creates empty, never a directory without a record.
	if err := db.SystemPut(ctx, []SystemRecord{{Key: graphRecordPrefix + name, Value: v}}); err != nil {
		return err
	}
	g, err := db.openChild(name, m)
	if err != nil {
		// Take the record back: the graph does not exist.
		if perr := db.SystemPut(context.WithoutCancel(ctx), []SystemRecord{{Key: graphRecordPrefix + name}}); perr != nil {
			db.log.Error("cannot remove the record of a graph that failed to open", "graph", name, "err", perr)
		}
		return fmt.Errorf("cannot create graph %s: %w", name, err)
	}
	gs.mu.Lock()
	gs.open[name], gs.metas[name] = g, m
	gs.mu.Unlock()
	return nil
}

// dropGraph runs DROP GRAPH: the graph's open transactions are rolled
// back, its statements fail as on a closed database, its record and
// grants are deleted, then its directory.
func (db *DB) dropGraph(ctx context.Context, st *gql.Graph) error {
	name, err := normalGraphName(st.Name)
	if err != nil {
		return noGraph(st.Name).At(st.NamePos.Line, st.NamePos.Column)
	}
	if name == DefaultGraph {
		return errs.DataCode(errs.CodeInvalidParam, "the default graph cannot be dropped; delete its data instead (MATCH (n) DETACH DELETE n)").At(st.NamePos.Line, st.NamePos.Column)
	}
	gs := db.graphs
	gs.admin.Lock()
	defer gs.admin.Unlock()
	gs.mu.Lock()
	g := gs.open[name]
	if g == nil {
		gs.mu.Unlock()
		if st.IfExists {
			return nil
		}
		return noGraph(st.Name).At(st.NamePos.Line, st.NamePos.Column)
	}
	delete(gs.open, name)
	delete(gs.metas, name)
	gs.mu.Unlock()
	if err := g.Close(); err != nil {
		db.log.Error("closing a dropped graph", "graph", name, "err", err)
	}
	recs := []SystemRecord{{Key: graphRecordPrefix + name}}
	for _, r := range db.SystemScan(grantRecordPrefix + name + "/") {
		recs = append(recs, SystemRecord{Key: r.Key})
	}
	if err := db.SystemPut(context.WithoutCancel(ctx), recs); err != nil {
		return fmt.Errorf("graph %s is closed but its record could not be deleted (it opens again at the next start): %w", name, err)
	}
	if db.dir == "" {
		return nil
	}
	dir := filepath.Join(db.dir, GraphsDirName)
	if err := db.fs.RemoveAll(filepath.Join(dir, name)); err != nil {
		db.log.Error("cannot remove a dropped graph's directory; the next start removes it", "graph", name, "err", err)
		return nil
	}
	if err := vfs.SyncDir(db.fs, dir); err != nil {
		db.log.Error("cannot sync the graphs directory", "err", err)
	}
	return nil
}

// graphSize reads a size option: bytes as an integer, or a string with a
// unit.
func graphSize(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case string:
		return settings.ParseSize(v)
	}
	return 0, errors.New("not a size")
}

// graphInfo is one row of SHOW GRAPHS and quiver.tenant.list().
type graphInfo struct {
	name                 string
	nodes, relationships int64
	maxMemory, maxDisk   int64
	diskBytes            int64
	created              string
}

// graphInfos describes the graphs ctx's principal may use.
func (db *DB) graphInfos(ctx context.Context) []graphInfo {
	root := db.root
	var out []graphInfo
	for _, name := range root.Graphs(ctx) {
		g, _, err := root.Graph(ctx, name)
		if err != nil {
			continue // dropped meanwhile
		}
		c := g.Counts()
		info := graphInfo{name: name, nodes: c.Nodes, relationships: c.Relationships, diskBytes: g.diskUsage()}
		if name == DefaultGraph {
			if b := root.mem.Budget(); b != nil {
				info.maxMemory = b.Limit()
			}
		} else {
			root.graphs.mu.RLock()
			m := root.graphs.metas[name]
			root.graphs.mu.RUnlock()
			info.created, info.maxDisk = m.Created, m.MaxDisk
			if b := g.mem.Budget(); b != nil {
				info.maxMemory = b.Limit()
			}
		}
		out = append(out, info)
	}
	return out
}

// graphAudit reports a graph statement to the audit trail.
func (db *DB) graphAudit(ctx context.Context, st *gql.Graph, err error) {
	action := map[gql.GraphKind]string{gql.GraphCreate: "create_graph", gql.GraphDrop: "drop_graph"}[st.Kind]
	if action == "" {
		return
	}
	db.trail().Audit(ctx, AuditEvent{Category: "admin", Action: action, Outcome: access.OutcomeOf(err), Detail: "graph " + st.Name})
}

// NormalGraphName checks a graph's name and returns it as the server
// keeps it (lower case).
func NormalGraphName(name string) (string, error) { return normalGraphName(name) }

// setQuota changes a graph's max_memory and max_disk (quiver.tenant.setQuota):
// the options given change, a null removes that quota, the others stay.
// The new memory budget applies to the next charge of every statement.
func (db *DB) setQuota(ctx context.Context, graph string, opts map[string]any) error {
	name, err := normalGraphName(graph)
	if err != nil {
		return noGraph(graph)
	}
	if name == DefaultGraph {
		return errs.DataCode(errs.CodeInvalidParam, "the default graph has no quota: its memory is the server's --max-memory")
	}
	gs := db.graphs
	gs.admin.Lock()
	defer gs.admin.Unlock()
	gs.mu.RLock()
	g, m := gs.open[name], gs.metas[name]
	gs.mu.RUnlock()
	if g == nil {
		return noGraph(graph)
	}
	for k, v := range opts {
		var out *int64
		switch k {
		case "max_memory":
			out = &m.MaxMemory
		case "max_disk":
			out = &m.MaxDisk
		default:
			return errs.DataCode(errs.CodeInvalidParam, "quiver.tenant.setQuota: unknown option %s (max_memory, max_disk)", truncateName(k))
		}
		if v == nil {
			*out = 0
			continue
		}
		n, err := graphSize(v)
		if err != nil || n <= 0 {
			return errs.DataCode(errs.CodeInvalidParam, "quiver.tenant.setQuota: %s must be a positive size in bytes, a string such as '2GB', or null for none", k)
		}
		*out = n
	}
	v, _ := json.Marshal(m)
	if err := db.SystemPut(ctx, []SystemRecord{{Key: graphRecordPrefix + name, Value: v}}); err != nil {
		return err
	}
	if b, pb := g.mem.Budget(), db.mem.Budget(); b != nil && pb != nil {
		limit := m.MaxMemory
		if limit <= 0 || limit > pb.Limit() {
			limit = pb.Limit()
		}
		b.SetLimit(limit)
	}
	g.quota.limit.Store(m.MaxDisk)
	gs.mu.Lock()
	gs.metas[name] = m
	gs.mu.Unlock()
	return nil
}
