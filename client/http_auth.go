package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"
)

// Credentials and TLS for the HTTP API (docs/http-api.md,
// Authentication). A client sends one credential on every request: a
// bearer token (WithBearerToken, or Login), an API key (WithAPIKey) or
// HTTP Basic (WithBasicAuth). Login, Refresh and Logout manage a token
// session and switch the client's bearer token as they go, so one client
// can log in once and be shared by goroutines.

// The endpoints that take their credential in the body: the client's
// own credential is not sent to them.
const (
	tokenPath   = "/api/v1/auth/token"
	refreshPath = "/api/v1/auth/refresh"
	logoutPath  = "/api/v1/auth/logout"
)

// credential is the header a client authenticates with.
type credential struct{ header, value string }

// WithBearerToken authenticates with an access token from
// POST /api/v1/auth/token (Authorization: Bearer).
func WithBearerToken(token string) HTTPOption {
	return func(c *HTTPClient) { c.setCredential(&credential{"Authorization", "Bearer " + token}) }
}

// WithAPIKey authenticates with an API key (X-API-Key), as an admin
// issues them (CALL dbms.security.createApiKey).
func WithAPIKey(key string) HTTPOption {
	return func(c *HTTPClient) { c.setCredential(&credential{"X-API-Key", key}) }
}

// WithBasicAuth authenticates with a user name and password on every
// request (HTTP Basic): simple, for development. Each request has the
// server check the password; Login trades them for a token once.
func WithBasicAuth(username, password string) HTTPOption {
	return func(c *HTTPClient) {
		c.setCredential(&credential{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(username+":"+password))})
	}
}

// WithTLSConfig speaks HTTPS with tc (the server's CA in RootCAs, or
// PinnedTLSConfig for a self-signed server): the client's transport
// becomes a copy of its http.Client's (or of http.DefaultTransport) with
// tc. The ALPN protocol is set to http/1.1, which the server's port
// needs to tell HTTPS from the wire protocol. Give it after
// WithHTTPClient, whose transport it copies.
func WithTLSConfig(tc *tls.Config) HTTPOption {
	return func(c *HTTPClient) {
		t, ok := c.hc.Transport.(*http.Transport)
		if !ok || t == nil {
			t = http.DefaultTransport.(*http.Transport)
		}
		t = t.Clone()
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if tc != nil {
			t.TLSClientConfig = tc.Clone()
		}
		t.TLSClientConfig.NextProtos = []string{"http/1.1"}
		t.ForceAttemptHTTP2 = false
		hc := *c.hc
		hc.Transport = t
		c.hc = &hc
	}
}

// TLSConfigFromCA is a TLS configuration trusting the CA certificates in
// a PEM file (such as the one that signed the server's --tls-cert), for
// WithTLSConfig or WireOptions.TLS.
func TLSConfigFromCA(caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read the CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the CA file %s holds no PEM certificate", caFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// setCredential replaces the client's credential (nil: none).
func (c *HTTPClient) setCredential(cr *credential) { c.cred.Store(cr) }

// SetBearerToken replaces the client's credential with an access token;
// safe while other goroutines use the client.
func (c *HTTPClient) SetBearerToken(token string) {
	c.setCredential(&credential{"Authorization", "Bearer " + token})
}

// authorize adds the client's credential to a request for path.
func (c *HTTPClient) authorize(req *http.Request, path string) {
	if path == tokenPath || path == refreshPath {
		return
	}
	if cr := c.cred.Load(); cr != nil {
		req.Header.Set(cr.header, cr.value)
	}
}

// Tokens are what a login or a refresh returns. Keep RefreshToken
// secret: it makes new access tokens until it expires or is used.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"` // seconds
	RefreshToken string `json:"refresh_token"`
	// ExpiresAt is when the access token expires, by the client's clock
	// when the answer arrived: refresh a little before.
	ExpiresAt time.Time `json:"-"`
}

// Login trades a user name and password for tokens
// (POST /api/v1/auth/token) and makes the client send the access token
// from then on. Wrong credentials are an *Error with Status 401 (code
// 08001); too many failed attempts, 429 with RetryAfter.
func (c *HTTPClient) Login(ctx context.Context, username, password string) (*Tokens, error) {
	return c.tokens(ctx, tokenPath, map[string]any{"username": username, "password": password})
}

// Refresh trades a refresh token for new tokens
// (POST /api/v1/auth/refresh) and makes the client send the new access
// token. The refresh token given is spent: keep the returned one.
func (c *HTTPClient) Refresh(ctx context.Context, refreshToken string) (*Tokens, error) {
	return c.tokens(ctx, refreshPath, map[string]any{"refresh_token": refreshToken})
}

func (c *HTTPClient) tokens(ctx context.Context, path string, body map[string]any) (*Tokens, error) {
	var t Tokens
	if err := c.call(ctx, http.MethodPost, path, body, &t); err != nil {
		return nil, err
	}
	if t.AccessToken == "" {
		return nil, errors.New("POST " + path + ": the answer has no access_token")
	}
	t.ExpiresAt = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	c.SetBearerToken(t.AccessToken)
	return &t, nil
}

// Logout ends the session of the client's bearer token
// (POST /api/v1/auth/logout): its access and refresh tokens stop
// working. The client then sends no credential.
func (c *HTTPClient) Logout(ctx context.Context) error {
	var out struct {
		LoggedOut bool `json:"logged_out"`
	}
	if err := c.call(ctx, http.MethodPost, logoutPath, nil, &out); err != nil {
		return err
	}
	c.setCredential(nil)
	return nil
}
