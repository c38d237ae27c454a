package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/quiverdb/quiver/engine"
)

const bootstrapAdmin = "admin"

// bootstrap creates the admin user when there is no user at all: with
// cfg.AdminPassword, or with a generated password written once to
// cfg.BootstrapOut, since it exists nowhere else. It runs where the
// records are written (a single server at its first start, a cluster's
// leader), and the user is stored by a conditional put, so that it is
// made once for the whole cluster: a leader that finds a user made by
// an earlier one, or loses the race to one, makes none.
func (s *Service) bootstrap(ctx context.Context) error {
	s.mu.RLock()
	n := len(s.mu.ix.users)
	s.mu.RUnlock()
	if n > 0 {
		return nil
	}
	pw, generated := s.cfg.AdminPassword, false
	if pw == "" {
		b := make([]byte, 20)
		_, _ = rand.Read(b)
		pw, generated = base64.RawURLEncoding.EncodeToString(b), true
	}
	created, err := s.createFirstUser(ctx, bootstrapAdmin, pw, []string{"admin"})
	if err != nil {
		if e, ok := engine.AsError(err); ok && e.Code == codeInvalidParam {
			return fmt.Errorf("auth: cannot create the admin user from QUIVER_ADMIN_PASSWORD: %s", e.Message)
		}
		return fmt.Errorf("auth: cannot create the admin user: %w", err)
	}
	if !created {
		return nil // another member made the first user
	}
	detail := "created the admin user: authentication on and no user yet (password from QUIVER_ADMIN_PASSWORD)"
	if generated {
		detail = "created the admin user: authentication on and no user yet (generated password)"
		if s.cfg.BootstrapOut != nil {
			_, err := fmt.Fprintf(s.cfg.BootstrapOut, "created the admin user %q with password %s; change it with CALL dbms.security.changePassword\n", bootstrapAdmin, pw)
			if err != nil {
				return fmt.Errorf("auth: cannot print the admin password: %w", err)
			}
		} else {
			s.log.Warn("auth: created the admin user with a generated password, but there is nowhere to print it; set QUIVER_ADMIN_PASSWORD or reset it")
		}
	}
	if !generated {
		s.log.Info("auth: created the admin user with the password in QUIVER_ADMIN_PASSWORD", "user", bootstrapAdmin)
	}
	s.audit("user_management", "create_user", engine.OutcomeSuccess, "", "", "user "+bootstrapAdmin+" roles admin; "+detail)
	return nil
}
