package load

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// An LDBC Graphalytics graph is three files sharing a path prefix NAME:
//
//	NAME.v           one vertex id per line (unsigned 64-bit, gaps allowed)
//	NAME.e           `src dst [prop …]` per line, separated by spaces or tabs
//	NAME.properties  Java properties: graph.NAME.directed, the edge
//	                 properties' names and types, the algorithms' parameters
//
// It loads as nodes labelled GraphalyticsLabel with an INT64 property id
// (the vertex id) and relationships of type GraphalyticsType carrying the
// edge properties (weight, a DOUBLE, in the reference graphs). An
// undirected graph lists each edge once; it is loaded in both directions
// (a self-loop once), so that out-edges are the neighbours.

// GraphalyticsLabel and GraphalyticsType are the label and the
// relationship type a Graphalytics graph is loaded with.
const (
	GraphalyticsLabel = "V"
	GraphalyticsType  = "E"
)

// Graphalytics is a Graphalytics graph's description from its
// .properties file.
type Graphalytics struct {
	// Name is NAME, the prefix's base name; VertexFile and EdgeFile are
	// NAME.v and NAME.e beside the properties file (the vertex-file and
	// edge-file keys are not read: the conventional names always hold,
	// and a copied properties file may name the wrong one).
	Name, VertexFile, EdgeFile string
	Directed                   bool
	// Props holds every key of the file with the "graph.NAME." prefix
	// removed ("bfs.source-vertex", "pr.damping-factor", …).
	Props map[string]string
	// EdgeProps names the columns after src and dst; edgeKinds are their
	// types (real: DOUBLE, int/long: INT64).
	EdgeProps []string
	edgeKinds []kind
}

