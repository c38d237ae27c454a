package http

import (
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Temporal values reach clients as ISO strings with their own schema type,
// from an expression and from a stored property alike.
func TestTemporalOverHTTP(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	status, out, _ := call(t, "POST", base+"/api/v1/query",
		`{"query":"CREATE (e:E {at: datetime('2015-07-21T21:40:32.142+01:00')}) RETURN date(e.at) AS d, e.at AS at, duration.between(e.at, datetime('2015-07-22T00:00+01:00')) AS left, localtime('12:00') AS lt"}`)
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	if got := jsonString(out["schema"]); got != `{"fields":[{"name":"d","type":"DATE"},{"name":"at","type":"ANY"},{"name":"left","type":"DURATION"},{"name":"lt","type":"LOCALTIME"}]}` {
		t.Errorf("schema = %s", got)
	}
	if got := jsonString(out["data"]); got != `[{"at":"2015-07-21T21:40:32.142+01:00","d":"2015-07-21","left":"PT2H19M27.858S","lt":"12:00"}]` {
		t.Errorf("data = %s", got)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"RETURN date('2015-02-30')"}`)
	if e, ok := out["error"].(map[string]any); status != 400 || !ok || e["code"] != "22008" || e["category"] != "DATA_EXCEPTION" {
		t.Errorf("an invalid date: %d %v, want 400 with 22008 DATA_EXCEPTION", status, out)
	}
}
