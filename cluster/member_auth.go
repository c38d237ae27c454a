package cluster

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Members prove themselves to each other on every raft connection, in
// one of two ways:
//
//   - mutual TLS: both ends present a certificate that chains to the
//     cluster's CA, and the connection is encrypted. Host names are not
//     checked: members are named by id, and a certificate the cluster's
//     CA signed is what makes one a member.
//   - a shared secret, for clusters whose members talk over loopback or
//     a private network without TLS: a challenge-response on each new
//     connection (both ends send a random nonce, then an HMAC-SHA256 of
//     both under the secret), so the secret never crosses the wire and a
//     recorded handshake cannot be replayed. The traffic after it is in
//     clear text and is not authenticated message by message.
//
// A connection that fails either is closed before raft reads a byte of
// it: a member with the wrong secret or certificate cannot join.

// MemberAuth is how members authenticate each other. Exactly one of TLS
// and Secret is set.
type MemberAuth struct {
	// TLS is a mutual-TLS configuration (MemberTLS builds one).
	TLS *tls.Config
	// Secret is the cluster's shared secret, at least MinSecretLen bytes.
	Secret []byte
}

// MinSecretLen is the shortest cluster secret accepted.
const MinSecretLen = 16

// handshakeTimeout bounds a new connection's authentication, so that a
// peer that connects and says nothing holds no more than that.
const handshakeTimeout = 5 * time.Second

// maxPendingHandshakes bounds the connections authenticating at once;
// more are closed at once rather than queued.
const maxPendingHandshakes = 64

func (a MemberAuth) check() error {
	switch {
	case a.TLS != nil && a.Secret != nil:
		return errors.New("cluster: members authenticate with TLS or with a secret, not both")
	case a.TLS != nil:
		if len(a.TLS.Certificates) == 0 {
			return errors.New("cluster: member TLS needs the member's certificate")
		}
		if a.TLS.ClientCAs == nil || a.TLS.RootCAs == nil {
			return errors.New("cluster: member TLS needs the cluster's CA")
		}
	case a.Secret != nil:
		if len(a.Secret) < MinSecretLen {
			return fmt.Errorf("cluster: the cluster secret must be at least %d bytes", MinSecretLen)
		}
	default:
		return errors.New("cluster: members must authenticate each other: give a cluster secret or TLS")
	}
	return nil
}

// MemberTLS is the mutual-TLS configuration of a member presenting cert
// and trusting peers whose certificates chain to ca; a nil ca trusts
// cert itself, for members that share one self-signed certificate.
func MemberTLS(cert tls.Certificate, ca *x509.CertPool) (*tls.Config, error) {
	if ca == nil {
		if len(cert.Certificate) == 0 {
			return nil, errors.New("cluster: member TLS needs the member's certificate")
		}
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			return nil, fmt.Errorf("cluster: cannot read the member's certificate: %w", err)
		}
		ca = x509.NewCertPool()
		ca.AddCert(leaf)
	}
	// InsecureSkipVerify only turns off the host name check (see above):
	// verifyChain checks the server's chain against ca, and the server
	// requires and verifies the client's.
	return &tls.Config{
		Certificates:          []tls.Certificate{cert},
		ClientCAs:             ca,
		RootCAs:               ca,
		ClientAuth:            tls.RequireAndVerifyClientCert,
		MinVersion:            tls.VersionTLS13,
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: verifyChain(ca),
	}, nil
}

// verifyChain checks that the server's certificate chains to ca, for
// every use but the host name's.
func verifyChain(ca *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("the member presented no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, r := range raw {
			c, err := x509.ParseCertificate(r)
			if err != nil {
				return fmt.Errorf("cannot read the member's certificate: %w", err)
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: ca, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
}

// The secret handshake's messages: a magic line and a nonce each way,
// then the client's proof, then the server's.
var handshakeMagic = []byte("QVRAFT1\n")

const nonceLen = 32

// authenticate runs the handshake on c as its client or server end and
// returns the connection raft uses (c, or c wrapped in TLS).
func (a MemberAuth) authenticate(c net.Conn, server bool) (net.Conn, error) {
	if err := c.SetDeadline(time.Now().Add(handshakeTimeout)); err != nil {
		return nil, err
	}
	var out net.Conn
	if a.TLS != nil {
		var tc *tls.Conn
		if server {
			tc = tls.Server(c, a.TLS)
		} else {
			tc = tls.Client(c, a.TLS)
		}
		if err := tc.Handshake(); err != nil {
			return nil, fmt.Errorf("member TLS handshake: %w", err)
		}
		out = tc
	} else {
		if err := a.secretHandshake(c, server); err != nil {
			return nil, err
		}
		out = c
	}
	return out, c.SetDeadline(time.Time{})
}

// secretHandshake proves to the other end that this one holds the
// secret, and checks that it does too. The client proves first, so a
// server learns nothing it could use elsewhere from a client that fails.
func (a MemberAuth) secretHandshake(c net.Conn, server bool) error {
	mine := make([]byte, nonceLen)
	if _, err := rand.Read(mine); err != nil {
		return err
	}
	if _, err := c.Write(append(append([]byte(nil), handshakeMagic...), mine...)); err != nil {
		return fmt.Errorf("member handshake: %w", err)
	}
	hello := make([]byte, len(handshakeMagic)+nonceLen)
	if _, err := io.ReadFull(c, hello); err != nil {
		return fmt.Errorf("member handshake: %w", err)
	}
	if !bytes.Equal(hello[:len(handshakeMagic)], handshakeMagic) {
		return errors.New("member handshake: the other end does not speak the cluster protocol")
	}
	theirs := hello[len(handshakeMagic):]
	clientNonce, serverNonce := mine, theirs
	if server {
		clientNonce, serverNonce = theirs, mine
	}
	proof := func(role string) []byte {
		m := hmac.New(sha256.New, a.Secret)
		m.Write([]byte(role))
		m.Write(clientNonce)
		m.Write(serverNonce)
		return m.Sum(nil)
	}
	send := func(role string) error {
		_, err := c.Write(proof(role))
		return err
	}
	expect := func(role string) error {
		got := make([]byte, sha256.Size)
		if _, err := io.ReadFull(c, got); err != nil {
			if !server && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
				return errors.New("member handshake: the other member refused the connection (a different cluster secret?)")
			}
			return fmt.Errorf("member handshake: %w", err)
		}
		if !hmac.Equal(got, proof(role)) {
			return errors.New("member handshake: wrong cluster secret")
		}
		return nil
	}
	if server {
		if err := expect("client"); err != nil {
			return err
		}
		return send("server")
	}
	if err := send("client"); err != nil {
		return err
	}
	return expect("server")
}