// ReadGraphalytics reads the properties of the Graphalytics graph at
// prefix (a path without the .properties suffix).
func ReadGraphalytics(prefix string) (*Graphalytics, error) {
	prefix = strings.TrimSuffix(prefix, ".properties")
	file := prefix + ".properties"
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := &Graphalytics{Name: filepath.Base(prefix), VertexFile: prefix + ".v", EdgeFile: prefix + ".e", Props: map[string]string{}}
	pre := "graph." + g.Name + "."
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' || s[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			if k, v, ok = strings.Cut(s, ":"); !ok {
				return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("%q is not key = value", s)}
			}
		}
		k = strings.TrimSpace(k)
		if rest, ok := strings.CutPrefix(k, pre); ok {
			g.Props[rest] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	switch d := strings.ToLower(g.Props["directed"]); d {
	case "true":
		g.Directed = true
	case "false":
	default:
		return nil, &Error{File: file, Msg: fmt.Sprintf("%sdirected is %q, want true or false", pre, d)}
	}
	names, types := splitList(g.Props["edge-properties.names"]), splitList(g.Props["edge-properties.types"])
	if len(names) != len(types) {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%d edge property names but %d types", len(names), len(types))}
	}
	for i, n := range names {
		var k kind
		switch strings.ToLower(types[i]) {
		case "real", "double", "float":
			k = kindFloat
		case "int", "integer", "long":
			k = kindInt
		default:
			return nil, &Error{File: file, Name: n, Msg: fmt.Sprintf("edge property type %q (real or int)", types[i])}
		}
		g.EdgeProps, g.edgeKinds = append(g.EdgeProps, n), append(g.edgeKinds, k)
	}
	return g, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// graphalyticsSets parses g's vertex and edge files into a bulk node set
// and a bulk relationship set; it returns the input bytes read.
func graphalyticsSets(g *Graphalytics, prog *progress.Tracker) (storage.BulkNodes, storage.BulkRels, int64, error) {
	bn := storage.BulkNodes{Labels: []string{GraphalyticsLabel}}
	br := storage.BulkRels{Type: GraphalyticsType}
	prog.Begin(readPhase(PhaseReadNodes, []Input{{Path: g.VertexFile}}))
	vdata, err := os.ReadFile(g.VertexFile)
	if err != nil {
		return bn, br, 0, err
	}
	ids, err := parseVertices(g.VertexFile, vdata, prog)
	if err != nil {
		return bn, br, 0, err
	}
	km := &keyMap{}
	key := colSpec{name: "id", kind: kindInt, role: roleKey}
	if err := km.add(g.VertexFile, key, 0, &colData{i64: ids}, len(ids), 0); err != nil {
		if e, ok := err.(*Error); ok {
			e.Line-- // add counts a header line; a vertex file has none
		}
		return bn, br, 0, err
	}
	bn.Count = len(ids)
	bn.Cols = []storage.BulkColumn{{Key: "id", Type: vector.Int64, I64: ids}}
	prog.Begin(readPhase(PhaseReadRels, []Input{{Path: g.EdgeFile}}))
	edata, err := os.ReadFile(g.EdgeFile)
	if err != nil {
		return bn, br, 0, err
	}
	src, dst, props, err := parseEdges(g, edata, km, prog)
	if err != nil {
		return bn, br, 0, err
	}
	if !g.Directed {
		src, dst, props = bothDirections(src, dst, props)
	}
	br.Src, br.Dst = src, dst
	for i, n := range g.EdgeProps {
		c := storage.BulkColumn{Key: n, Type: g.edgeKinds[i].vectorType()}
		if g.edgeKinds[i] == kindFloat {
			c.F64 = props[i].f64
		} else {
			c.I64 = props[i].i64
		}
		br.Cols = append(br.Cols, c)
	}
	return bn, br, int64(len(vdata) + len(edata)), nil
}

// parseVertices reads one unsigned vertex id per line.
func parseVertices(file string, data []byte, prog *progress.Tracker) ([]int64, error) {
	ids := make([]int64, 0, bytes.Count(data, []byte{'\n'})+1)
	r := reporter{prog: prog, size: len(data)}
	defer func() { r.done(data) }()
	for line := 1; len(data) > 0; line++ {
		r.line(data)
		var l []byte
		l, data = cutLine(data)
		f := bytes.Fields(l)
		if len(f) == 0 {
			return nil, &Error{File: file, Line: line, Msg: "empty line"}
		}
		if len(f) != 1 {
			return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("%d fields, want one vertex id", len(f))}
		}
		id, err := vertexID(f[0])
		if err != nil {
			return nil, &Error{File: file, Line: line, Column: 1, Msg: err.Error()}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// vertexID parses an unsigned 64-bit vertex id; ids are stored as INT64,
// so those above 2^63-1 are refused.
func vertexID(b []byte) (int64, error) {
	u, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a vertex id (an unsigned integer)", b)
	}
	if u > 1<<63-1 {
		return 0, fmt.Errorf("vertex id %d is above 2^63-1, the largest INT64", u)
	}
	return int64(u), nil
}

func cutLine(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return data, nil
	}
	return data[:i], data[i+1:]
}

// parseEdges reads `src dst [prop …]` lines, resolving the endpoints to
// node ids through km. A graph whose properties declare no edge property
// but whose first edge has a third column gets it as weight (DOUBLE).
func parseEdges(g *Graphalytics, data []byte, km *keyMap, prog *progress.Tracker) (src, dst []uint32, props []colData, err error) {
	n := bytes.Count(data, []byte{'\n'}) + 1
	src, dst = make([]uint32, 0, n), make([]uint32, 0, n)
	r := reporter{prog: prog, size: len(data)}
	defer func() { r.done(data) }()
	for line := 1; len(data) > 0; line++ {
		r.line(data)
		var l []byte
		l, data = cutLine(data)
		f := bytes.Fields(l)
		if len(f) == 0 {
			return nil, nil, nil, &Error{File: g.EdgeFile, Line: line, Msg: "empty line"}
		}
		if props == nil {
			if len(g.EdgeProps) == 0 && len(f) == 3 {
				g.EdgeProps, g.edgeKinds = []string{"weight"}, []kind{kindFloat}
			}
			props = make([]colData, len(g.EdgeProps))
			for i, k := range g.edgeKinds {
				if k == kindFloat {
					props[i].f64 = make([]float64, 0, n)
				} else {
					props[i].i64 = make([]int64, 0, n)
				}
			}
		}
		if len(f) != 2+len(g.EdgeProps) {
			return nil, nil, nil, &Error{File: g.EdgeFile, Line: line,
				Msg: fmt.Sprintf("%d fields, want %d (src dst%s)", len(f), 2+len(g.EdgeProps), strings.Repeat(" prop", len(g.EdgeProps)))}
		}
		for c := 0; c < 2; c++ {
			v, err := vertexID(f[c])
			if err != nil {
				return nil, nil, nil, &Error{File: g.EdgeFile, Line: line, Column: c + 1, Msg: err.Error()}
			}
			id, ok := km.lookupInt(v)
			if !ok {
				return nil, nil, nil, &Error{File: g.EdgeFile, Line: line, Column: c + 1, Msg: fmt.Sprintf("vertex %d is not in %s", v, filepath.Base(g.VertexFile))}
			}
			if c == 0 {
				src = append(src, id)
			} else {
				dst = append(dst, id)
			}
		}
		for i, k := range g.edgeKinds {
			s := string(f[2+i])
			if k == kindFloat {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, nil, nil, &Error{File: g.EdgeFile, Line: line, Column: 3 + i, Name: g.EdgeProps[i], Msg: fmt.Sprintf("%q is not a number", s)}
				}
				props[i].f64 = append(props[i].f64, x)
			} else {
				x, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, nil, nil, &Error{File: g.EdgeFile, Line: line, Column: 3 + i, Name: g.EdgeProps[i], Msg: fmt.Sprintf("%q is not an integer", s)}
				}
				props[i].i64 = append(props[i].i64, x)
			}
		}
	}
	if props == nil {
		props = make([]colData, len(g.EdgeProps))
	}
	return src, dst, props, nil
}

// bothDirections appends every edge reversed (but a self-loop, which is
// its own reverse), with its properties.
func bothDirections(src, dst []uint32, props []colData) ([]uint32, []uint32, []colData) {
	n := len(src)
	for i := 0; i < n; i++ {
		if src[i] == dst[i] {
			continue
		}
		src, dst = append(src, dst[i]), append(dst, src[i])
		for p := range props {
			if props[p].f64 != nil {
				props[p].f64 = append(props[p].f64, props[p].f64[i])
			} else {
				props[p].i64 = append(props[p].i64, props[p].i64[i])
			}
		}
	}
	return src, dst, props
}
