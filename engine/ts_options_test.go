package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// Every bad option of quiver.ts.aggregate is a 22023 error naming the
// option; bad widths and values of quiver.ts.bucket say what is wrong.
func TestTSBadOptionsNameTheOption(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (:M {t: localdatetime('2024-01-01T10:00'), v: 1})", nil)
	const rng = "from: localdatetime('2024-01-01T00:00'), to: localdatetime('2024-01-02T00:00')"
	for _, c := range []struct{ options, want string }{
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), colour: 1, " + rng, `unknown option "colour"`},
		{"label: 'M', time: 't', value: 'v', " + rng, "option bucket"},
		{"time: 't', value: 'v', bucket: duration('PT1H'), " + rng, "label and type"},
		{"label: 'M', type: 'T', time: 't', bucket: duration('PT1H'), " + rng, "label and type"},
		{"label: 'M', value: 'v', bucket: duration('PT1H'), " + rng, "option time"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), from: localdatetime('2024-01-01T00:00')", "from and to"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), from: localdatetime('2024-01-02T00:00'), to: localdatetime('2024-01-01T00:00')", "option from"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), from: date('2024-01-01'), to: localdatetime('2024-01-02T00:00')", "from and to"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), fill: 'sideways', " + rng, "option fill"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), fill: 1, " + rng, "option fill"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), aggregates: ['median'], " + rng, "option aggregates"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), aggregates: 'sum', " + rng, "option aggregates"},
		{"label: 'M', time: 't', bucket: duration('PT1H'), aggregates: ['sum'], " + rng, "option value"},
		{"label: 'M', time: 5, value: 'v', bucket: duration('PT1H'), " + rng, "option time"},
		{"label: 'M', time: 't', value: 'v', bucket: 'PT1H', " + rng, "bucket"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('P1MT1H'), " + rng, "mixes months"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT0S'), " + rng, "is zero"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1H'), origin: date('2000-01-01'), " + rng, "origin"},
		{"label: 'M', time: 't', value: 'v', bucket: duration('PT1S'), from: localdatetime('2000-01-01T00:00'), to: localdatetime('2024-01-02T00:00')", "more than 1048576 buckets"},
	} {
		_, err := runRows(context.Background(), db, "CALL quiver.ts.aggregate({"+c.options+"}) YIELD bucket RETURN bucket", nil)
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeInvalidParam || !strings.Contains(e.Message, c.want) || !strings.HasPrefix(e.Message, "quiver.ts.aggregate") {
			t.Errorf("{%s}: %v; want 22023 mentioning %q", c.options, err, c.want)
		}
	}
}
