package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The configuration file (docs/configuration.md): `quiver serve --config
// quiver.yaml` reads a YAML mapping whose keys are serve's flag names
// (data-dir, max-connections, …), each value as its flag would take it.
// A flag given on the command line wins over the file. The file's values
// go through the flags themselves (flag.FlagSet.Set), so a value means
// and is checked exactly as the flag's is. A `monitoring:` section is
// accepted and ignored: the metrics listener is configured only through
// QUIVER_METRICS_PORT and QUIVER_METRICS_BIND.

// maxConfigBytes bounds the file read.
const maxConfigBytes = 1 << 20

// valueKind is the YAML type a key takes.
type valueKind int

const (
	kindString   valueKind = iota // any scalar, as written
	kindInt                       // an integer
	kindBool                      // true or false
	kindSize                      // bytes as an integer, or a size string such as "8GB"
	kindDuration                  // a duration string such as "5m" ("0" too)
	kindList                      // a list of strings, or one comma-separated string
)

// configKeys are the file's keys, one per serve flag but --config itself.
var configKeys = map[string]valueKind{
	"listen":                     kindString,
	"data-dir":                   kindString,
	"log-level":                  kindString,
	"max-connections":            kindInt,
	"query-timeout":              kindInt, // milliseconds, as the flag
	"tls-cert":                   kindString,
	"tls-key":                    kindString,
	"auth-enabled":               kindBool,
	"allow-insecure-auth":        kindBool,
	"console":                    kindBool,
	"replication-mode":           kindString,
	"node-id":                    kindString,
	"raft-listen":                kindString,
	"peers":                      kindList,
	"peer-http":                  kindList,
	"follower-writes":            kindString,
	"cluster-secret-file":        kindString,
	"cluster-ca":                 kindString,
	"import-dir":                 kindString,
	"export-dir":                 kindString,
	"encryption-key-file":        kindString,
	"encryption-key-command":     kindString,
	"max-memory":                 kindSize,
	"algo-cache-size":            kindSize,
	"max-memory-per-query":       kindSize,
	"plan-cache-entries":         kindInt,
	"max-connections-per-client": kindInt,
	"checkpoint-interval":        kindDuration,
	"checkpoint-wal-size":        kindSize,
	"cdc-retention":              kindString,
	"allowed-origins":            kindList,
	"rate-limit":                 kindInt,
	"header-timeout":             kindDuration,
	"min-body-rate":              kindSize,
	"reserved-connections":       kindInt,
}

// monitoringKey is the section accepted and ignored.
const monitoringKey = "monitoring"

// configValue is one key of the file: its flag value and where it is.
type configValue struct {
	key, value string
	line       int
}

// readConfig reads and checks a configuration file. notes are lines for
// the server's log (the ignored monitoring section).
func readConfig(path string) (values []configValue, notes []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the configuration file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the configuration file %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, nil, fmt.Errorf("the configuration file %s is larger than %d bytes", path, maxConfigBytes)
	}
	values, notes, err = parseConfig(data)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration file %s: %w", path, err)
	}
	return values, notes, nil
}

// parseConfig decodes the YAML document: a mapping of known keys, each
// with a value of its kind. Errors name the key and its line.
func parseConfig(data []byte) ([]configValue, []string, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil // empty: every option keeps its default
		}
		return nil, nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("the file holds more than one YAML document")
	}
	if len(doc.Content) == 0 {
		return nil, nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("line %d: the file must be a mapping of option names to values (listen: …, data-dir: …)", root.Line)
	}
	var values []configValue
	var notes []string
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, nil, fmt.Errorf("line %d: a key must be an option name", k.Line)
		}
		if first, twice := seen[k.Value]; twice {
			return nil, nil, fmt.Errorf("line %d: %q is given twice (first at line %d)", k.Line, k.Value, first)
		}
		seen[k.Value] = k.Line
		if k.Value == monitoringKey {
			notes = append(notes, fmt.Sprintf("the configuration file's monitoring section (line %d) is ignored: the metrics listener is configured only through QUIVER_METRICS_PORT and QUIVER_METRICS_BIND", k.Line))
			continue
		}
		kind, known := configKeys[k.Value]
		if !known {
			return nil, nil, fmt.Errorf("line %d: unknown key %q (the keys are serve's flag names: %s)", k.Line, k.Value, strings.Join(configKeyNames(), ", "))
		}
		value, err := configScalar(v, kind)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %s: %v", v.Line, k.Value, err)
		}
		values = append(values, configValue{key: k.Value, value: value, line: v.Line})
	}
	return values, notes, nil
}

