package http

import (
	"mime"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// Cross-site protection. A web page the user opens can send requests to a
// server on the user's machine; without these checks it could write to a
// local Quiver (CSRF), and after pointing its own host name at 127.0.0.1
// it could read from it too (DNS rebinding). Three rules close that:
//
//   - a POST must carry Content-Type: application/json (415 otherwise).
//     Browsers send that type cross-origin only after a CORS preflight,
//     which the next rule answers. A POST without a body to an endpoint
//     whose body is optional (transaction begin, commit, rollback) has
//     nothing to declare; the origin rule still applies to it;
//   - while authentication is off, a request or preflight with an Origin
//     outside the allow-list is refused with 403: by default the list
//     holds loopback origins and the server's own; Config.AllowedOrigins
//     adds more. With authentication on, credentials protect the API and
//     the contract's CORS applies: any origin is echoed;
//   - while the server listens on loopback only, a Host header must name
//     a loopback host (403 otherwise): a rebound name is not one.
//
// Clients that are not browsers send no Origin and a loopback Host, and
// see none of this.

// originPolicy decides which origins may call the API.
type originPolicy struct {
	any     bool // "*" or authentication on: every origin is echoed
	allowed []string
}

func newOriginPolicy(allowed []string, auth bool) originPolicy {
	p := originPolicy{any: auth}
	for _, o := range allowed {
		o = strings.TrimRight(strings.ToLower(strings.TrimSpace(o)), "/")
		switch o {
		case "":
		case "*":
			p.any = true
		default:
			p.allowed = append(p.allowed, o)
		}
	}
	return p
}

// allows reports whether a request with this Origin may run. host is the
// request's Host header: a page of the server's own origin calls itself.
func (p originPolicy) allows(origin, host string) bool {
	if p.any {
		return true
	}
	o := strings.ToLower(origin)
	if slices.Contains(p.allowed, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return isLoopbackHost(u.Hostname()) || strings.EqualFold(u.Host, host)
}

// isLoopbackHost reports whether a host name or address stands for this
// machine's loopback interface.
func isLoopbackHost(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// checkOrigin refuses a request or preflight from a web origin the
// policy does not allow, and marks an allowed cross-origin response.
func (s *Server) checkOrigin(ctx *fasthttp.RequestCtx) *apiError {
	origin := string(ctx.Request.Header.Peek("Origin"))
	if origin == "" {
		return nil
	}
	if !s.origins.allows(origin, string(ctx.Host())) {
		return &apiError{status: 403, code: engine.CodePermission, category: engine.CatPermission,
			message: "requests from the web origin " + origin + " are not allowed; the server's operator can allow it with --allowed-origins"}
	}
	ctx.Response.Header.Set("Access-Control-Allow-Origin", origin)
	ctx.Response.Header.Add("Vary", "Origin")
	// A page's script reads only the headers it is told it may.
	ctx.Response.Header.Set("Access-Control-Expose-Headers", exposedHeaders)
	return nil
}

// exposedHeaders are the response headers a page of an allowed origin may
// read: the rate limit's, the trace's and a 401's challenge.
const exposedHeaders = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, traceparent, WWW-Authenticate, Quiver-Bookmark, Location"

// checkHost refuses a request whose Host names another machine while
// the server listens on loopback only: DNS rebinding.
func (s *Server) checkHost(ctx *fasthttp.RequestCtx) *apiError {
	if !s.loopback.Load() {
		return nil
	}
	host := string(ctx.Host())
	if host == "" {
		return nil // HTTP/1.0 without Host: not a browser's request
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	if isLoopbackHost(name) {
		return nil
	}
	return &apiError{status: 403, code: engine.CodePermission, category: engine.CatPermission,
		message: "the server listens on loopback and answers only requests for a loopback host, not " + host}
}

// preflight answers a CORS preflight (OPTIONS); the origin was checked
// already. Any path under /api/v1/ is answered, as the contract says, so
// that a page learns of a missing endpoint from its 404 rather than from
// a failed preflight; Allow names the methods of a known one.
func (s *Server) preflight(ctx *fasthttp.RequestCtx, path string) {
	r, ok := lookupRoute(path)
	if !ok && !strings.HasPrefix(path, apiPrefix) {
		s.writeError(ctx, &apiError{status: 404, code: engine.CodeNotFound, category: engine.CatNotFound, message: "no endpoint " + path})
		return
	}
	h := &ctx.Response.Header
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	h.Set("Access-Control-Max-Age", "86400")
	if ok {
		h.Set("Allow", r.method+", OPTIONS")
	}
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}

// apiPrefix starts every path of the versioned API.
const apiPrefix = "/api/v1/"

// checkJSONBody refuses a POST whose body is not declared JSON.
func checkJSONBody(ctx *fasthttp.RequestCtx) *apiError {
	ct := string(ctx.Request.Header.ContentType())
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	shown := ct
	if shown == "" {
		shown = "none"
	}
	return &apiError{status: 415, code: engine.CodeData, category: engine.CatData,
		message: "the request body must be JSON with Content-Type: application/json (got " + shown + ")"}
}
