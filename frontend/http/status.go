package http

import (
	"context"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/frontend/serving"
)

// ConnCounter is told of every connection a frontend admits (Opened) and
// of its end (Closed, once each): the server's metrics registry
// (frontend/metrics) implements it.
type ConnCounter interface {
	Opened()
	Closed()
}

// StatusSource gives GET /api/v1/status its live figures over every
// protocol: the server's metrics registry implements it.
type StatusSource interface {
	// QueriesPerSecond is the rate of statements that ended over the
	// last minute.
	QueriesPerSecond() float64
	// ActiveConnections is the number of client connections open now.
	ActiveConnections() int64
}

// Role is the replication role /api/v1/status reports for a single
// server; a member of a cluster reports its own (Config.Cluster).
const Role = "primary"

// role is the role status reports.
func (s *Server) role() string {
	if s.cfg.Cluster != nil {
		return s.cfg.Cluster.Role()
	}
	return Role
}

// appendClusterStatus writes a member's "cluster" object, beside the
// spec's status fields: its id, the leader's id and client address
// (null when unknown), its applied and known commit index, and the
// configuration's size.
func appendClusterStatus(b []byte, st serving.ClusterStatus) []byte {
	b = append(b, `,"cluster":{"member_id":`...)
	b = jsonio.AppendString(b, st.MemberID)
	b = append(b, `,"leader_id":`...)
	b = appendNullable(b, st.LeaderID)
	b = append(b, `,"leader_url":`...)
	b = appendNullable(b, st.LeaderURL)
	b = append(b, `,"applied_index":`...)
	b = jsonio.AppendInt(b, int64(st.Applied))
	b = append(b, `,"commit_index":`...)
	b = jsonio.AppendInt(b, int64(st.Commit))
	b = append(b, `,"members":`...)
	b = jsonio.AppendInt(b, int64(st.Members))
	return append(b, '}')
}

// handleStatus answers GET /api/v1/status: version, uptime, node id and
// role, the graph's counts, the query rate and open connections, and the
// data directory's storage (docs/operations.md, "Status").
func (s *Server) handleStatus(ctx *fasthttp.RequestCtx) {
	if e := s.requirePrivilege(ctx, engine.PrivRead, "read the server's status: that needs the read privilege (role reader, editor or admin)"); e != nil {
		s.writeError(ctx, e)
		return
	}
	counts := s.db.Counts()
	if g := ctx.QueryArgs().Peek("graph"); len(g) > 0 {
		// ?graph=name: that graph's counts, as the caller may see it.
		c, err := s.db.GraphCounts(withPrincipal(context.Background(), ctx), string(g))
		if err != nil {
			s.queryError(ctx, err, "")
			return
		}
		counts = c
	}
	var qps float64
	var active int64
	if s.cfg.Stats != nil {
		qps, active = s.cfg.Stats.QueriesPerSecond(), s.cfg.Stats.ActiveConnections()
	}
	st := s.storage.get(s.cfg.DataDir, time.Now())
	b := []byte(`{"version":`)
	b = jsonio.AppendString(b, s.cfg.Version)
	b = append(b, `,"uptime_seconds":`...)
	b = jsonio.AppendInt(b, int64(time.Since(s.start)/time.Second))
	b = append(b, `,"node_id":`...)
	b = jsonio.AppendString(b, s.cfg.NodeID)
	b = append(b, `,"role":`...)
	b = jsonio.AppendString(b, s.role())
	b = append(b, `,"statistics":{"total_nodes":`...)
	b = jsonio.AppendInt(b, counts.Nodes)
	b = append(b, `,"total_relationships":`...)
	b = jsonio.AppendInt(b, counts.Relationships)
	b = append(b, `,"queries_per_second":`...)
	b = jsonio.AppendFloat(b, float64(int64(qps*1000+0.5))/1000) // 3 decimals
	b = append(b, `,"active_connections":`...)
	b = jsonio.AppendInt(b, active)
	b = append(b, `},"storage":{"total_bytes":`...)
	b = jsonio.AppendInt(b, st.total)
	b = append(b, `,"used_bytes":`...)
	b = jsonio.AppendInt(b, st.used)
	b = append(b, `,"free_bytes":`...)
	b = jsonio.AppendInt(b, st.free)
	b = append(b, '}')
	if c := s.cfg.Cluster; c != nil {
		b = appendClusterStatus(b, c.Status())
	}
	b = append(b, '}')
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

// storageStats are /api/v1/status's storage figures. total and free are
// the size of the filesystem holding the data directory and the bytes on
// it the server's user may still write (statfs); used is the disk space
// the files under the data directory occupy (checkpoints, write-ahead
// log; allocated blocks, as du counts them). All are zero for a database
// without a data directory.
type storageStats struct {
	total, used, free int64
}

// storageCacheFor is how long measured storage figures are reused:
// walking a large data directory costs, and a status poller must not make
// the server do it many times a second.
const storageCacheFor = 2 * time.Second

// storageCache remembers the last measurement.
type storageCache struct {
	mu struct {
		sync.Mutex // protects the fields below
		at         time.Time
		dir        string
		stats      storageStats
	}
}

func (c *storageCache) get(dir string, now time.Time) storageStats {
	if dir == "" {
		return storageStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.dir == dir && !c.mu.at.IsZero() && now.Sub(c.mu.at) < storageCacheFor {
		return c.mu.stats
	}
	st := storageStats{used: dirBytes(dir)}
	st.total, st.free = filesystemBytes(dir)
	c.mu.at, c.mu.dir, c.mu.stats = now, dir, st
	return st
}

// dirBytes sums the disk space of the regular files under dir. Files
// that vanish while it walks (a checkpoint replacing its predecessor) are
// skipped.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable or gone: not counted
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += diskBytes(fi)
			}
		}
		return nil
	})
	return n
}
