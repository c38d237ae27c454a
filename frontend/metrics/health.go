package metrics

import (
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/frontend/serving"
)

// SetHealth sets where GET /health reads the server's health from: the
// HTTP server's Health once the database is open, something that says
// starting before. Without it, the checks but connections say starting.
func (l *Listener) SetHealth(f func() serving.Health) { l.healthOf.Store(&f) }

// serverHealth is the server's health now.
func (l *Listener) serverHealth() serving.Health {
	if f := l.healthOf.Load(); f != nil {
		return (*f)()
	}
	return serving.Health{Uptime: time.Since(l.start), Storage: serving.CheckStarting,
		QueryEngine: serving.CheckStarting, Connections: serving.CheckHealthy}
}

// detailedHealth is the contract's second listener form of health.
type detailedHealth struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	// Uptime is a duration string, whole seconds ("1h2m3s").
	Uptime string `json:"uptime"`
	Checks struct {
		Storage     string `json:"storage"`
		QueryEngine string `json:"query_engine"`
		Connections string `json:"connections"`
	} `json:"checks"`
}

// health answers GET /health in one of the contract's two listener
// forms: {"status":"ok"} (or "degraded" while a check is), and, asked
// with ?verbose (as Kubernetes' own health endpoints take it), the
// detailed form with the version, the uptime and each check. Both are
// 200 whatever the checks say: the process answers, and /ready is the
// endpoint that says whether it should take traffic.
func (l *Listener) health(ctx *fasthttp.RequestCtx) {
	h := l.serverHealth()
	if !verbose(ctx) {
		status := "ok"
		if h.Status() == serving.CheckDegraded {
			status = serving.CheckDegraded
		}
		writeJSON(ctx, 200, `{"status":"`+status+`"}`)
		return
	}
	var d detailedHealth
	d.Status, d.Version, d.Uptime = h.Status(), h.Version, h.Uptime.Truncate(time.Second).String()
	d.Checks.Storage, d.Checks.QueryEngine, d.Checks.Connections = h.Storage, h.QueryEngine, h.Connections
	out, err := json.Marshal(d)
	if err != nil {
		panic("BUG: cannot encode the health: " + err.Error())
	}
	writeJSON(ctx, 200, string(out))
}

// verbose reports whether the request asks for the detailed form:
// ?verbose, with no value or any but false and 0.
func verbose(ctx *fasthttp.RequestCtx) bool {
	args := ctx.QueryArgs()
	if !args.Has("verbose") {
		return false
	}
	v := string(args.Peek("verbose"))
	return v != "false" && v != "0"
}
