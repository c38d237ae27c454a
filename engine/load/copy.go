package load

import (
	"bufio"
	"bytes"
	"os"

	"github.com/quiverdb/quiver/engine/storage"
)

// The online COPY FROM reads one file into an open database: the engine
// creates the parsed rows in one transaction. These are its entry points.

// IsRelationshipFile reads path's header: a file with the from and to
// columns and no key column holds relationships.
func IsRelationshipFile(path string, o *Options) (bool, error) {
	if IsParquet(path) {
		return parquetIsRelationshipFile(path, o)
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false, &Error{File: path, Line: 1, Msg: "no header row"}
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	fields, _, _ := splitLine(line, o.delim(), nil)
	has := map[string]bool{}
	for _, fl := range fields {
		name, _, _ := bytes.Cut(bytes.TrimSpace(fl.b), []byte(":"))
		has[string(bytes.TrimSpace(name))] = true
	}
	return has[o.fromColumn()] && has[o.toColumn()] && !has[o.idColumn()], nil
}

// ParseNodeFile parses a node file for labels (a key repeated in the file
// is an error at its line).
func ParseNodeFile(path string, labels []string, o *Options) (*storage.BulkNodes, error) {
	o.Progress.Begin(readPhase(PhaseReadNodes, []Input{{Path: path}}))
	t, _, err := readTable(Input{Path: path}, o, false, nil)
	if err != nil {
		return nil, err
	}
	bn, err := nodeSet(t, Input{Name: "x", Path: path}, &keyMap{}, 0)
	if err != nil {
		return nil, err
	}
	bn.Labels = labels
	return &bn, nil
}

// ParseRelFile parses a relationship file of type typ whose endpoints are
// resolved through ints (INT64 keys) or, when ints is nil, strs. A key
// mapped to Ambiguous is an error at its line (several nodes carry it).
func ParseRelFile(path, typ string, o *Options, ints map[int64]uint64, strs map[string]uint64) (*storage.BulkRels, error) {
	o.Progress.Begin(readPhase(PhaseReadRels, []Input{{Path: path}}))
	km := &keyMap{kind: kindString, ints: ints, strs: strs}
	if ints != nil {
		km.kind = kindInt
	}
	t, _, err := readTable(Input{Path: path}, o, true, km)
	if err != nil {
		return nil, err
	}
	br := relSet(t, typ)
	return &br, nil
}
