package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Service is the server's authentication: it answers who a request is,
// issues and checks tokens and API keys, and keeps users durable in the
// database's system records. It is safe for concurrent use.
type Service struct {
	cfg     Config
	log     *slog.Logger
	hash    *hasher
	limiter *limiter
	cache   *basicCache
	tokens  *tokenCache
	// stopWatch and stopLead end the watches follow started.
	stopWatch, stopLead func()
	// changed wakes the tokens waiting for their session (follow.go).
	changed struct {
		sync.Mutex // protects c
		c          chan struct{}
	}

	// write serialises the read-modify-write of the records on this
	// member: a change is computed from the index, made durable, then
	// read back (reload).
	write sync.Mutex
	mu    struct {
		sync.RWMutex // protects ix (and its sessions' fields); held only to read or apply, never across I/O
		ix           *index
	}
}

// Defaults of Config.
const (
	defaultAccessTTL  = time.Hour
	defaultRefreshTTL = 7 * 24 * time.Hour
)

// Open loads the users, keys and sessions of cfg.DB and follows their
// changes. On a database that takes writes (a single server, or a
// cluster's leader) it creates the token signing key on first use and,
// with authentication on and no user yet, the admin user; a cluster
// member does so each time it starts to lead (follow.go).
func Open(cfg Config) (*Service, error) {
	if cfg.DB == nil {
		return nil, errors.New("auth: Config.DB is required")
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = defaultAccessTTL
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = defaultRefreshTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.hash, err = newHasher(cfg.Hash); err != nil {
		return nil, err
	}
	s.limiter = newLimiter()
	s.cache = newBasicCache()
	s.tokens = newTokenCache()
	// The watch starts before the records are read, under mu: a commit
	// applied meanwhile waits for mu, then reads its keys again.
	s.mu.Lock()
	s.follow()
	s.mu.ix, err = load(cfg.DB)
	s.mu.Unlock()
	if err != nil {
		s.Close()
		return nil, err
	}
	if err := s.registerProcedures(); err != nil {
		s.Close()
		return nil, err
	}
	if cfg.DB.Writable() == nil {
		if err := s.ensure(context.Background()); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Enabled reports whether authentication is required.
func (s *Service) Enabled() bool { return s.cfg.Enabled }

// Audit appends e to the audit trail (the Service is the frontends' and
// the engine's engine.Auditor).
func (s *Service) Audit(e engine.AuditEvent) {
	if s.cfg.Audit != nil {
		s.cfg.Audit.Audit(e)
	}
}

// Close stops following the database's records; the records live in
// the database, which its owner closes.
func (s *Service) Close() error {
	s.stopWatch()
	s.stopLead()
	return nil
}

func (s *Service) now() time.Time { return s.cfg.Now() }

// audit records one event of the Service's own.
func (s *Service) audit(category, action, outcome, principal, addr, detail string) {
	s.Audit(engine.AuditEvent{Category: category, Action: action, Outcome: outcome,
		Principal: principal, Address: addr, Detail: detail})
}

// errAuth is an 08001 AUTH_FAILED error.
func errAuth(format string, args ...any) error {
	return engine.NewError(engine.CodeAuth, engine.CatAuth, format, args...)
}

// Status codes package engine does not name, spelled as package errs
// does.
const (
	codeInvalidParam = "22023"
	codeExists       = "42S01"
	catExists        = "OBJECT_EXISTS"
	codeNoObject     = "42S02"
	catNoObject      = "OBJECT_NOT_FOUND"
)

func invalidParam(format string, args ...any) error {
	return engine.NewError(codeInvalidParam, engine.CatData, format, args...)
}

// errWrongPassword is the one answer to a failed password check: it does
// not say whether the user exists.
func errWrongPassword() error { return errAuth("invalid user name or password") }

// internal wraps a failure that is not the caller's (storage) in the
// shape the frontends map.
func internal(err error) error {
	if _, ok := engine.AsError(err); ok {
		return err
	}
	return engine.NewError(engine.CodeTransaction, engine.CatTransaction, "%v", fmt.Errorf("auth: %w", err))
}
