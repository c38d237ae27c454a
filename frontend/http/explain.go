package http

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// handleExplain serves POST /api/v1/query/explain: the plan, never run.
func (s *Server) handleExplain(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "parameters", false, engine.ModeExplain, s.db.Run)
}

// handleProfile serves POST /api/v1/query/profile: the rows and the
// per-operator profile.
func (s *Server) handleProfile(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "parameters", false, engine.ModeProfile, s.db.Run)
}

// appendExplain writes the plan body (jsonio.AppendExplain, which the
// wire protocol's EXPLAIN message shares).
func appendExplain(b []byte, ex *engine.Explanation) []byte { return jsonio.AppendExplain(b, ex) }

// appendProfile writes {"total_time_ms":…,"operators":[…]}
// (jsonio.AppendProfile).
func appendProfile(b []byte, p *engine.Profile) []byte { return jsonio.AppendProfile(b, p) }

// millis is a duration in milliseconds with microsecond precision.
func millis(d time.Duration) float64 { return jsonio.Millis(d) }
