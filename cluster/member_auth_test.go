package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log/slog"
	"math/big"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
)

// newStream is a member stream on 127.0.0.1:0 with auth, closed at the
// end of the test.
func newStream(t *testing.T, auth MemberAuth) *memberStream {
	t.Helper()
	s, err := newMemberStream("127.0.0.1:0", auth, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// exchange dials b from a, sends a line and checks b's Accept yields a
// connection carrying it.
func exchange(t *testing.T, a, b *memberStream) error {
	t.Helper()
	c, err := a.Dial(raft.ServerAddress(b.Addr().String()), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	got := make(chan string, 1)
	go func() {
		sc, err := b.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer sc.Close()
		buf := make([]byte, 5)
		_, _ = io.ReadFull(sc, buf)
		got <- string(buf)
	}()
	if s := <-got; s != "ping\n" {
		t.Fatalf("the accepted connection carried %q", s)
	}
	return nil
}

func TestMemberSecretHandshake(t *testing.T) {
	t.Parallel()
	secret := []byte("a cluster secret of some length")
	a, b := newStream(t, MemberAuth{Secret: secret}), newStream(t, MemberAuth{Secret: secret})
	if err := exchange(t, a, b); err != nil {
		t.Fatalf("members with the same secret: %v", err)
	}
	if err := exchange(t, b, a); err != nil {
		t.Fatalf("members with the same secret, the other way: %v", err)
	}

	bad := newStream(t, MemberAuth{Secret: []byte("another secret, just as long")})
	if _, err := bad.Dial(raft.ServerAddress(b.Addr().String()), time.Second); err == nil {
		t.Fatal("a member with the wrong secret connected")
	}
	if n := b.rejected.Load(); n != 1 {
		t.Fatalf("the member refused %d connections, want 1", n)
	}
	if _, err := b.Dial(raft.ServerAddress(bad.Addr().String()), time.Second); err == nil ||
		!strings.Contains(err.Error(), "refused the connection") {
		t.Fatalf("dialing a member with another secret: %v, want a refusal", err)
	}

	// Something else than a member (an HTTP client) is refused.
	c, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Write([]byte("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl\r\n\r\n"))
	_, _ = io.ReadAll(c) // ends when the member closes it (a reset, as it leaves the request unread)
	c.Close()
	if n := b.rejected.Load(); n != 2 {
		t.Fatalf("the member refused %d connections, want 2", n)
	}

	// A peer that connects and says nothing holds up no one else.
	silent, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if err := exchange(t, a, b); err != nil {
		t.Fatalf("a member behind a silent connection: %v", err)
	}
}

func TestMemberAuthChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		auth MemberAuth
		want string
	}{
		{MemberAuth{}, "must authenticate"},
		{MemberAuth{Secret: []byte("short")}, "at least 16"},
		{MemberAuth{Secret: []byte("long enough secret!"), TLS: &tls.Config{}}, "not both"},
		{MemberAuth{TLS: &tls.Config{}}, "certificate"},
	} {
		if _, err := NewMemberTransport("127.0.0.1:0", tc.auth, nil, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error containing %q", tc.auth, err, tc.want)
		}
	}
}

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// member issues a member certificate.
func (ca *testCA) member(t testing.TB, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func tlsAuth(t testing.TB, cert tls.Certificate, ca *x509.CertPool) MemberAuth {
	t.Helper()
	cfg, err := MemberTLS(cert, ca)
	if err != nil {
		t.Fatal(err)
	}
	return MemberAuth{TLS: cfg}
}

func TestMemberMutualTLS(t *testing.T) {
	t.Parallel()
	ca, other := newTestCA(t, "cluster"), newTestCA(t, "elsewhere")
	a := newStream(t, tlsAuth(t, ca.member(t, "a"), ca.pool))
	b := newStream(t, tlsAuth(t, ca.member(t, "b"), ca.pool))
	if err := exchange(t, a, b); err != nil {
		t.Fatalf("members of one CA: %v", err)
	}
	stranger := newStream(t, tlsAuth(t, other.member(t, "c"), other.pool))
	if _, err := stranger.Dial(raft.ServerAddress(b.Addr().String()), time.Second); err == nil {
		t.Fatal("a member with another CA's certificate connected")
	}
	if _, err := b.Dial(raft.ServerAddress(stranger.Addr().String()), time.Second); err == nil {
		t.Fatal("a member connected to a server with another CA's certificate")
	}
	// A client with no certificate at all.
	c, err := tls.Dial("tcp", b.Addr().String(), &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
	if err == nil {
		_, err = c.Read(make([]byte, 1)) // TLS 1.3 reports the server's refusal on the first read
		c.Close()
	}
	if err == nil {
		t.Fatal("a client without a certificate connected")
	}

	// Members sharing one self-signed certificate trust it alone.
	shared := newTestCA(t, "shared")
	cert := tls.Certificate{Certificate: [][]byte{shared.cert.Raw}, PrivateKey: shared.key}
	s1, s2 := newStream(t, tlsAuth(t, cert, nil)), newStream(t, tlsAuth(t, cert, nil))
	if err := exchange(t, s1, s2); err != nil {
		t.Fatalf("members sharing a certificate: %v", err)
	}
}

// Three members over TCP with a secret form a cluster and replicate; a
// fourth with the wrong secret, added by the leader, never receives an
// entry.
func TestClusterOverAuthenticatedTCP(t *testing.T) {
	t.Parallel()
	secret := MemberAuth{Secret: []byte("three members share this secret")}
	trans := map[string]*raft.NetworkTransport{}
	streams := map[string]*memberStream{}
	var peers []Peer
	for _, id := range []string{"n1", "n2", "n3", "n4"} {
		auth := secret
		if id == "n4" {
			auth = MemberAuth{Secret: []byte("n4 was given some other secret")}
		}
		tr, s, err := memberTransport("127.0.0.1:0", auth, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tr.Close() })
		trans[id], streams[id] = tr, s
		if id != "n4" {
			peers = append(peers, Peer{ID: id, Address: string(tr.LocalAddr())})
		}
	}
	nodes := map[string]*Node{}
	for _, id := range []string{"n1", "n2", "n3", "n4"} {
		p := peers
		if id == "n4" {
			p = nil // joins when the leader adds it
		}
		n, err := Open(Config{ID: id, Transport: trans[id], DataDir: t.TempDir(), Peers: p,
			HeartbeatTimeout: testHeartbeat, ElectionTimeout: testHeartbeat, LeaderLeaseTimeout: testHeartbeat / 2,
			CommitTimeout: 5 * time.Millisecond, RaftLog: io.Discard,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Engine: engine.Options{CheckpointInterval: -1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.Close() })
		nodes[id] = n
	}
	var leader *Node
	deadline := time.Now().Add(testDeadline)
	for leader == nil && time.Now().Before(deadline) {
		for _, id := range []string{"n1", "n2", "n3"} {
			if n := nodes[id]; n.Role() == "leader" && n.Writable() == nil {
				leader = n
			}
		}
		if leader == nil {
			<-time.After(5 * time.Millisecond) // polling a condition
		}
	}
	if leader == nil {
		t.Fatal("no leader over authenticated TCP")
	}
	ctx := ctxT(t)
	if err := write(ctx, leader, 42); err != nil {
		t.Fatal(err)
	}
	mark := leader.Bookmark()
	for _, id := range []string{"n1", "n2", "n3"} {
		if err := nodes[id].WaitApplied(ctx, mark); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if got := values(t, nodes[id]); !slices.Equal(got, []int{42}) {
			t.Fatalf("%s holds %v, want [42]", id, got)
		}
	}

	// The leader adds n4, which cannot authenticate: the leader's
	// attempts to reach it are refused, and n4's state stays empty.
	if err := leader.AddLearner(ctx, "n4", string(trans["n4"].LocalAddr())); err != nil {
		t.Fatal(err)
	}
	for streams["n4"].rejected.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the leader never tried to reach the member with the wrong secret")
		}
		<-time.After(5 * time.Millisecond) // polling a condition
	}
	if err := write(ctx, leader, 43); err != nil {
		t.Fatal(err)
	}
	if got := nodes["n4"].AppliedIndex(); got != 0 {
		t.Fatalf("the member with the wrong secret applied up to %d", got)
	}
	if got := values(t, nodes["n4"]); len(got) != 0 {
		t.Fatalf("the member with the wrong secret holds %v", got)
	}
}

// Open builds the authenticated transport itself and refuses to without
// a way to authenticate; it dials a member at the address its own Peers
// give, not the configuration's.
func TestOpenMemberAuth(t *testing.T) {
	t.Parallel()
	_, err := Open(Config{ID: "n1", Address: "127.0.0.1:0", DataDir: t.TempDir(), RaftLog: io.Discard,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil || !strings.Contains(err.Error(), "must authenticate each other") {
		t.Fatalf("Open without auth: %v", err)
	}
	p := &peerAddresses{peers: []Peer{{ID: "n1", Address: "127.0.0.1:1"}, {ID: "n2", Address: "127.0.0.1:2"}}}
	if a, err := p.ServerAddr("n2"); err != nil || a != "127.0.0.1:2" {
		t.Fatalf("n2 at %q, %v", a, err)
	}
	if _, err := p.ServerAddr("n9"); err == nil {
		t.Fatal("a member neither listed nor in the configuration has an address")
	}
}

// Closing a member's stream closes the connections it accepted, so that
// a handler blocked reading a peer that went silent returns.
func TestMemberStreamCloseEndsAccepted(t *testing.T) {
	t.Parallel()
	secret := MemberAuth{Secret: []byte("a cluster secret of some length")}
	a, b := newStream(t, secret), newStream(t, secret)
	c, err := a.Dial(raft.ServerAddress(b.Addr().String()), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := b.Accept()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := sc.Read(make([]byte, 1)) // the peer says nothing
		read <- err
	}()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err == nil {
		t.Fatal("a read on an accepted connection went on after the stream closed")
	}
}
