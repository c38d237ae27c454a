package auth

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Config configures the Service.
type Config struct {
	DB *engine.DB
	// Audit is the audit trail the Service appends its events to
	// (OpenAuditLog); nil keeps none.
	Audit *AuditLog
	// Enabled says authentication is required (--auth-enabled). When it
	// is off the Service still keeps users and the audit trail, so users
	// can be prepared before authentication is turned on, but no admin is
	// created at start.
	Enabled bool
	// AdminPassword is the password of the admin created at the first
	// start with authentication on (QUIVER_ADMIN_PASSWORD); empty makes
	// one up and writes it once to BootstrapOut.
	AdminPassword string
	BootstrapOut  io.Writer
	// AccessTTL is the access tokens' lifetime (default 1 hour),
	// RefreshTTL the refresh tokens' (default 7 days).
	AccessTTL, RefreshTTL time.Duration
	// Hash is the argon2id cost of new password hashes; the zero value is
	// DefaultHash. Stored hashes keep the cost they were made with.
	Hash HashParams
	// Now is the clock (tests move it); nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// HashParams is argon2id's cost: memory in KiB, passes, lanes.
type HashParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// Tokens is what a login or a refresh returns (POST /api/v1/auth/token).
type Tokens struct {
	AccessToken  string
	TokenType    string // "Bearer"
	ExpiresIn    int64  // seconds
	RefreshToken string
}

// LimitError is returned when the login limiter refuses an attempt:
// frontends answer 429 RATE_LIMIT_EXCEEDED with RetryAfter.
type LimitError struct {
	RetryAfter time.Duration
	Message    string
	// scope says which of the limiter's locks refused, for the audit
	// trail ("for this user name from this address").
	scope string
}

func (e *LimitError) Error() string { return e.Message }

// Credentials are what a request presented. One scheme is used, the
// first present in this order: APIKey (X-API-Key), Authorization (the
// header's whole value: "Bearer …" or "Basic …"), Username and Password
// (a password login, as the wire protocol's HELLO.auth sends).
type Credentials struct {
	APIKey             string
	Authorization      string
	Username, Password string
	Address            string // client address, for the limiter and the audit trail
	Protocol           string // http, wire, stream, metrics: for the audit trail
}

// The Service's methods the frontends use. Every error is an
// *engine.Error with code 08001 (AUTH_FAILED) or a *LimitError, except
// where said.
//
//	func Open(cfg Config) (*Service, error)
//	func (s *Service) Enabled() bool
//	func (s *Service) Authenticate(ctx context.Context, c Credentials) (*engine.Principal, error)
//	// Login starts a token session; its principal has Method "password"
//	// and Session the new session.
//	func (s *Service) Login(ctx context.Context, username, password, addr string) (Tokens, *engine.Principal, error)
//	func (s *Service) Refresh(ctx context.Context, refreshToken, addr string) (Tokens, error)
//	// Logout ends p's token session; a p not from a bearer token is a
//	// 22023 error.
//	func (s *Service) Logout(ctx context.Context, p *engine.Principal) error
//	// Current re-reads p's user: its roles and privileges as they are now,
//	// or 08001 when the user, its password generation, its API key or its
//	// token session is gone (long-lived wire and stream sessions call it
//	// before each statement or subscription). Current(nil) is (nil, nil).
//	func (s *Service) Current(p *engine.Principal) (*engine.Principal, error)
//	func (s *Service) Audit(e engine.AuditEvent)   // engine.Auditor
//	func (s *Service) Close() error
//
// Open also registers the dbms.security procedures on Config.DB
// (procedures.go).
var _ = context.Background
