package export

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const goodManifest = `{"format":"parquet","id_column":"_id","from_column":"_from","to_column":"_to",
"nodes":[{"name":"P","file":"nodes-000-P.parquet","rows":3}],
"relationships":[{"name":"R","file":"relationships-000-R.parquet","rows":2}],
"schema":"schema.gql","node_count":3,"relationship_count":2,"version":9}`

// TestParseManifestRefuses: a manifest that would send the import
// outside the export's folder, or that names no columns or an unknown
// format, is refused with a message naming what is wrong.
func TestParseManifestRefuses(t *testing.T) {
	if m, err := ParseManifest([]byte(goodManifest)); err != nil || m.Nodes[0].File != "nodes-000-P.parquet" || m.Version != 9 {
		t.Fatalf("the good manifest: %+v, %v", m, err)
	}
	for _, c := range []struct{ from, to, msg string }{
		{`"file":"nodes-000-P.parquet"`, `"file":"../secret.csv"`, `"../secret.csv" is not a file name`},
		{`"file":"nodes-000-P.parquet"`, `"file":"/etc/passwd"`, `"/etc/passwd" is not a file name`},
		{`"file":"relationships-000-R.parquet"`, `"file":"sub/r.parquet"`, `is not a file name`},
		{`"file":"relationships-000-R.parquet"`, `"file":"a\\b.csv"`, `is not a file name`},
		{`"file":"nodes-000-P.parquet"`, `"file":""`, `"" is not a file name`},
		{`"file":"nodes-000-P.parquet"`, `"file":".."`, `".." is not a file name`},
		{`"schema":"schema.gql"`, `"schema":"../../x.gql"`, `schema: "../../x.gql"`},
		{`"format":"parquet"`, `"format":"json"`, `format "json" is neither`},
		{`"id_column":"_id"`, `"id_column":""`, `must each name a column`},
		{`"rows":3`, `"rows":-1`, `has -1 rows`},
		{`"version":9}`, `"version":9`, `unexpected end of JSON input`},
	} {
		text := strings.Replace(goodManifest, c.from, c.to, 1)
		_, err := ParseManifest([]byte(text))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s → %s: got %v, want an error with %q", c.from, c.to, err, c.msg)
		}
	}
}

// FuzzParseManifest: any text either is refused or gives a manifest
// whose every file is a plain name: joined to the folder, it stays in it.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte(`{"format":"csv","id_column":"a","from_column":"b","to_column":"c","nodes":[{"file":"..\\x"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		if err != nil {
			return
		}
		dir := filepath.Join(string(filepath.Separator), "exports", "e")
		names := []string{}
		if m.Schema != "" {
			names = append(names, m.Schema)
		}
		for _, e := range append(append([]ManifestEntry(nil), m.Nodes...), m.Relationships...) {
			names = append(names, e.File)
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			if filepath.Dir(p) != dir {
				js, _ := json.Marshal(m)
				t.Fatalf("file %q leaves the folder (%s): %s", n, p, js)
			}
		}
	})
}
