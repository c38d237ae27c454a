package client_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The HTTP client's tests and examples talk to a real `quiver serve`: the
// client may not import the server's packages (layers_test.go), so the
// tests build the command and run it on a free loopback port.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// quiverBinary builds cmd/quiver once per test run, into a fixed place
// under the temporary directory (replaced atomically, so concurrent runs
// do not see a half-written file).
func quiverBinary() (string, error) {
	buildOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "quiver-client-test-"+strconv.Itoa(os.Getuid()))
		if buildErr = os.MkdirAll(dir, 0o755); buildErr != nil {
			return
		}
		tmp, err := os.CreateTemp(dir, "quiver-*")
		if err != nil {
			buildErr = err
			return
		}
		tmp.Close()
		out, err := exec.Command("go", "build", "-o", tmp.Name(), "../cmd/quiver").CombinedOutput()
		if err != nil {
			os.Remove(tmp.Name())
			buildErr = fmt.Errorf("go build ../cmd/quiver: %v\n%s", err, out)
			return
		}
		builtBin = filepath.Join(dir, "quiver")
		buildErr = os.Rename(tmp.Name(), builtBin)
	})
	return builtBin, buildErr
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startQuiver runs `quiver serve` over dataDir with a rate limit (0:
// none) and returns its base URL and a function that stops it.
func startQuiver(dataDir string, rateLimit int) (string, func(), error) {
	addr, stop, err := startQuiverWith(dataDir, nil, "--rate-limit", strconv.Itoa(rateLimit))
	return "http://" + addr, stop, err
}

// startQuiverWith runs `quiver serve` over dataDir with more flags and
// environment variables ("NAME=value") and returns its address
// (host:port) and a function that stops it.
func startQuiverWith(dataDir string, env []string, flags ...string) (string, func(), error) {
	bin, err := quiverBinary()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir}, flags...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-addrc:
		return addr, stop, nil
	case <-time.After(60 * time.Second):
		stop()
		return "", nil, fmt.Errorf("quiver serve did not log its address")
	}
}

// testServer starts a server for one test; its end stops it.
func testServer(t *testing.T, rateLimit int) string {
	t.Helper()
	base, stop, err := startQuiver(t.TempDir(), rateLimit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base
}

// exampleServer starts a server for one example: in your program, the
// URL is your server's, such as http://127.0.0.1:3141.
func exampleServer() (string, func()) {
	dir, err := os.MkdirTemp("", "quiver-example-")
	if err != nil {
		panic(err)
	}
	base, stop, err := startQuiver(dir, 0)
	if err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return base, func() { stop(); os.RemoveAll(dir) }
}

// exampleAuthServer starts a server with authentication on, whose admin
// has the given password, for one example; it returns the server's URL.
func exampleAuthServer(adminPassword string) (string, func()) {
	dir, err := os.MkdirTemp("", "quiver-example-")
	if err != nil {
		panic(err)
	}
	addr, stop, err := startQuiverWith(dir, []string{"QUIVER_ADMIN_PASSWORD=" + adminPassword}, "--auth-enabled")
	if err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return "http://" + addr, func() { stop(); os.RemoveAll(dir) }
}
