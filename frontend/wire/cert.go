package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Certificate is the QUIC listener's TLS certificate and where it came
// from.
type Certificate struct {
	TLS tls.Certificate
	// Fingerprint is the SHA-256 of the certificate (DER), as hex pairs
	// joined by ':' (openssl x509 -fingerprint -sha256 prints the same):
	// a client pins a self-signed certificate by it.
	Fingerprint string
	// CertFile and KeyFile are the files it was read from or stored in
	// (empty for one that lives in memory only).
	CertFile, KeyFile string
	// Generated is set when this call created it.
	Generated bool
}

// The self-signed certificate's place in the data directory.
const (
	certDir      = "tls"
	certFileName = "wire-cert.pem"
	keyFileName  = "wire-key.pem"
	// certLifetime is a generated certificate's validity; one that
	// expires within certRenewBefore is replaced at start.
	certLifetime    = 10 * 365 * 24 * time.Hour
	certRenewBefore = 24 * time.Hour
)

// LoadOrCreateCertificate returns the certificate the QUIC listener
// presents: the operator's (--tls-cert and --tls-key) when certFile and
// keyFile are given; otherwise a self-signed one (ECDSA P-256) kept in
// <dataDir>/tls/wire-cert.pem with its key in wire-key.pem (mode 0600),
// created at the first start and reused later, so that clients can pin
// its fingerprint. One that is about to expire, or whose files are
// unreadable as a pair, is replaced. With no data directory (an
// in-memory database) it is made afresh in memory.
func LoadOrCreateCertificate(dataDir, certFile, keyFile string) (*Certificate, error) {
	switch {
	case certFile != "" && keyFile != "":
		c, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot load the TLS certificate: %w", err)
		}
		return &Certificate{TLS: c, Fingerprint: Fingerprint(c), CertFile: certFile, KeyFile: keyFile}, nil
	case certFile != "" || keyFile != "":
		return nil, errors.New("a TLS certificate needs both its certificate and its key file")
	}
	if dataDir == "" {
		certPEM, keyPEM, err := selfSigned()
		if err != nil {
			return nil, err
		}
		c, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("cannot use the generated certificate: %w", err)
		}
		return &Certificate{TLS: c, Fingerprint: Fingerprint(c), Generated: true}, nil
	}
	return LoadOrCreateCertificateFS(vfs.Default, dataDir)
}

// LoadOrCreateCertificateFS is LoadOrCreateCertificate's self-signed
// certificate, kept in dataDir on fsys: the data directory's filesystem,
// which encrypts the key at rest when the directory is encrypted.
func LoadOrCreateCertificateFS(fsys vfs.FS, dataDir string) (*Certificate, error) {
	dir := filepath.Join(dataDir, certDir)
	cf, kf := filepath.Join(dir, certFileName), filepath.Join(dir, keyFileName)
	// Files that are missing, unreadable, not a matching pair, or about
	// to expire are replaced rather than refusing to start.
	certPEM, cerr := vfs.ReadFile(fsys, cf)
	keyPEM, kerr := vfs.ReadFile(fsys, kf)
	if cerr == nil && kerr == nil {
		if c, err := tls.X509KeyPair(certPEM, keyPEM); err == nil && valid(c) {
			return &Certificate{TLS: c, Fingerprint: Fingerprint(c), CertFile: cf, KeyFile: kf}, nil
		}
	}
	certPEM, keyPEM, err := selfSigned()
	if err != nil {
		return nil, err
	}
	if _, err := vfs.MkdirAllSync(fsys, dir); err != nil {
		return nil, fmt.Errorf("cannot create the certificate directory: %w", err)
	}
	if err := writeFileAtomic(fsys, kf, keyPEM); err != nil {
		return nil, err
	}
	// Owner-only like every file of the data directory (docs/security.md);
	// clients get the certificate through the handshake, not the file.
	if err := writeFileAtomic(fsys, cf, certPEM); err != nil {
		return nil, err
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("cannot use the generated certificate: %w", err)
	}
	return &Certificate{TLS: c, Fingerprint: Fingerprint(c), CertFile: cf, KeyFile: kf, Generated: true}, nil
}

// valid reports whether a stored certificate is still good for a while.
func valid(c tls.Certificate) bool {
	leaf := c.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return false
		}
	}
	return time.Now().Add(certRenewBefore).Before(leaf.NotAfter)
}

// selfSigned makes a self-signed server certificate for this host,
// localhost and the loopback addresses, as PEM.
func selfSigned() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot generate a certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot generate a certificate serial number: %w", err)
	}
	names := []string{"localhost"}
	if h, err := os.Hostname(); err == nil && h != "" && h != "localhost" {
		names = append(names, h)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "quiver wire protocol (self-signed)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              names,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create a certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot encode the certificate key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), nil
}

// writeFileAtomic writes a file whole or not at all (mode vfs.FileMode,
// owner only): a temporary file, synced, renamed, the directory synced.
func writeFileAtomic(fsys vfs.FS, path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := vfs.WriteFileSync(fsys, tmp, data); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := vfs.SyncDir(fsys, filepath.Dir(path)); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// Fingerprint is the SHA-256 fingerprint of a certificate's leaf.
func Fingerprint(c tls.Certificate) string {
	if len(c.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(c.Certificate[0])
	var b strings.Builder
	for i, x := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", x)
	}
	return b.String()
}
