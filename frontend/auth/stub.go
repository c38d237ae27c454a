package auth

// TEMPORARY: the auth helper replaces this file with the real Service.

import (
	"context"
	"errors"

	"github.com/quiverdb/quiver/engine"
)

type Service struct{ cfg Config }

func Open(cfg Config) (*Service, error) { return &Service{cfg: cfg}, nil }
func (s *Service) Enabled() bool        { return s.cfg.Enabled }
func (s *Service) Authenticate(ctx context.Context, c Credentials) (*engine.Principal, error) {
	return nil, errors.New("unimplemented")
}
func (s *Service) Login(ctx context.Context, username, password, addr string) (Tokens, *engine.Principal, error) {
	return Tokens{}, nil, errors.New("unimplemented")
}
func (s *Service) Refresh(ctx context.Context, refreshToken, addr string) (Tokens, error) {
	return Tokens{}, errors.New("unimplemented")
}
func (s *Service) Logout(ctx context.Context, p *engine.Principal) error { return nil }
func (s *Service) Audit(e engine.AuditEvent)                             {}
func (s *Service) Close() error                                          { return nil }
