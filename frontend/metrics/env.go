package metrics

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// The environment variables of the metrics listener. The listener is
// opt-in: it runs only when EnvPort is set. A `monitoring:` section of a
// configuration file is ignored; only these configure it.
const (
	EnvPort = "QUIVER_METRICS_PORT"
	EnvBind = "QUIVER_METRICS_BIND"
)

// DefaultBind is the metrics listener's address when EnvBind is unset:
// loopback, like the query listener's default. A Prometheus server on
// another machine needs QUIVER_METRICS_BIND=0.0.0.0 (or the address of
// the interface it reaches).
const DefaultBind = "127.0.0.1"

// ListenAddr reads EnvPort and EnvBind through getenv (os.Getenv) and
// returns the host:port the metrics listener listens on, or "" when
// EnvPort is unset or empty (no listener). A value that is not a port
// number from 0 to 65535 (0: a free port the kernel picks, which serve
// logs: "metrics listening addr=…"), a bind address that is neither an IP address
// nor a host name, and a bind address without a port are errors naming
// the variable: the server must not start without the listener it was
// asked for.
func ListenAddr(getenv func(string) string) (string, error) {
	port := strings.TrimSpace(getenv(EnvPort))
	bind := strings.TrimSpace(getenv(EnvBind))
	if port == "" {
		if bind != "" {
			return "", fmt.Errorf("%s=%q is set but %s is not: set %s to turn the metrics listener on", EnvBind, bind, EnvPort, EnvPort)
		}
		return "", nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%s=%q is not a port number (0 to 65535)", EnvPort, getenv(EnvPort))
	}
	if bind == "" {
		bind = DefaultBind
	}
	host := strings.TrimSuffix(strings.TrimPrefix(bind, "["), "]")
	if net.ParseIP(host) == nil && !isHostName(host) {
		return "", fmt.Errorf("%s=%q is not an IP address or a host name", EnvBind, getenv(EnvBind))
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// isHostName reports whether s is a DNS host name: dot-separated labels
// of letters, digits and inner hyphens, 253 bytes at most.
func isHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
