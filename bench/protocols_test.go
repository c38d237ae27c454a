package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestTimeProtocolHTTP times the HTTP client against a server in this
// process: every round trip answers, and the stream counts exactly the
// rows the query yields.
func TestTimeProtocolHTTP(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := StartHTTP(db)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := DialHTTP(strings.TrimPrefix(srv.URL, "http://"))
	defer c.Close()
	tm, err := TimeProtocol(context.Background(), "HTTP", c, 5, 20, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	if tm.RoundTrips.N != 20 || tm.Rows != 30_000 || tm.RowsPerSecond() <= 0 {
		t.Fatalf("timing %+v", tm)
	}
	if _, err := c.Stream(context.Background(), "UNWIND [1, 0] AS x RETURN 1 / x"); err == nil {
		t.Fatal("a query failing while its rows stream must be an error")
	}
}
