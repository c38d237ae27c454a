package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Filesystem is the mount a path lives on.
type Filesystem struct {
	MountPoint string
	Type       string // ext4, xfs, tmpfs, …
	Source     string // /dev/vda, …
	Options    string // the mount's options (rw,relatime,…)
}

func (f Filesystem) String() string {
	if f.Type == "" {
		return "unknown"
	}
	return fmt.Sprintf("%s on %s (mounted at %s, %s)", f.Type, f.Source, f.MountPoint, f.Options)
}

// InMemory reports whether the filesystem keeps its files in memory, where
// fdatasync costs nothing and a durability measurement means nothing.
func (f Filesystem) InMemory() bool {
	return f.Type == "tmpfs" || f.Type == "ramfs"
}

// FilesystemOf finds the mount path lives on in /proc/self/mountinfo.
func FilesystemOf(path string) (Filesystem, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Filesystem{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return Filesystem{}, err
	}
	return ParseMountinfo(string(info), abs)
}

// ParseMountinfo returns the mount of /proc/<pid>/mountinfo text that holds
// the absolute path abs: the one with the longest mount point that is a
// prefix of it (the last such line wins, as a later mount hides an earlier
// one at the same point). Lines look like
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// with the mount point fifth and the type and source after the "-".
func ParseMountinfo(text, abs string) (Filesystem, error) {
	var best Filesystem
	found := false
	for _, line := range strings.Split(text, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 6 || len(g) < 2 {
			continue
		}
		mp := unescapeMount(f[4])
		if !under(abs, mp) || (found && len(mp) < len(best.MountPoint)) {
			continue
		}
		best = Filesystem{MountPoint: mp, Type: g[0], Source: g[1], Options: f[5]}
		found = true
	}
	if !found {
		return best, fmt.Errorf("no mount holds %s", abs)
	}
	return best, nil
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// LoadAvg reads the 1-, 5- and 15-minute load averages.
func LoadAvg() ([3]float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return [3]float64{}, err
	}
	return ParseLoadAvg(string(b))
}

// ParseLoadAvg parses /proc/loadavg ("0.22 0.57 0.77 1/234 5678").
func ParseLoadAvg(s string) ([3]float64, error) {
	var out [3]float64
	f := strings.Fields(s)
	if len(f) < 3 {
		return out, fmt.Errorf("loadavg: %q", s)
	}
	for i := range out {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return out, fmt.Errorf("loadavg: %q", s)
		}
		out[i] = v
	}
	return out, nil
}

// ProcCPU is the user plus system CPU time a process has used so far, from
// /proc/<pid>/stat (pid 0: this process), in clock ticks of 10 ms.
func ProcCPU(pid int) (int64, error) {
	b, err := os.ReadFile(procPath(pid, "stat"))
	if err != nil {
		return 0, err
	}
	return ParseProcStatCPU(string(b))
}

// ParseProcStatCPU returns utime+stime of a /proc/<pid>/stat line. The
// command name (field 2) is in parentheses and may hold spaces, so the
// fields are counted after its closing parenthesis: utime and stime are
// fields 14 and 15, the 12th and 13th after it.
func ParseProcStatCPU(s string) (int64, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("proc stat: no command name in %q", s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("proc stat: %d fields after the name", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("proc stat: utime %q, stime %q", f[11], f[12])
	}
	return u + st, nil
}

// DiskFlushes is the number of flush requests (what an fdatasync ends in)
// the block device holding path has completed, from /proc/diskstats
// (kernel 5.5 and later: field 16 after the device's name). Disk-wide: it counts every
// process's syncs. ok is false when it cannot be read.
func DiskFlushes(fs Filesystem) (n int64, ok bool) {
	dev := strings.TrimPrefix(fs.Source, "/dev/")
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil || dev == fs.Source {
		return 0, false
	}
	return ParseDiskFlushes(string(b), dev)
}

// ParseDiskFlushes returns the completed flush requests of device dev in
// /proc/diskstats text.
func ParseDiskFlushes(text, dev string) (int64, bool) {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 20 && f[2] == dev {
			n, err := strconv.ParseInt(f[18], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// MachineCPU is the CPU time all of the machine's processors spent busy
// (everything but idle and iowait) since boot, in clock ticks of 10 ms,
// from /proc/stat.
func MachineCPU() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return ParseProcStatBusy(string(b))
}

// ParseProcStatBusy returns the busy ticks of /proc/stat's "cpu" line:
// user, nice, system, irq, softirq and steal (guest time is already in
// user and nice).
func ParseProcStatBusy(s string) (int64, error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("proc stat: first line %q", line)
	}
	var busy int64
	for i, v := range f[1:9] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("proc stat: %q", line)
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, nil
}

// cpuSpan measures, over a span of time, the CPU the rest of the machine
// used: busy time in /proc/stat less this process's and the processes'
// the caller names.
type cpuSpan struct {
	machine int64 // busy ticks at the start
	self    time.Duration
	ok      bool
}

func startCPUSpan() cpuSpan {
	m, err := MachineCPU()
	return cpuSpan{machine: m, self: selfCPU(), ok: err == nil}
}

// others returns the CPU everything but this process and procs (the CPU
// time of the processes the span measures) used since the start; -1 when
// unknown.
func (s cpuSpan) others(procs time.Duration) time.Duration {
	m, err := MachineCPU()
	if err != nil || !s.ok {
		return -1
	}
	return max(0, time.Duration(m-s.machine)*10*time.Millisecond-(selfCPU()-s.self)-procs)
}
