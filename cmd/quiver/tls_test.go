package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// testCA is a certificate authority made for a test: it signs server
// certificates for 127.0.0.1 and localhost.
type testCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	pemFile string
	pool    *x509.CertPool
}

func newTestCA(t *testing.T, dir string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "quiver test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &testCA{cert: cert, key: key, pemFile: filepath.Join(dir, "ca.pem"), pool: x509.NewCertPool()}
	ca.pool.AddCert(cert)
	if err := os.WriteFile(ca.pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return ca
}

// issue writes a new server certificate and key (a fresh key each time)
// to certFile and keyFile, and returns the certificate's SHA-256.
func (ca *testCA) issue(t *testing.T, serial int64, certFile, keyFile string) [32]byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	// The key first, then the certificate, each replaced whole: the
	// server reads them as a pair only at SIGHUP.
	writeAtomic(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}))
	writeAtomic(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return sha256.Sum256(der)
}

func writeAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// loggedServer is a running `quiver serve` whose log lines the test reads.
type loggedServer struct {
	cmd                   *exec.Cmd
	addr, metrics, quicFP string
	lines                 chan string // log lines after "listening"
	startLog              []string    // log lines up to "listening", that one included
}

// startServeWith starts `quiver serve args…` with env added and reads its
// addresses from the log; it keeps reading the log into lines.
func startServeWith(t *testing.T, bin string, env []string, args ...string) *loggedServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s := &loggedServer{cmd: cmd, lines: make(chan string, 1024)}
	found := make(chan error, 1)
	go func() {
		listening := regexp.MustCompile(`msg=listening addr=(\S+)`)
		fingerprint := regexp.MustCompile(`quic_fingerprint=(\S+)`)
		metrics := regexp.MustCompile(`msg="metrics listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		var log []string
		up := false
		for sc.Scan() {
			line := sc.Text()
			if up {
				select {
				case s.lines <- line:
				default: // a test that does not read them loses them
				}
				continue
			}
			log = append(log, line)
			if m := metrics.FindStringSubmatch(line); m != nil {
				s.metrics = m[1]
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				s.addr, s.startLog, up = m[1], log, true
				if fp := fingerprint.FindStringSubmatch(line); fp != nil {
					s.quicFP = fp[1]
				}
				found <- nil
			}
		}
		if !up {
			found <- errors.New("the server exited before listening:\n" + strings.Join(log, "\n"))
		}
		close(s.lines)
	}()
	select {
	case err := <-found:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not log its address")
	}
	return s
}

// waitLog waits for a log line matching re.
func (s *loggedServer) waitLog(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("the server exited before logging %q", re)
			}
			if rx.MatchString(line) {
				return line
			}
		case <-timeout:
			t.Fatalf("no log line %q", re)
		}
	}
}

const tlsAdminPassword = "tls-admin-password-1"

// The secured server end to end: --auth-enabled with --tls-cert on the
// main port and the metrics listener; HTTPS with the standard library
// and with curl --cacert, the wire protocol inside TLS with HELLO.auth,
// the stream over WSS with a Bearer token, /metrics behind credentials,
// a plaintext client refused, and SIGHUP serving a new certificate.
func TestServeTLSWithAuth(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is not installed (make curl installs it): the TLS test checks the certificate with curl --cacert")
	}
	dir := t.TempDir()
	bin := serverproc.Build(t)
	ca := newTestCA(t, dir)
	certFile, keyFile := filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key")
	first := ca.issue(t, 2, certFile, keyFile)
	srv := startServeWith(t, bin, []string{"QUIVER_ADMIN_PASSWORD=" + tlsAdminPassword, "QUIVER_METRICS_PORT=0"},
		"--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--rate-limit", "0",
		"--auth-enabled", "--tls-cert", certFile, "--tls-key", keyFile)
	if srv.metrics == "" {
		t.Fatal("no metrics address in the log")
	}
	base := "https://" + srv.addr
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}}
	defer hc.CloseIdleConnections()
	adminBasic := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+tlsAdminPassword))
	do := func(method, url, authz, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// HTTPS: health is open, a query needs credentials.
	if status, body := do("GET", base+"/api/v1/health", "", ""); status != 200 {
		t.Fatalf("health over HTTPS: %d %s", status, body)
	}
	if status, body := do("POST", base+"/api/v1/query", "", `{"query":"RETURN 1 AS x"}`); status != 401 || !strings.Contains(body, "08001") {
		t.Fatalf("query without credentials: %d %s", status, body)
	}
	if status, body := do("POST", base+"/api/v1/query", adminBasic, `{"query":"CREATE (:T {n: 1}) RETURN 1 AS x"}`); status != 200 {
		t.Fatalf("query as admin: %d %s", status, body)
	}

	// curl trusts the server through --cacert, and not without it.
	out, err := exec.Command(curl, "-sS", "--fail", "--cacert", ca.pemFile, base+"/api/v1/health").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("curl --cacert: %v %s", err, out)
	}
	out, err = exec.Command(curl, "-sS", "--fail", "--cacert", ca.pemFile, "-u", "admin:"+tlsAdminPassword,
		"-H", "Content-Type: application/json", "-d", `{"query":"MATCH (t:T) RETURN count(t) AS c"}`, base+"/api/v1/query").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1") {
		t.Fatalf("curl query as admin: %v %s", err, out)
	}
	var ee *exec.ExitError
	if out, err := exec.Command(curl, "-sS", base+"/api/v1/health").CombinedOutput(); !errors.As(err, &ee) || ee.ExitCode() != 60 {
		t.Fatalf("curl without the CA must fail to verify (exit 60): %v %s", err, out)
	}

	// A plaintext client is told the port speaks TLS.
	resp, err := http.Get("http://" + srv.addr + "/api/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "speaks TLS") {
		t.Fatalf("plain HTTP to the TLS port: %d %s", resp.StatusCode, b)
	}

	// The wire protocol inside TLS, by ALPN and by the first byte.
	for _, protos := range [][]string{{"quiver/1"}, nil} {
		c, r := tlsWire(t, srv.addr, ca.pool, protos)
		fmt.Fprintf(c, `{"type":"HELLO","version":"1.0","auth":{"username":"admin","password":%q}}`+"\n", tlsAdminPassword)
		if m := readLine(t, r); m["type"] != "WELCOME" {
			t.Fatalf("HELLO over TLS: %v", m)
		}
		fmt.Fprint(c, `{"type":"RUN_GQL","query":"MATCH (t:T) RETURN count(t) AS c"}`+"\n")
		if m := readLine(t, r); m["type"] != "SCHEMA" {
			t.Fatalf("RUN_GQL over TLS: %v", m)
		}
		if m := readLine(t, r); m["type"] != "BINDINGS" || fmt.Sprint(m["data"]) != "[map[c:1]]" {
			t.Fatalf("RUN_GQL over TLS: %v", m)
		}
		c.Close()
	}
	c, r := tlsWire(t, srv.addr, ca.pool, nil)
	fmt.Fprint(c, `{"type":"HELLO","version":"1.0","auth":{"username":"admin","password":"wrong-password"}}`+"\n")
	if m := readLine(t, r); m["type"] != "ERROR" || m["code"] != "08001" {
		t.Fatalf("HELLO with a wrong password: %v", m)
	}
	c.Close()

	// The stream over WSS, with a token from the API.
	status, body := do("POST", base+"/api/v1/auth/token", "", fmt.Sprintf(`{"username":"admin","password":%q}`, tlsAdminPassword))
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); status != 200 || err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", status, body)
	}
	dialer := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: ca.pool}, HandshakeTimeout: 10 * time.Second}
	ws, _, err := dialer.Dial("wss://"+srv.addr+"/api/v1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	wsSend(t, ws, `{"type":"AUTH","token":"Bearer `+tok.AccessToken+`"}`, "AUTH_OK")
	wsSend(t, ws, `{"type":"SUBSCRIBE","id":"t","patterns":["(:T)"]}`, "SUBSCRIBED")
	if status, body := do("POST", base+"/api/v1/query", adminBasic, `{"query":"CREATE (:T {n: 2})"}`); status != 200 {
		t.Fatalf("write: %d %s", status, body)
	}
	if m := wsRead(t, ws); m["type"] != "CHANGE" {
		t.Fatalf("stream over WSS: %v", m)
	}
	ws2, _, err := dialer.Dial("wss://"+srv.addr+"/api/v1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	wsSend(t, ws2, `{"type":"AUTH","token":"Bearer not-a-token"}`, "ERROR")

	// The metrics listener speaks HTTPS; /metrics needs credentials.
	mbase := "https://" + srv.metrics
	if status, _ := do("GET", mbase+"/live", "", ""); status != 200 {
		t.Fatalf("/live: %d", status)
	}
	if status, body := do("GET", mbase+"/metrics", "", ""); status != 401 || !strings.Contains(body, "AUTH_FAILED") {
		t.Fatalf("/metrics without credentials: %d %s", status, body)
	}
	if status, body := do("GET", mbase+"/metrics", adminBasic, ""); status != 200 || !strings.Contains(body, "quiver_queries_total") {
		t.Fatalf("/metrics as admin: %d %.200s", status, body)
	}

	// SIGHUP: a new certificate from the next handshake, on the main port
	// and the metrics listener; a pair that does not load keeps it.
	if got := peerCert(t, srv.addr, ca.pool); got != first {
		t.Fatal("the first handshake did not present the first certificate")
	}
	second := ca.issue(t, 3, certFile, keyFile)
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	srv.waitLog(t, `msg="reloaded the TLS certificate"`)
	for _, addr := range []string{srv.addr, srv.metrics} {
		if got := peerCert(t, addr, ca.pool); got != second {
			t.Fatalf("%s after SIGHUP: the old certificate is still served", addr)
		}
	}
	if err := os.WriteFile(certFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	srv.waitLog(t, `cannot reload the TLS certificate`)
	if got := peerCert(t, srv.addr, ca.pool); got != second {
		t.Fatal("a failed reload changed the certificate")
	}

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// tlsWire opens a TLS connection to the main port for the wire protocol.
func tlsWire(t *testing.T, addr string, pool *x509.CertPool, protos []string) (*tls.Conn, *bufio.Reader) {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, &tls.Config{RootCAs: pool, NextProtos: protos})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	return c, bufio.NewReader(c)
}

func readLine(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read: %v (%q)", err, line)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return m
}

// peerCert is the SHA-256 of the certificate a new handshake presents.
func peerCert(t *testing.T, addr string, pool *x509.CertPool) [32]byte {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return sha256.Sum256(c.ConnectionState().PeerCertificates[0].Raw)
}

// Authentication on an address other hosts reach, without TLS, stops
// the server at start with the reason; --allow-insecure-auth lets it
// start, with a warning.
func TestServeRefusesClearTextAuth(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	cmd := exec.Command(bin, "serve", "--auth-enabled", "--listen", "0.0.0.0:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), "QUIVER_ADMIN_PASSWORD="+tlsAdminPassword)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "clear text") || !strings.Contains(string(out), "--allow-insecure-auth") {
		t.Fatalf("exit %v, output %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the refused start created the data directory: %v", err)
	}

	srv := startServeWith(t, bin, []string{"QUIVER_ADMIN_PASSWORD=" + tlsAdminPassword},
		"--auth-enabled", "--allow-insecure-auth", "--listen", "0.0.0.0:0", "--data-dir", filepath.Join(dir, "data"))
	_, port, _ := net.SplitHostPort(srv.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+port+"/api/v1/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
