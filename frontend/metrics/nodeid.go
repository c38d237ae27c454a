package metrics

import (
	"crypto/rand"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NodeID is the server's node_id (GET /api/v1/status): a UUID (version 5,
// name-based) derived from the machine's identity (/etc/machine-id, else
// the host name) and the data directory's absolute path. Every start of
// the same data directory on the same machine has the same id, and two
// servers differ, without writing a file into the data directory (whose
// contents `quiver import` checks). A data directory moved to another
// machine, or a different path, is another node. Without a data
// directory (an in-memory database) the id is random, for this process.
func NodeID(dataDir string) string {
	if dataDir == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic("metrics: no randomness for a node id: " + err.Error())
		}
		return formatUUID(b, 4)
	}
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		dir = dataDir
	}
	h := sha1.New()
	h.Write([]byte("quiver node\x00" + machineID() + "\x00" + filepath.Clean(dir)))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	return formatUUID(b, 5)
}

// machineID is the host's stable identity: systemd's machine id, else the
// host name.
func machineID() string {
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(p); err == nil {
			if id := strings.TrimSpace(string(b)); id != "" {
				return id
			}
		}
	}
	host, _ := os.Hostname()
	return host
}

// formatUUID sets the version and RFC 9562 variant bits of b and writes
// it in the 8-4-4-4-12 form.
func formatUUID(b [16]byte, version byte) string {
	b[6] = b[6]&0x0f | version<<4
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
