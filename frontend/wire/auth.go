package wire

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// Authentication on the wire protocol (docs/wire-protocol.md,
// Authentication). With Config.Auth on, HELLO must carry auth: its
// credentials are checked once, and the principal they name is kept for
// the session. Before each statement (RUN_GQL, and so EXPLAIN and
// PROFILE) and each BEGIN the session asks the Service for the principal
// as it is now, so that a user dropped, a password changed, a token
// session logged out or an API key revoked ends a long-lived session at
// its next statement rather than at its end.

// helloAuth is HELLO's auth object: method says how password is meant.
type helloAuth struct {
	username, password, method string
}

// The methods HELLO.auth may name.
const (
	methodBasic  = "basic"   // username and password (the default)
	methodBearer = "bearer"  // an access token, in password
	methodAPIKey = "api_key" // an API key, in password
)

// codeRateLimit is the HTTP API's symbolic code of a refused attempt
// (429): the wire ERROR uses it too.
const codeRateLimit = "RATE_LIMIT_EXCEEDED"

// catResource is its category: the engine's for an exhausted resource.
const catResource = "RESOURCE_EXHAUSTED"

// authOn reports whether sessions must authenticate.
func (s *Server) authOn() bool { return s.cfg.Auth != nil && s.cfg.Auth.Enabled() }

// credentials turns HELLO.auth into the Service's credentials.
func (a *helloAuth) credentials(addr string) (auth.Credentials, *wireError) {
	c := auth.Credentials{Address: addr, Protocol: "wire"}
	switch a.method {
	case "", methodBasic:
		if a.username == "" {
			return c, authError("HELLO auth needs a username and a password (method basic)")
		}
		c.Username, c.Password = a.username, a.password
	case methodBearer:
		if a.password == "" {
			return c, authError("HELLO auth with method bearer carries the access token in password")
		}
		c.Authorization = "Bearer " + a.password
	case methodAPIKey:
		if a.password == "" {
			return c, authError("HELLO auth with method api_key carries the API key in password")
		}
		c.APIKey = a.password
	default:
		return c, authError("HELLO auth method %q is not one of basic, bearer and api_key", cut(a.method))
	}
	return c, nil
}

// authError is a fatal 08001: the connection closes after it.
func authError(format string, args ...any) *wireError {
	e := protocolError(true, format, args...)
	e.code, e.category = engine.CodeAuth, engine.CatAuth
	return e
}

// authenticate checks HELLO's credentials when authentication is on and
// keeps the principal; false when the session must end (the ERROR is
// queued). With authentication off, auth is not looked at.
func (s *session) authenticate(m *message) bool {
	if !s.srv.authOn() {
		return true
	}
	if m.auth == nil {
		s.auditRefused("wire HELLO without auth")
		s.sendError(authError("authentication is required: HELLO needs auth (username and password, or method bearer or api_key)"))
		return false
	}
	creds, werr := m.auth.credentials(s.remoteAddr())
	if werr != nil {
		s.auditRefused("wire HELLO with malformed auth")
		s.sendError(werr)
		return false
	}
	p, err := s.srv.cfg.Auth.Authenticate(s.ctx, creds)
	if err != nil {
		s.sendError(s.authFailure(err))
		return false
	}
	s.principal = s.withAddress(p)
	return true
}

// auditRefused records a HELLO refused before its credentials reached
// the Service, which audits the ones it checks.
func (s *session) auditRefused(detail string) {
	s.srv.cfg.Auth.Audit(engine.AuditEvent{Category: "authentication", Action: "authenticate", Outcome: engine.OutcomeFailure,
		Address: s.remoteAddr(), Detail: detail})
}

// authorize refreshes the session's principal before a statement or a
// BEGIN: its privileges as they are now. false ends the session (the
// ERROR is queued): its credentials were revoked.
func (s *session) authorize() bool {
	if s.principal == nil {
		return true // authentication is off
	}
	p, err := s.srv.cfg.Auth.Current(s.principal)
	if err != nil {
		s.sendError(s.authFailure(err))
		return false
	}
	s.principal = s.withAddress(p)
	return true
}

// withPrincipal is ctx carrying the session's principal, when it has one.
func (s *session) withPrincipal(ctx context.Context) context.Context {
	if s.principal == nil {
		return ctx
	}
	return engine.WithPrincipal(ctx, s.principal)
}

// withAddress makes sure p names this session's client.
func (s *session) withAddress(p *engine.Principal) *engine.Principal {
	if p == nil {
		return nil
	}
	if p.Address == "" {
		q := *p
		q.Address = s.remoteAddr()
		return &q
	}
	return p
}

// authFailure is the fatal ERROR of a refused credential: 08001, or the
// rate limit's code when the login limiter refused the attempt.
func (s *session) authFailure(err error) *wireError {
	var le *auth.LimitError
	if errors.As(err, &le) {
		e := protocolError(true, "%s", le.Message)
		e.code, e.category = codeRateLimit, catResource
		e.retryAfter = retrySeconds(le.RetryAfter)
		return e
	}
	if e, ok := engine.AsError(err); ok && e.Code == engine.CodeAuth {
		return authError("%s", e.Message)
	}
	// The Service answers 08001 or a LimitError; anything else is its
	// failure, logged, and the client is refused all the same.
	s.srv.log.Error("wire authentication failed", "error", err, "session_id", s.id)
	return authError("authentication failed")
}

// retrySeconds is a wait in whole seconds, at least 1.
func retrySeconds(d time.Duration) int64 {
	if d <= 0 {
		return 1
	}
	return int64(math.Ceil(d.Seconds()))
}

// remoteAddr is the client's address as the audit trail records it.
func (s *session) remoteAddr() string {
	if s.t.remote == nil {
		return ""
	}
	return s.t.remote.String()
}
