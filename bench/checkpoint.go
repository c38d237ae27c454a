package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// CheckpointResult compares the checkpoint of the M graph with its import:
// both write the same base format (fsynced file by file, then the
// manifest), the import from the CSVs, the checkpoint from the version in
// memory.
type CheckpointResult struct {
	Import    []time.Duration // `quiver import` of the M data set, wall time of the process
	BaseBytes int64           // the imported directory
	// Open is `quiver serve` on the imported directory, from its start to
	// its first answer.
	Open time.Duration
	// Checkpoint is the CHECKPOINT statement over HTTP, each after one
	// small write (a checkpoint with nothing new is skipped); Engine the
	// same as the server's "wrote a checkpoint" line times it.
	Checkpoint, Engine []time.Duration
	CheckpointBytes    int64
	// ImportOther and CheckpointOther are the CPU the rest of the machine
	// used during each run (-1: unknown).
	ImportOther, CheckpointOther []time.Duration
}

// MeasureCheckpoint imports the M data set cfg.CheckpointRuns times, then
// serves the last import and times CHECKPOINT as often.
func MeasureCheckpoint(ctx context.Context, cfg WritesConfig, work string, logf func(string, ...any)) (*CheckpointResult, error) {
	res := &CheckpointResult{}
	dir := filepath.Join(work, "m")
	for i := range cfg.CheckpointRuns {
		os.RemoveAll(dir)
		span := startCPUSpan()
		d, cpu, err := quiverImport(ctx, cfg.QuiverBin, cfg.MData, dir)
		if err != nil {
			return nil, err
		}
		other := span.others(cpu)
		res.Import = append(res.Import, d)
		res.ImportOther = append(res.ImportOther, other)
		logf("checkpoint: import %d of %s: %v (other processes' CPU %v)", i+1, cfg.MData, d.Round(time.Millisecond), other.Round(time.Millisecond))
	}
	defer os.RemoveAll(dir)
	res.BaseBytes = DiskSize(dir)
	p, err := StartQuiver(cfg.QuiverBin, dir, 10*time.Minute, append([]string{"--query-timeout", "0"}, noCheckpointFlags...)...)
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	if _, err := p.Query(ctx, "RETURN 1"); err != nil {
		return nil, err
	}
	res.Open = time.Since(p.Started)
	for i := range cfg.CheckpointRuns {
		if _, err := p.Query(ctx, "CREATE (:W {id: "+strconv.Itoa(i)+", c: 0})"); err != nil {
			return nil, err
		}
		from := len(p.Lines())
		cpu0, _ := ProcCPU(p.Pid())
		span := startCPUSpan()
		start := time.Now()
		if _, err := p.Query(ctx, "CHECKPOINT"); err != nil {
			return nil, err
		}
		d := time.Since(start)
		cpu1, _ := ProcCPU(p.Pid())
		res.CheckpointOther = append(res.CheckpointOther, span.others(time.Duration(cpu1-cpu0)*10*time.Millisecond))
		line, _, err := p.WaitLine("wrote a checkpoint", from, 5*time.Second)
		if err != nil {
			return nil, err
		}
		cl, err := ParseCheckpointLine(line)
		if err != nil {
			return nil, err
		}
		res.Checkpoint = append(res.Checkpoint, d)
		res.Engine = append(res.Engine, cl.Took)
		res.CheckpointBytes = cl.Bytes
		logf("checkpoint %d of M: %v (engine %v, %s)", i+1, d.Round(time.Millisecond), cl.Took, bytesText(cl.Bytes))
	}
	return res, nil
}

// quiverImport runs `bin import` of the data set in data into dir and
// returns its wall time and CPU time.
func quiverImport(ctx context.Context, bin, data, dir string) (time.Duration, time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "import", "--data-dir", dir,
		"--nodes", "Person="+filepath.Join(data, PersonsCSV), "--relationships", "KNOWS="+filepath.Join(data, KnowsCSV))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("quiver import: %w:\n%s", err, out.Bytes())
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
