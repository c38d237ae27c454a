package main

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/quiverdb/quiver/cluster"
)

// envClusterSecret holds the cluster's shared secret when no
// --cluster-secret-file is given (docs/replication.md, "Security between
// members").
const envClusterSecret = "QUIVER_CLUSTER_SECRET"

// memberAuth is how this member authenticates the others
// (cluster.MemberAuth): a shared secret from --cluster-secret-file or
// QUIVER_CLUSTER_SECRET, else mutual TLS with --tls-cert/--tls-key,
// trusting --cluster-ca (or, without it, the member's own certificate,
// for members sharing one self-signed certificate). A secret and
// --cluster-ca together are refused: which one was meant is unclear. A
// member with neither does not start: its raft port would take anyone's
// entries.
func (f *clusterFlags) memberAuth(o serveOptions, getenv func(string) string) (cluster.MemberAuth, error) {
	secretFile, caFile := strings.TrimSpace(*f.secretFile), strings.TrimSpace(*f.ca)
	var secret []byte
	switch {
	case secretFile != "":
		b, err := os.ReadFile(secretFile)
		if err != nil {
			return cluster.MemberAuth{}, fmt.Errorf("--cluster-secret-file: %w", err)
		}
		secret = []byte(strings.TrimSpace(string(b))) // a file's final newline is not part of it
		if len(secret) == 0 {
			return cluster.MemberAuth{}, fmt.Errorf("--cluster-secret-file %s is empty", secretFile)
		}
	case getenv(envClusterSecret) != "":
		secret = []byte(getenv(envClusterSecret))
	}
	if secret != nil {
		if caFile != "" {
			return cluster.MemberAuth{}, errors.New("--cluster-ca (mutual TLS between members) and a cluster secret exclude each other: give one")
		}
		if len(secret) < cluster.MinSecretLen {
			return cluster.MemberAuth{}, fmt.Errorf("the cluster secret must be at least %d bytes long", cluster.MinSecretLen)
		}
		return cluster.MemberAuth{Secret: secret}, nil
	}
	if o.tlsCertificate == nil {
		if caFile != "" {
			return cluster.MemberAuth{}, errors.New("--cluster-ca needs --tls-cert and --tls-key: the member's certificate")
		}
		return cluster.MemberAuth{}, fmt.Errorf("--replication-mode %s: the members must authenticate each other: give a shared secret (--cluster-secret-file or %s, at least %d bytes), or mutual TLS (--tls-cert, --tls-key and --cluster-ca) (docs/replication.md)", o.replicationMode, envClusterSecret, cluster.MinSecretLen)
	}
	var ca *x509.CertPool
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return cluster.MemberAuth{}, fmt.Errorf("--cluster-ca: %w", err)
		}
		ca = x509.NewCertPool()
		if !ca.AppendCertsFromPEM(pem) {
			return cluster.MemberAuth{}, fmt.Errorf("--cluster-ca %s holds no PEM certificate", caFile)
		}
	}
	cfg, err := cluster.MemberTLS(*o.tlsCertificate, ca)
	if err != nil {
		return cluster.MemberAuth{}, err
	}
	return cluster.MemberAuth{TLS: cfg}, nil
}

// authKind names a's kind for the start-up log.
func authKind(a cluster.MemberAuth) string {
	if a.TLS != nil {
		return "mutual-tls"
	}
	return "secret"
}
