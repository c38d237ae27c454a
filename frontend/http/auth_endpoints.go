package http

import (
	"bytes"
	"context"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// The token endpoints (docs/http-api.md, Authentication):
//
//	POST /api/v1/auth/token    {"username","password"} → tokens
//	POST /api/v1/auth/refresh  {"refresh_token"}       → tokens, the refresh token rotated
//	POST /api/v1/auth/logout   (Authorization: Bearer) → {"logged_out":true}
//
// where tokens is {"access_token","token_type":"Bearer","expires_in",
// "refresh_token"}. The first two need no credentials in headers: the
// body is the credential, and the Service's login limiter (429) guards
// them. Logout ends the bearer token's session, so its access and
// refresh tokens stop working at once. Neither a password nor a token is
// ever logged or echoed in an error; token answers are marked
// Cache-Control: no-store (RFC 6749, 5.1).

// catNotSupported is errs.CatNotSupported, the category of 0A000 (the
// engine does not re-export it).
const catNotSupported = "FEATURE_NOT_SUPPORTED"

// authOffError answers the token endpoints while authentication is off:
// there is nothing to log in to.
func authOffError() *apiError {
	return &apiError{status: statusOf(engine.CodeNotSupported), code: engine.CodeNotSupported, category: catNotSupported,
		message: "authentication is off: start the server with --auth-enabled"}
}

// handleToken serves POST /api/v1/auth/token: a password login.
func (s *Server) handleToken(ctx *fasthttp.RequestCtx) {
	if !s.authOn() {
		s.writeError(ctx, authOffError())
		return
	}
	obj, e := decodeRequiredObject(ctx.PostBody(), `with "username" and "password" fields`)
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	user, e := requiredString(obj, "username")
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	password, e := requiredString(obj, "password")
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	toks, _, err := s.cfg.Auth.Login(context.Background(), user, password, clientAddress(ctx))
	if err != nil {
		s.writeError(ctx, s.authError(ctx, err))
		return
	}
	writeTokens(ctx, toks)
}

// handleRefresh serves POST /api/v1/auth/refresh: a refresh token for a
// new pair. A refresh token works once; presenting a used one again ends
// its session (the Service's replay rule).
func (s *Server) handleRefresh(ctx *fasthttp.RequestCtx) {
	if !s.authOn() {
		s.writeError(ctx, authOffError())
		return
	}
	obj, e := decodeRequiredObject(ctx.PostBody(), `with a "refresh_token" field`)
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	tok, e := requiredString(obj, "refresh_token")
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	toks, err := s.cfg.Auth.Refresh(context.Background(), tok, clientAddress(ctx))
	if err != nil {
		s.writeError(ctx, s.authError(ctx, err))
		return
	}
	writeTokens(ctx, toks)
}

// handleLogout serves POST /api/v1/auth/logout: it ends the session of
// the request's bearer token (authenticated in auth.go). Any other
// scheme has no session to end: the Service answers 22023 (400). The
// body may be left out.
func (s *Server) handleLogout(ctx *fasthttp.RequestCtx) {
	if !s.authOn() {
		s.writeError(ctx, authOffError())
		return
	}
	if _, e := decodeOptionalObject(ctx.PostBody()); e != nil {
		s.writeError(ctx, e)
		return
	}
	if err := s.cfg.Auth.Logout(context.Background(), requestPrincipal(ctx)); err != nil {
		s.writeError(ctx, s.authError(ctx, err))
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"logged_out":true}`)
}

// writeTokens answers a login or a refresh.
func writeTokens(ctx *fasthttp.RequestCtx, t auth.Tokens) {
	b := append([]byte(nil), `{"access_token":`...)
	b = jsonio.AppendString(b, t.AccessToken)
	b = append(b, `,"token_type":`...)
	b = jsonio.AppendString(b, t.TokenType)
	b = append(b, `,"expires_in":`...)
	b = jsonio.AppendInt(b, t.ExpiresIn)
	b = append(b, `,"refresh_token":`...)
	b = jsonio.AppendString(b, t.RefreshToken)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.Set("Pragma", "no-cache")
	ctx.SetContentType("application/json")
	ctx.SetBody(append(b, '}'))
}

// decodeRequiredObject decodes a body that must hold one JSON object;
// what completes the message of one that does not.
func decodeRequiredObject(body []byte, what string) (map[string]any, *apiError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("the request body is empty; send a JSON object " + what)
	}
	return decodeObject(body, what)
}

// requiredString reads a string field that must be present and not
// empty. The message names the field, never its value: it may be a
// password or a token.
func requiredString(obj map[string]any, key string) (string, *apiError) {
	v, present := obj[key]
	if !present || v == nil {
		return "", badRequest("the request has no \"" + key + "\" field")
	}
	str, ok := v.(string)
	if !ok {
		return "", badRequest("\"" + key + "\" must be a string")
	}
	if str == "" {
		return "", badRequest("\"" + key + "\" is empty")
	}
	return str, nil
}
