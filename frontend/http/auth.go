package http

import (
	"context"
	"errors"
	"math"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// Authentication of HTTP requests (docs/http-api.md, Authentication;
// docs/security.md). With Config.Auth on, every request presents
// credentials (X-API-Key, Authorization: Bearer, or HTTP Basic) except
// the few that cannot: the health probe, the API's OpenAPI document
// (it describes the API, not the data), the login and refresh
// endpoints (they carry their own credentials in the body), CORS
// preflights (browsers send them without credentials), and the change
// stream's upgrade (the WebSocket authenticates with its AUTH message).
//
// The credentials are checked before anything else, unknown paths
// included, so that an unauthenticated client learns nothing of the
// API but that it must authenticate. The principal they name is kept in
// the request (requestPrincipal) and goes into the context of every
// statement the request runs: the engine checks its privileges on each
// statement's plan and refuses with 42501 (403). A transaction belongs
// to the user who began it; anyone else is answered as for an unknown
// id.
//
// A refused credential answers 401 with WWW-Authenticate; one the login
// limiter refuses answers 429 with Retry-After, as the rate limit does.

// wwwAuthenticate is every 401's challenge (RFC 9110, 11.6.1).
const wwwAuthenticate = `Bearer realm="quiver"`

// authOpen are the paths that need no credentials (preflights aside).
var authOpen = map[string]bool{
	healthPath:             true,
	"/api/v1/auth/token":   true,
	"/api/v1/auth/refresh": true,
	"/api/v1/stream":       true,
	openAPIPath:            true,
}

// principalKey is the request's user value holding its principal.
type principalKey struct{}

// authOn reports whether requests must authenticate.
func (s *Server) authOn() bool { return s.cfg.Auth != nil && s.cfg.Auth.Enabled() }

// authenticate checks the request's credentials when authentication is
// on and the path needs them, and keeps the principal in the request. It
// returns nil and nil when no credentials are needed; the error to answer
// when they are refused.
func (s *Server) authenticate(ctx *fasthttp.RequestCtx) (*engine.Principal, *apiError) {
	if !s.authOn() || ctx.IsOptions() || authOpen[string(ctx.Path())] {
		return nil, nil
	}
	creds := auth.Credentials{
		APIKey:        string(ctx.Request.Header.Peek("X-API-Key")),
		Authorization: string(ctx.Request.Header.Peek("Authorization")),
		Address:       clientAddress(ctx),
		Protocol:      "http",
	}
	p, err := s.cfg.Auth.Authenticate(context.Background(), creds)
	if err != nil {
		return nil, s.authError(ctx, err)
	}
	if p == nil { // the Service says authentication is off after all
		return nil, nil
	}
	ctx.SetUserValue(principalKey{}, p)
	return p, nil
}

// requestPrincipal is the principal the request authenticated as; nil
// with authentication off or on a path that needs none.
func requestPrincipal(ctx *fasthttp.RequestCtx) *engine.Principal {
	p, _ := ctx.UserValue(principalKey{}).(*engine.Principal)
	return p
}

// withPrincipal is c carrying the request's principal, when it has one.
func withPrincipal(c context.Context, ctx *fasthttp.RequestCtx) context.Context {
	if p := requestPrincipal(ctx); p != nil {
		return engine.WithPrincipal(c, p)
	}
	return c
}

// clientAddress is the address the Service is told a request came from,
// for its per-address login limiter and the audit trail: the rate
// limit's (an IPv6 client's /64, since one host can pick any address of
// it), so that neither limit is escaped by changing addresses.
func clientAddress(ctx *fasthttp.RequestCtx) string {
	return principalOf(ctx, nil).addr.String()
}

// authError converts the Service's refusal: 401 for an 08001 (writeError
// adds the challenge), 429 for the login limiter, and as any engine
// error otherwise (a logout with the wrong scheme is a 400). An error
// that is not the engine's is internal: logged, and a 500.
func (s *Server) authError(ctx *fasthttp.RequestCtx, err error) *apiError {
	var limit *auth.LimitError
	if errors.As(err, &limit) {
		retry := int64(math.Ceil(limit.RetryAfter.Seconds()))
		retry = max(retry, 1)
		msg := limit.Message
		if msg == "" {
			msg = "too many failed authentication attempts"
		}
		return tooManyRequests(ctx, retry, msg)
	}
	return engineError(s.requestLog(ctx), err, "")
}

// requirePrivilege refuses, with 403 42501, a request whose principal
// lacks priv, and audits the refusal as the engine audits its own; with
// authentication off every request has every privilege. what completes
// "may not …".
func (s *Server) requirePrivilege(ctx *fasthttp.RequestCtx, priv engine.Privilege, what string) *apiError {
	p := requestPrincipal(ctx)
	if p == nil || p.Privileges.Has(priv) {
		return nil
	}
	if s.cfg.Auth != nil {
		s.cfg.Auth.Audit(engine.AuditEvent{Category: "authorization", Action: "permission_denied", Outcome: engine.OutcomeDenied,
			Principal: p.Name, Address: clientAddress(ctx), Detail: "http " + string(ctx.Path())})
	}
	return &apiError{status: 403, code: engine.CodePermission, category: engine.CatPermission,
		message: "permission denied: user " + p.Name + " may not " + what}
}

// ownedTransaction finds the open transaction id for the request's user:
// one another user began, open or ended, is answered exactly as an id
// that never existed (engine.DB.TransactionOf).
func (s *Server) ownedTransaction(ctx *fasthttp.RequestCtx, id string) (*engine.Transaction, error) {
	owner := ""
	if p := requestPrincipal(ctx); p != nil {
		owner = p.Name
	}
	return s.db.TransactionOf(id, owner)
}
