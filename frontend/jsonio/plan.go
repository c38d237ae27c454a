package jsonio

import (
	"time"

	"github.com/quiverdb/quiver/engine"
)

// The plan of an EXPLAIN and the measurements of a PROFILE, as every
// frontend writes them: the HTTP API's explain body and "profile" field,
// the wire protocol's EXPLAIN and PROFILE messages.

// AppendExplain writes {"plan":{…},"estimated_total_cost":…,
// "estimated_rows":…,"rules":[…]}: rules names the optimizer rules and
// passes that changed the plan.
func AppendExplain(b []byte, ex *engine.Explanation) []byte {
	b = append(b, `{"plan":`...)
	b = appendPlanNode(b, ex.Root)
	b = append(b, `,"estimated_total_cost":`...)
	b = AppendFloat(b, ex.TotalCost)
	b = append(b, `,"estimated_rows":`...)
	b = AppendFloat(b, ex.Rows)
	b = append(b, `,"rules":[`...)
	for i, r := range ex.Rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, r)
	}
	return append(b, "]}"...)
}

// appendPlanNode writes one operator and its children. Fields that do not
// apply to the operator (pattern, label, filter, index_used) are left out.
func appendPlanNode(b []byte, n *engine.PlanNode) []byte {
	b = append(b, `{"operator":`...)
	b = AppendString(b, n.Operator)
	b = append(b, `,"columns":`...)
	b = appendStrings(b, n.Columns)
	for _, f := range []struct{ key, val string }{
		{"details", n.Details}, {"pattern", n.Pattern}, {"label", n.Label},
		{"filter", n.Filter}, {"index_used", n.IndexUsed},
	} {
		if f.val != "" {
			b = append(b, ",\""+f.key+"\":"...)
			b = AppendString(b, f.val)
		}
	}
	b = append(b, `,"estimated_rows":`...)
	b = AppendFloat(b, n.EstimatedRows)
	b = append(b, `,"estimated_cost":`...)
	b = AppendFloat(b, n.EstimatedCost)
	b = append(b, `,"children":[`...)
	for i, c := range n.Children {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPlanNode(b, c)
	}
	return append(b, "]}"...)
}

// AppendProfile writes {"total_time_ms":…,"operators":[…]}.
func AppendProfile(b []byte, p *engine.Profile) []byte {
	b = append(b, `{"total_time_ms":`...)
	b = AppendFloat(b, Millis(p.TotalTime))
	b = append(b, `,"operators":[`...)
	for i, op := range p.Operators {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = AppendString(b, op.Name)
		b = append(b, `,"time_ms":`...)
		b = AppendFloat(b, Millis(op.Time))
		b = append(b, `,"rows_processed":`...)
		b = AppendInt(b, op.Rows)
		b = append(b, `,"db_hits":`...)
		b = AppendInt(b, op.DBHits)
		if op.Index != "" {
			b = append(b, `,"index":`...)
			b = AppendString(b, op.Index)
		}
		if len(op.Fallbacks) > 0 {
			b = append(b, `,"fallbacks":`...)
			b = appendStrings(b, op.Fallbacks)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendStrings writes a JSON array of strings.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// Millis is a duration in milliseconds with microsecond precision.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