// configScalar turns a value node into its flag's text, checking its
// YAML type.
func configScalar(v *yaml.Node, kind valueKind) (string, error) {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if kind == kindList && v.Kind == yaml.SequenceNode {
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			if item.Kind == yaml.AliasNode && item.Alias != nil {
				item = item.Alias
			}
			if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
				return "", fmt.Errorf("line %d: each item must be a string", item.Line)
			}
			if strings.Contains(item.Value, ",") {
				return "", fmt.Errorf("line %d: %q: an item holds one value, without commas", item.Line, item.Value)
			}
			items = append(items, item.Value)
		}
		return strings.Join(items, ","), nil
	}
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be %s, not a %s", kindName(kind), nodeKindName(v.Kind))
	}
	if v.Tag == "!!null" {
		return "", errors.New("has no value: give one, or leave the key out for the default")
	}
	ok := true
	switch kind {
	case kindInt:
		ok = v.Tag == "!!int"
	case kindBool:
		ok = v.Tag == "!!bool"
	case kindSize:
		ok = v.Tag == "!!int" || v.Tag == "!!str"
	case kindDuration, kindList:
		ok = v.Tag == "!!str" || v.Tag == "!!int"
	}
	if !ok {
		return "", fmt.Errorf("must be %s, not %q", kindName(kind), v.Value)
	}
	return v.Value, nil
}

func kindName(k valueKind) string {
	switch k {
	case kindInt:
		return "an integer"
	case kindBool:
		return "true or false"
	case kindSize:
		return `a size (bytes, or a string such as "8GB")`
	case kindDuration:
		return `a duration string such as "5m"`
	case kindList:
		return "a list of strings"
	}
	return "a string"
}

func nodeKindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value of another kind"
}

func configKeyNames() []string {
	names := make([]string, 0, len(configKeys))
	for k := range configKeys {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// applyConfig sets the flags the command line left unset from the file
// at path; it returns the notes for the server's log and the line of
// each option the file set.
func applyConfig(fs *flag.FlagSet, path string) (notes []string, lines map[string]int, err error) {
	values, notes, err := readConfig(path)
	if err != nil {
		return nil, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	lines = map[string]int{}
	for _, v := range values {
		if given[v.key] {
			continue // the command line wins
		}
		if err := fs.Set(v.key, v.value); err != nil {
			return nil, nil, fmt.Errorf("configuration file %s: line %d: %s: %v", path, v.line, v.key, err)
		}
		lines[v.key] = v.line
	}
	return notes, lines, nil
}

// inConfigFile points an option's error at the file's line when the
// file set that option: parseServe's checks name the flag ("--max-memory:
// …"), which the file spells max-memory.
func inConfigFile(err error, path string, lines map[string]int) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for key, line := range lines {
		if strings.HasPrefix(msg, "--"+key+" ") || strings.HasPrefix(msg, "--"+key+":") {
			return fmt.Errorf("configuration file %s: line %d: %s: %w", path, line, key, err)
		}
	}
	return err
}

// loadTLS checks --tls-cert and --tls-key: both or neither, and a pair
// that loads. The certificate secures the main port (HTTPS, WSS, the wire
// protocol over TLS), QUIC and the metrics listener (security.go).
func loadTLS(o *serveOptions) error {
	if o.tlsCert == "" && o.tlsKey == "" {
		return nil
	}
	if o.tlsCert == "" || o.tlsKey == "" {
		return errors.New("--tls-cert and --tls-key go together: give both files (TLS certificate and its key), or neither")
	}
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return fmt.Errorf("--tls-cert %s and --tls-key %s: cannot load the TLS certificate and key: %w", o.tlsCert, o.tlsKey, err)
	}
	o.tlsCertificate = &cert
	return nil
}
