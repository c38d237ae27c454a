package auth

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// The authentication methods, as engine.Principal.Method and the audit
// trail name them.
const (
	methodBearer   = "bearer"
	methodAPIKey   = "api_key"
	methodBasic    = "basic"
	methodPassword = "password"
)

// maxCredential bounds every presented credential: longer values are
// refused before any parsing.
const maxCredential = 8 << 10

// Authenticate says who a request is. With authentication off it returns
// (nil, nil): no principal, every privilege. Otherwise it returns the
// principal of the first scheme present (Credentials lists the order), or
// an 08001 error, or a *LimitError.
func (s *Service) Authenticate(ctx context.Context, c Credentials) (*engine.Principal, error) {
	if !s.Enabled() {
		return nil, nil
	}
	if len(c.APIKey) > maxCredential || len(c.Authorization) > maxCredential || len(c.Username) > maxCredential || len(c.Password) > maxCredential {
		return nil, s.authFailure(c, "", "credentials longer than 8 KiB", errAuth("the credentials are too long (over 8 KiB)"))
	}
	switch {
	case c.APIKey != "":
		return s.apiKey(c)
	case c.Authorization != "":
		scheme, rest, _ := strings.Cut(strings.TrimSpace(c.Authorization), " ")
		rest = strings.TrimSpace(rest)
		switch {
		case strings.EqualFold(scheme, "Bearer"):
			if rest == "" {
				return nil, s.authFailure(c, methodBearer, "malformed Authorization header", errAuth("the Authorization header's Bearer scheme has no token"))
			}
			return s.bearer(ctx, c, rest)
		case strings.EqualFold(scheme, "Basic"):
			user, pw, err := parseBasic(rest)
			if err != nil {
				return nil, s.authFailure(c, methodBasic, "malformed Authorization header", err)
			}
			return s.password(ctx, c, methodBasic, user, pw)
		default:
			return nil, s.authFailure(c, "", "unsupported Authorization scheme",
				errAuth("unsupported Authorization scheme %q: send Bearer <token> or Basic <base64 of user:password>", sanitize(scheme)))
		}
	case c.Username != "" || c.Password != "":
		return s.password(ctx, c, methodPassword, c.Username, c.Password)
	}
	return nil, s.authFailure(c, "", "no credentials",
		errAuth("authentication required: send Authorization: Bearer <token>, X-API-Key or HTTP Basic"))
}

// parseBasic decodes the credentials of "Basic <base64 of user:password>".
func parseBasic(v string) (user, pw string, err error) {
	if v == "" {
		return "", "", errAuth("the Authorization header's Basic scheme has no credentials")
	}
	raw, derr := base64.StdEncoding.DecodeString(v)
	if derr != nil {
		return "", "", errAuth("the Authorization header's Basic credentials are not valid base64")
	}
	user, pw, ok := strings.Cut(string(raw), ":")
	if !ok || user == "" {
		return "", "", errAuth("the Authorization header's Basic credentials are not of the form user:password")
	}
	return user, pw, nil
}

// authFailure audits a refused per-request credential and returns err.
func (s *Service) authFailure(c Credentials, method, why string, err error) error {
	detail := why
	if method != "" {
		detail = method + ": " + why
	}
	if c.Protocol != "" {
		detail += " (" + c.Protocol + ")"
	}
	s.audit("authentication", "authenticate", engine.OutcomeFailure, "", c.Address, detail)
	return err
}

// bearer checks an access token: its signature and times, then that its
// user, password generation and session are still there.
func (s *Service) bearer(ctx context.Context, c Credentials, tok string) (*engine.Principal, error) {
	claims, ok := s.tokens.get(tok, s.now())
	if !ok {
		full, err := s.parseAccess(tok)
		if err != nil {
			e, _ := engine.AsError(err)
			return nil, s.authFailure(c, methodBearer, e.Message, err)
		}
		claims = cachedClaims{user: full.Subject, sid: full.Sid, gen: full.Gen, bm: full.Bm, exp: full.ExpiresAt.Time}
		s.tokens.put(tok, claims)
	}
	u, ss := s.tokenState(claims)
	if u == nil && ss == nil && claims.bm > s.cfg.DB.AppliedIndex() {
		// Issued by another member a moment ago: its session is not
		// applied here yet (follow.go).
		u, ss = s.awaitSession(ctx, claims)
	}
	if u == nil || ss == nil {
		return nil, s.authFailure(c, methodBearer, "revoked access token",
			errAuth("the access token has been revoked; log in again"))
	}
	// Successes are not audited: a bearer token is checked on every
	// request and would flood the trail (the login that issued it is).
	return principal(u, methodBearer, c.Address, ss.id, genCredential(u.Gen)), nil
}

// password checks HTTP Basic or a password login (HELLO.auth).
func (s *Service) password(ctx context.Context, c Credentials, method, user, pw string) (*engine.Principal, error) {
	u, fresh, locks, err := s.verifyPassword(ctx, user, pw, c.Address)
	if err != nil {
		if limited(err) {
			s.audit("authentication", "rate_limited", engine.OutcomeDenied, "", c.Address, limitDetail("user "+sanitize(user)+" ("+method+")", err))
			return nil, err
		}
		err = s.authFailure(c, method, "invalid user name or password for user "+sanitize(user), err)
		s.auditLocks(c.Address, locks)
		return nil, err
	}
	if fresh {
		s.audit("authentication", "authenticate", engine.OutcomeSuccess, u.Name, c.Address, method)
	}
	return principal(u, method, c.Address, "", genCredential(u.Gen)), nil
}
