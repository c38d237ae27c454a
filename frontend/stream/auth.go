package stream

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/engine"
)

// Authentication on the stream (docs/stream.md, Authentication). AUTH's
// token is "Bearer <access token>", as the interface contract says: an
// API key or Basic credentials are refused, so that one credential kind
// travels in the stream's first message. Each SUBSCRIBE re-reads the
// principal (Config.Current), so a user dropped or a token session
// logged out ends the connection at its next SUBSCRIBE, and one whose
// roles no longer grant reading is refused the subscription (42501).

// authenticate checks AUTH's token and keeps the principal it names.
func (c *conn) authenticate(header string) error {
	check := c.s.cfg.Authenticate
	if check == nil {
		return nil // authentication is off: any AUTH is accepted
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		c.auditRefused("stream AUTH without a bearer token")
		return errors.New(`AUTH needs "token": "Bearer <access token>" (API keys and Basic credentials are not accepted on the stream)`)
	}
	p, err := check("Bearer "+token, c.remoteAddr())
	if err != nil {
		return fmt.Errorf("authentication failed: %s", errorMessage(err))
	}
	if p == nil {
		return errors.New("authentication failed")
	}
	c.principal = p
	return nil
}

// auditRefused records a connection refused before its credentials
// reached the Service (which audits the ones it checks): no AUTH, or an
// AUTH without a bearer token. Only with authentication on.
func (c *conn) auditRefused(detail string) {
	if c.s.cfg.Authenticate == nil || c.s.cfg.Auditor == nil {
		return
	}
	c.s.cfg.Auditor.Audit(engine.AuditEvent{Category: "authentication", Action: "authenticate", Outcome: engine.OutcomeFailure,
		Address: c.remoteAddr(), Detail: detail})
}

// authorize re-reads the principal before a SUBSCRIBE: false closes the
// connection (the 08001 ERROR is queued).
func (c *conn) authorize() bool {
	if c.principal == nil || c.s.cfg.Current == nil {
		return true
	}
	p, err := c.s.cfg.Current(c.principal)
	if err != nil || p == nil {
		msg := "the credentials are no longer valid"
		if err != nil {
			msg = errorMessage(err)
		}
		c.finish(&protoError{code: codeAuth, message: msg}, websocket.ClosePolicyViolation)
		return false
	}
	c.principal = p
	return true
}

// mayRead reports whether the connection's principal may subscribe; when
// it may not, the 42501 ERROR is sent and the refusal audited.
func (c *conn) mayRead(subID string) bool {
	p := c.principal
	if p == nil || p.Privileges&engine.PrivRead != 0 {
		return true
	}
	c.send(appendError(nil, &protoError{code: engine.CodePermission, subID: subID,
		message: "SUBSCRIBE needs the read privilege, which the roles of " + clip(p.Name) + " do not grant"}))
	if a := c.s.cfg.Auditor; a != nil {
		a.Audit(engine.AuditEvent{Category: "authorization", Action: "permission_denied", Outcome: engine.OutcomeDenied,
			Principal: p.Name, Address: c.remoteAddr(), Detail: "stream SUBSCRIBE needs the read privilege"})
	}
	return false
}

// remoteAddr is the client's address.
func (c *conn) remoteAddr() string {
	if a := c.ws.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}

// errorMessage is an error's text for the client: an engine error's
// message without its code.
func errorMessage(err error) string {
	if e, ok := engine.AsError(err); ok {
		return e.Message
	}
	return err.Error()
}
