package http

import (
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// A path comes back as {"nodes":[…],"relationships":[…]} of whole
// entities, its column typed PATH.
func TestPathOverHTTP(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	if status, out, _ := call(t, "POST", base+"/api/v1/query",
		`{"query":"CREATE (:P {name: 'Al'})-[:KNOWS {since: 2015}]->(:P {name: 'Bo'})"}`); status != 200 {
		t.Fatalf("create: %d %v", status, out)
	}
	status, out, _ := call(t, "POST", base+"/api/v1/query",
		`{"query":"MATCH p = (b {name: 'Bo'})<-[:KNOWS*]-(a) RETURN p, length(p) AS n"}`)
	if status != 200 {
		t.Fatalf("match: %d %v", status, out)
	}
	if got := jsonString(out["schema"]); got != `{"fields":[{"name":"p","type":"PATH"},{"name":"n","type":"INTEGER"}]}` {
		t.Errorf("schema = %s", got)
	}
	want := `[{"n":1,"p":{"nodes":[{"id":1,"labels":["P"],"properties":{"name":"Bo"}},{"id":0,"labels":["P"],"properties":{"name":"Al"}}],` +
		`"relationships":[{"end":1,"id":0,"properties":{"since":2015},"start":0,"type":"KNOWS"}]}}]`
	if got := jsonString(out["data"]); got != want {
		t.Errorf("data = %s\nwant   %s", got, want)
	}
}
