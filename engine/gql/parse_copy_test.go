package gql

import (
	"strings"
	"testing"
)

func TestParseCopy(t *testing.T) {
	for _, c := range []struct{ text, name, path, canon string }{
		{"COPY Person FROM 'persons.csv'", "Person", "persons.csv", "COPY Person FROM 'persons.csv'"},
		{"copy KNOWS from \"dir/k.csv\";", "KNOWS", "dir/k.csv", "COPY KNOWS FROM 'dir/k.csv'"},
		{"COPY `A:B` FROM 'x'", "A:B", "x", "COPY `A:B` FROM 'x'"},
	} {
		st, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if st.Copy == nil || st.Query != nil || st.Copy.Name != c.name || st.Copy.Path != c.path {
			t.Fatalf("%s: %+v", c.text, st.Copy)
		}
		if got := st.String(); got != c.canon {
			t.Fatalf("%s: printed %s", c.text, got)
		}
		again, err := Parse(st.String())
		if err != nil || again.String() != st.String() {
			t.Fatalf("%s: reparse %v %v", c.text, again, err)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"COPY Person FROM persons", "a file path string"},
		{"COPY Person 'x'", "FROM"},
		{"COPY FROM 'x'", "FROM"},
	} {
		_, err := Parse(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
}
