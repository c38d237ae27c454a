package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// shellChildEnv carries, as JSON, the arguments of `quiver shell` that
// the test binary runs as a child on a pseudo-terminal (TestMain).
const shellChildEnv = "QUIVER_TEST_SHELL_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(shellChildEnv); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			panic(err)
		}
		os.Exit(run(append([]string{"shell"}, args...)))
	}
	code := m.Run()
	serverproc.Cleanup() // the binary the process tests shared
	os.Exit(code)
}

// ptyShell is `quiver shell` running on a pseudo-terminal, as a person
// at a terminal runs it: its own session, the terminal its controlling
// one, so Ctrl-C typed there reaches it as SIGINT.
type ptyShell struct {
	t       *testing.T
	tty     *os.File
	out     *syncBuffer
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has ended, waitErr set
	waitErr error
}

func startPtyShell(t *testing.T, env []string, args ...string) *ptyShell {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), shellChildEnv+"="+string(a), "TERM=xterm")
	cmd.Env = append(cmd.Env, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptyShell{t: t, tty: tty, out: &syncBuffer{}, cmd: cmd, done: make(chan struct{})}
	go func() { _, _ = io.Copy(p.out, tty) }()
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the terminal showed:\n%s", p.out.String())
		}
		_ = cmd.Process.Kill()
		tty.Close()
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Errorf("the shell (pid %d) did not end after SIGKILL", cmd.Process.Pid)
		}
	})
	return p
}

// send types s; expect waits until the screen's text since mark holds
// want, and returns the new mark.
func (p *ptyShell) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.tty, s); err != nil {
		p.t.Fatal(err)
	}
}

func (p *ptyShell) expect(mark int, want string) int {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.out.String()
		if i := strings.Index(s[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited for %q; the terminal shows since then:\n%s", want, s[mark:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The interactive shell on a pseudo-terminal: a statement over two
// lines, Tab completion of a label, Ctrl-C clearing the line, the
// transaction in the prompt, a long query showing its elapsed time and
// cancelled by Ctrl-C (the server sees it cancelled, the shell lives
// on), the history file, and :quit.
func TestShellInteractive(t *testing.T) {
	srv := startShellServer(t)
	if code, _, errs := runShellScript(t, shellOptions(srv.addr), shellGraph); code != 0 {
		t.Fatalf("seeding: %s", errs)
	}
	hist := filepath.Join(t.TempDir(), "history")
	p := startPtyShell(t, []string{"QUIVER_HISTORY=" + hist}, "-a", srv.addr)
	m := p.expect(0, "quiver> ")

	p.send("MATCH (n:Person)\r")
	m = p.expect(m, "-> ")
	p.send("RETURN n.name AS name ORDER BY name;\r")
	m = p.expect(m, "| Ada  |")
	m = p.expect(m, "2 rows (")
	m = p.expect(m, "quiver> ")

	p.send("MATCH (n:Adm\t")
	m = p.expect(m, "MATCH (n:Admin")
	p.send("\x03") // Ctrl-C at the prompt: the line is dropped
	m = p.expect(m, "quiver> ")
	p.send("CALL db.relationshipT\t") // a procedure, from SHOW PROCEDURES
	m = p.expect(m, "CALL db.relationshipTypes")
	p.send("\x03")
	m = p.expect(m, "quiver> ")

	p.send(":begin\r")
	m = p.expect(m, "quiver[tx]> ")
	p.send(":rollback\r")
	m = p.expect(m, "rolled back")
	m = p.expect(m, "quiver> ")

	p.send("UNWIND range(1, 4000000000) AS x WITH x WHERE x = -1 RETURN count(*) AS c;\r")
	m = p.expect(m, "s elapsed (Ctrl-C cancels)")
	p.send("\x03")
	m = p.expect(m, "query cancelled")
	m = p.expect(m, "quiver> ")
	waitFor(t, srv.log.String, "outcome=client_gone")

	p.send("RETURN 6 * 7 AS answer;\r")
	m = p.expect(m, "|     42 |")
	m = p.expect(m, "quiver> ")

	// USE names the graph in the prompt until USE default.
	p.send("CREATE GRAPH IF NOT EXISTS sales;\r")
	m = p.expect(m, "quiver> ")
	p.send("USE sales;\r")
	m = p.expect(m, "quiver:sales> ")
	p.send(":begin\r")
	m = p.expect(m, "quiver:sales[tx]> ")
	p.send(":rollback\r")
	m = p.expect(m, "quiver:sales> ")
	p.send("USE default;\r")
	p.expect(m, "quiver> ")
	p.send(":quit\r")
	select {
	case <-p.done:
		if p.waitErr != nil {
			t.Errorf("exit: %v", p.waitErr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shell did not leave on :quit")
	}
	h, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "MATCH (n:Person) RETURN n.name AS name ORDER BY name;\n") || !strings.Contains(string(h), "RETURN 6 * 7 AS answer;\n") {
		t.Errorf("history file:\n%s", h)
	}
}
