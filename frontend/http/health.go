package http

import (
	"os"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/frontend/serving"
)

// minFreeBytes is the free space below which the data directory's
// filesystem counts as full: less than one log segment's growth, so the
// next commits or checkpoint would fail for want of room.
const minFreeBytes = 1 << 20

// Health is the server's health (serving.Health): the database is open
// (this server exists once it is), the data directory is reachable and
// its filesystem has room, and no connection ceiling was reached within
// the Saturation's window. The metrics listener reports it in the
// contract's detailed form; GET /api/v1/health in its own.
func (s *Server) Health() serving.Health {
	h := serving.Health{Version: s.cfg.Version, Uptime: time.Since(s.start),
		Storage: serving.CheckHealthy, QueryEngine: serving.CheckHealthy, Connections: serving.CheckHealthy}
	s.db.Counts() // the database answers
	if !storageWritable(s.cfg.DataDir) {
		h.Storage = serving.CheckDegraded
	}
	if s.sat.Saturated() {
		h.Connections = serving.CheckDegraded
	}
	return h
}

// storageWritable reports whether the data directory is there and its
// filesystem has room (one stat and one statfs: a probe may call it every
// second). A database in memory always has room; a filesystem whose size
// this platform cannot tell is taken to have it.
func storageWritable(dir string) bool {
	if dir == "" {
		return true
	}
	if _, err := os.Stat(dir); err != nil {
		return false
	}
	total, free := filesystemBytes(dir)
	return total == 0 || free >= minFreeBytes
}

func (s *Server) handleHealth(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("application/json")
	ctx.SetBody(s.healthBody())
}

// healthBody is GET /api/v1/health's answer, the contract's API form:
// status "healthy", or "degraded" while a check is; the checks database,
// storage and replication, "ok" or "degraded", and connections beside
// them. The status code is 200 either way: the server answers, and a
// probe that restarted it for a flood of connections would finish the
// attacker's work. The listener serves it too when the connection
// ceilings are reached (limit.go).
func (s *Server) healthBody() []byte {
	h := s.Health()
	status := "healthy"
	if h.Status() != serving.CheckHealthy {
		status = h.Status()
	} else if s.replicationCheck() != "ok" {
		status = serving.CheckDegraded
	}
	b := []byte(`{"status":`)
	b = jsonio.AppendString(b, status)
	b = append(b, `,"version":`...)
	b = jsonio.AppendString(b, s.cfg.Version)
	b = append(b, `,"uptime_seconds":`...)
	b = jsonio.AppendInt(b, int64(h.Uptime/time.Second))
	b = append(b, `,"checks":{"database":"ok","storage":`...)
	b = jsonio.AppendString(b, apiCheck(h.Storage))
	b = append(b, `,"replication":`...)
	b = jsonio.AppendString(b, s.replicationCheck())
	b = append(b, `,"connections":`...)
	b = jsonio.AppendString(b, apiCheck(h.Connections))
	return append(b, `}}`...)
}

// apiCheck spells a check as the API form does: "ok" for healthy.
func apiCheck(c string) string {
	if c == serving.CheckHealthy {
		return "ok"
	}
	return c
}

// replicationCheck is checks.replication: "ok" for a single server (a
// primary's replication needs nothing to be healthy); for a member of a
// cluster "ok" when a leader is known and this member is caught up, else
// no_leader, lagging or failed (serving.Cluster.Replication).
func (s *Server) replicationCheck() string {
	if s.cfg.Cluster == nil {
		return "ok"
	}
	return s.cfg.Cluster.Replication()
}
