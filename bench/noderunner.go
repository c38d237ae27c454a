package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// nodeRunner is a peer engine's Node.js process (bench/kuzu/run.js,
// bench/duckdb/run.js) spoken to over the line protocol of
// bench/lineproto.js: one JSON request per line in, one JSON answer per
// line out.
type nodeRunner struct {
	name string // the peer, for errors
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
}

// errRunnerEnded: the runner's process ended before it answered.
var errRunnerEnded = errors.New("runner ended")

// peerAnswer is what every answer of the protocol may carry: whether it
// succeeded, the runner's time and, for a load, its phases and the
// engine's version.
type peerAnswer struct {
	OK      bool    `json:"ok"`
	Error   string  `json:"error"`
	MS      float64 `json:"ms"`
	NodesMS float64 `json:"nodes_ms"`
	EdgesMS float64 `json:"edges_ms"`
	Version string  `json:"version"`
}

// startNodeRunner starts `node run.js` in dir (the peer's npm-installed
// folder).
func startNodeRunner(name, dir string) (nodeRunner, error) {
	cmd := exec.Command("node", "run.js")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nodeRunner{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nodeRunner{}, err
	}
	if err := cmd.Start(); err != nil {
		return nodeRunner{}, fmt.Errorf("starting %s runner (node %s/run.js): %w", name, dir, err)
	}
	return nodeRunner{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Pid is the Node process's id (for its peak RSS).
func (n *nodeRunner) Pid() int { return n.cmd.Process.Pid }

// Close asks the runner to quit and waits for it.
func (n *nodeRunner) Close() error {
	json.NewEncoder(n.in).Encode(map[string]any{"op": "quit"})
	n.in.Close()
	return n.cmd.Wait()
}

// ended is how the runner's process ended, once a round trip found it
// gone (errRunnerEnded): its exit status, and the kernel's OOM killer
// when it was killed (SIGKILL is what the OOM killer sends; nothing else
// in the harness sends it).
func (n *nodeRunner) ended() string {
	if n.cmd.ProcessState == nil {
		n.in.Close()
		n.cmd.Wait() // its output ended: the process is gone
	}
	if n.cmd.ProcessState == nil {
		return "unknown"
	}
	st := n.cmd.ProcessState.String()
	if ws, ok := n.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		st += ", most likely by the kernel for memory"
	}
	return st
}

// roundTrip sends one request and returns the answer's line.
func (n *nodeRunner) roundTrip(req map[string]any) ([]byte, error) {
	if err := json.NewEncoder(n.in).Encode(req); err != nil {
		return nil, fmt.Errorf("%s runner: %w", n.name, err)
	}
	line, err := n.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%s %w: %w", n.name, errRunnerEnded, err)
	}
	return line, nil
}
