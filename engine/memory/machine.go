package memory

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// DefaultMemoryFraction is the share of the machine's memory (or of the
// process's cgroup limit, when lower) that the server-wide budget
// defaults to: the rest is left to the kernel, the page cache and the
// Go runtime's own overhead beyond the heap.
const DefaultMemoryFraction = 0.7

// DefaultMaxMemory is the server-wide memory budget when none is given:
// DefaultMemoryFraction of MachineMemory, or 0 (no budget) when the
// machine's memory cannot be read.
func DefaultMaxMemory() int64 {
	return int64(float64(MachineMemory()) * DefaultMemoryFraction)
}

// MachineMemory is the memory this process may use: the machine's total
// (/proc/meminfo), or its cgroup's limit when that is lower. Zero when
// neither can be read (not Linux).
func MachineMemory() int64 {
	total := meminfoTotal()
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) { // "max" (v2) fails to parse: no limit
			total = n
		}
	}
	return total
}

// meminfoTotal reads MemTotal from /proc/meminfo, in bytes.
func meminfoTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
