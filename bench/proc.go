package bench

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// PeakRSS reads a process's peak resident set size (VmHWM) in bytes from
// /proc/<pid>/status; pid 0 means this process.
func PeakRSS(pid int) (int64, error) {
	v, err := procStatusField(procPath(pid, "status"), "VmHWM:")
	return v * 1024, err
}

// ResetPeakRSS sets a process's VmHWM back to its current RSS (writing 5 to
// /proc/<pid>/clear_refs), so that the peak while querying is measured
// apart from the peak while loading.
func ResetPeakRSS(pid int) error {
	return os.WriteFile(procPath(pid, "clear_refs"), []byte("5"), 0)
}

func procPath(pid int, name string) string {
	if pid == 0 {
		return "/proc/self/" + name
	}
	return fmt.Sprintf("/proc/%d/%s", pid, name)
}

// procStatusField returns the number after field (in kB for sizes) in a
// /proc status-style file.
func procStatusField(path, field string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field); ok {
			num := strings.Fields(rest)
			if len(num) == 0 {
				break
			}
			return strconv.ParseInt(num[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s", path, field)
}

// DiskSize is the total size of the files under path (a file or a directory).
func DiskSize(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Machine describes the computer a run happened on.
type Machine struct {
	CPUs     int
	CPUModel string
	MemBytes int64
	OS       string
}

// ThisMachine reads nproc, the CPU model and the memory size.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if kb, err := procStatusField("/proc/meminfo", "MemTotal:"); err == nil {
		m.MemBytes = kb * 1024
	}
	return m
}
