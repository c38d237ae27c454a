package http

import (
	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// MetricsContentType is the media type of the text exposition (format
// 0.0.4) GET /api/v1/metrics answers with.
const MetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// handleMetrics answers GET /api/v1/metrics with the same exposition as
// the metrics listener's GET /metrics: Config.Metrics writes it (the
// registry of frontend/metrics, which this package does not import).
func (s *Server) handleMetrics(ctx *fasthttp.RequestCtx) {
	if e := s.requirePrivilege(ctx, engine.PrivRead, "read the server's metrics: that needs the read privilege (role reader, editor or admin)"); e != nil {
		s.writeError(ctx, e)
		return
	}
	if s.cfg.Metrics == nil {
		s.writeError(ctx, &apiError{status: 404, code: engine.CodeNotFound, category: engine.CatNotFound,
			message: "this server keeps no metrics"})
		return
	}
	ctx.SetContentType(MetricsContentType)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	s.cfg.Metrics(ctx)
}
