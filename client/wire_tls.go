package client

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"strings"
)

// PinnedTLSConfig trusts exactly the server certificate whose SHA-256
// fingerprint is given, as the server logs it at start for its
// self-signed certificate ("AB:CD:…"; case and colons do not matter).
// No CA is consulted, so it works for a certificate no CA signed.
func PinnedTLSConfig(fingerprint string) *tls.Config {
	want, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(fingerprint), ":", ""))
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{WireALPN},
		InsecureSkipVerify: true, // VerifyPeerCertificate checks the pin instead
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if err != nil || len(want) != sha256.Size {
				return errors.New("client: the pinned fingerprint is not a SHA-256 in hex")
			}
			if len(raw) == 0 {
				return errors.New("client: the server sent no certificate")
			}
			got := sha256.Sum256(raw[0])
			if subtle.ConstantTimeCompare(got[:], want) != 1 {
				return errors.New("client: the server's certificate does not match the pinned fingerprint")
			}
			return nil
		},
	}
}
