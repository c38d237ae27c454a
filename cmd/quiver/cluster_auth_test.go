package main

import (
	"strings"
	"testing"
)

// How members authenticate each other: a secret from its file or the
// environment, mutual TLS from the certificate options; a member with
// neither is refused with a message that says what to give.
func TestParseServeMemberAuth(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeTLSPair(t, dir, "m-")
	secretFile := writeFile(t, dir, "secret", "a secret from a file, long enough\n")
	member := []string{"--replication-mode", "raft", "--node-id", "n1", "--raft-listen", "127.0.0.1:7001"}
	args := func(extra ...string) []string { return append(append([]string{}, member...), extra...) }

	t.Setenv(envClusterSecret, "")
	o, err := parseServe(args("--cluster-secret-file", secretFile))
	if err != nil || string(o.cluster.auth.Secret) != "a secret from a file, long enough" || o.cluster.auth.TLS != nil {
		t.Fatalf("secret file: %+v, %v", o.cluster, err)
	}
	o, err = parseServe(args("--tls-cert", cert, "--tls-key", key))
	if err != nil || o.cluster.auth.TLS == nil || o.cluster.auth.Secret != nil {
		t.Fatalf("mutual TLS, own certificate: %+v, %v", o.cluster, err)
	}
	o, err = parseServe(args("--tls-cert", cert, "--tls-key", key, "--cluster-ca", cert))
	if err != nil || o.cluster.auth.TLS == nil || !o.cluster.auth.TLS.ClientCAs.Equal(o.cluster.auth.TLS.RootCAs) {
		t.Fatalf("mutual TLS with a CA: %+v, %v", o.cluster, err)
	}

	cases := map[string][]string{
		"must authenticate each other":  args(),
		"at least 16 bytes":             args("--cluster-secret-file", writeFile(t, dir, "short", "short")),
		"is empty":                      args("--cluster-secret-file", writeFile(t, dir, "empty", "\n")),
		"no such file":                  args("--cluster-secret-file", dir+"/missing"),
		"--cluster-ca needs --tls-cert": args("--cluster-ca", cert),
		"holds no PEM certificate":      args("--tls-cert", cert, "--tls-key", key, "--cluster-ca", secretFile),
		"exclude each other":            args("--cluster-secret-file", secretFile, "--cluster-ca", cert),
		"is a cluster option":           {"--cluster-secret-file", secretFile},
	}
	for want, a := range cases {
		if _, err := parseServe(a); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want a message with %q", a, err, want)
		}
	}

	t.Setenv(envClusterSecret, "a secret from the environment")
	o, err = parseServe(args())
	if err != nil || string(o.cluster.auth.Secret) != "a secret from the environment" {
		t.Fatalf("environment: %+v, %v", o.cluster, err)
	}
	// A file wins over the environment.
	o, err = parseServe(args("--cluster-secret-file", secretFile))
	if err != nil || string(o.cluster.auth.Secret) != "a secret from a file, long enough" {
		t.Fatalf("file and environment: %+v, %v", o.cluster, err)
	}
}
