package http

import (
	"github.com/quiverdb/quiver/frontend/jsonio"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
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

// appendExplain writes {"plan":{…},"estimated_total_cost":…,
// "estimated_rows":…,"rules":[…]}: rules names the optimizer rules and
// passes that changed the plan.
func appendExplain(b []byte, ex *engine.Explanation) []byte {
	b = append(b, `{"plan":`...)
	b = appendPlanNode(b, ex.Root)
	b = append(b, `,"estimated_total_cost":`...)
	b = jsonio.AppendFloat(b, ex.TotalCost)
	b = append(b, `,"estimated_rows":`...)
	b = jsonio.AppendFloat(b, ex.Rows)
	b = append(b, `,"rules":[`...)
	for i, r := range ex.Rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, r)
	}
	return append(b, "]}"...)
}

// appendPlanNode writes one operator and its children. Fields that do not
// apply to the operator (pattern, label, filter, index_used) are left out.
func appendPlanNode(b []byte, n *engine.PlanNode) []byte {
	b = append(b, `{"operator":`...)
	b = jsonio.AppendString(b, n.Operator)
	b = append(b, `,"columns":[`...)
	for i, c := range n.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, c)
	}
	b = append(b, ']')
	for _, f := range []struct{ key, val string }{
		{"details", n.Details}, {"pattern", n.Pattern}, {"label", n.Label},
		{"filter", n.Filter}, {"index_used", n.IndexUsed},
	} {
		if f.val != "" {
			b = append(b, ",\""+f.key+"\":"...)
			b = jsonio.AppendString(b, f.val)
		}
	}
	b = append(b, `,"estimated_rows":`...)
	b = jsonio.AppendFloat(b, n.EstimatedRows)
	b = append(b, `,"estimated_cost":`...)
	b = jsonio.AppendFloat(b, n.EstimatedCost)
	b = append(b, `,"children":[`...)
	for i, c := range n.Children {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPlanNode(b, c)
	}
	return append(b, "]}"...)
}

// appendProfile writes {"total_time_ms":…,"operators":[…]}.
func appendProfile(b []byte, p *engine.Profile) []byte {
	b = append(b, `{"total_time_ms":`...)
	b = jsonio.AppendFloat(b, millis(p.TotalTime))
	b = append(b, `,"operators":[`...)
	for i, op := range p.Operators {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonio.AppendString(b, op.Name)
		b = append(b, `,"time_ms":`...)
		b = jsonio.AppendFloat(b, millis(op.Time))
		b = append(b, `,"rows_processed":`...)
		b = jsonio.AppendInt(b, op.Rows)
		b = append(b, `,"db_hits":`...)
		b = jsonio.AppendInt(b, op.DBHits)
		if op.Index != "" {
			b = append(b, `,"index":`...)
			b = jsonio.AppendString(b, op.Index)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// millis is a duration in milliseconds with microsecond precision.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
