package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Access tokens are JWTs signed with HS256 under the server's key
// (docs/security.md says why: a maintained library does the signature,
// algorithm and time checks we would otherwise write by hand, and the
// claims let a token be checked without a record read; revocation is the
// session and generation check below).
const issuer = "quiver"

// accessClaims are an access token's claims: the standard ones plus the
// session it belongs to and the user's password generation it was issued
// under.
type accessClaims struct {
	Sid string `json:"sid"`
	Gen uint64 `json:"gen"`
	// Bm is the issuing member's applied log position once the session
	// was stored: a member behind it waits for the session (follow.go).
	Bm uint64 `json:"bm,omitempty"`
	jwt.RegisteredClaims
}

// issueAccess signs an access token for user in session sid. Only a
// member that takes writes issues tokens (a login stores its session),
// so it can make the key if no leader has yet.
func (s *Service) issueAccess(ctx context.Context, user, sid string, gen uint64) (string, error) {
	if err := s.ensureSigningKey(ctx); err != nil {
		return "", internal(err)
	}
	key := s.signingKey()
	now := s.now()
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	c := accessClaims{Sid: sid, Gen: gen, Bm: s.cfg.DB.AppliedIndex(), RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    issuer,
		Subject:   user,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.AccessTTL)),
		ID:        hex.EncodeToString(jti),
	}}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(key)
	if err != nil {
		return "", internal(err)
	}
	return tok, nil
}

// parseAccess checks an access token's signature, algorithm, issuer and
// times, and returns its claims. It does not check the user or session:
// bearer does.
func (s *Service) parseAccess(tok string) (*accessClaims, error) {
	var c accessClaims
	p := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(issuer),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(0),
		jwt.WithStrictDecoding(),
		jwt.WithTimeFunc(s.now),
	)
	_, err := p.ParseWithClaims(tok, &c, func(*jwt.Token) (any, error) {
		if key := s.signingKey(); key != nil {
			return key, nil
		}
		return nil, errNoSigningKey // a member the key's record has not reached
	})
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, errAuth("the access token has expired")
	default:
		return nil, errAuth("the access token is invalid")
	}
	if c.Subject == "" || c.Sid == "" {
		return nil, errAuth("the access token is invalid")
	}
	return &c, nil
}

var errNoSigningKey = errors.New("auth: this member has no token signing key yet")

// expiresIn is Tokens.ExpiresIn for a token issued now.
func (s *Service) expiresIn() int64 { return int64(s.cfg.AccessTTL / time.Second) }
