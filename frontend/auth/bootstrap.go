package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/quiverdb/quiver/engine"
)

const bootstrapAdmin = "admin"

// bootstrap creates the admin user at the first start with authentication
// on (no user at all): with cfg.AdminPassword, or with a generated
// password written once to cfg.BootstrapOut, since it exists nowhere else.
func (s *Service) bootstrap() error {
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
	if _, err := s.createUser(context.Background(), bootstrapAdmin, pw, []string{"admin"}); err != nil {
		if e, ok := engine.AsError(err); ok && e.Code == codeInvalidParam {
			return fmt.Errorf("auth: cannot create the admin user from QUIVER_ADMIN_PASSWORD: %s", e.Message)
		}
		return fmt.Errorf("auth: cannot create the admin user: %w", err)
	}
	detail := "created the admin user at the first start with authentication on (password from QUIVER_ADMIN_PASSWORD)"
	if generated {
		detail = "created the admin user at the first start with authentication on (generated password)"
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
