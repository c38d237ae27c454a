package main

import (
	"strings"
	"testing"
)

func TestParseImport(t *testing.T) {
	o, err := parseImport([]string{"--data-dir", "D", "--nodes", "Person=p.csv", "--nodes", "City:Place=c.csv",
		"--relationships", "KNOWS=k.csv", "--id-column", "key", "--delimiter", `\t`})
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir != "D" || len(o.Nodes) != 2 || o.Nodes[1].Name != "City:Place" || o.Nodes[1].Path != "c.csv" ||
		len(o.Rels) != 1 || o.Rels[0].Name != "KNOWS" || o.IDColumn != "key" || o.Delimiter != '\t' {
		t.Fatalf("options %+v", o)
	}
	if o, err := parseImport([]string{"--data-dir", "D", "--graphalytics", "graphs/example-directed"}); err != nil || o.Graphalytics != "graphs/example-directed" || len(o.Nodes) != 0 {
		t.Fatalf("--graphalytics: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", "D"}, "no node files"},
		{[]string{"--nodes", "p.csv"}, "want NAME=FILE"},
		{[]string{"--graphalytics", "g", "--nodes", "P=p.csv"}, "leave out --nodes"},
		{[]string{"--nodes", "P=p.csv", "--delimiter", ";;"}, "--delimiter must be one byte"},
		{[]string{"--nodes", "P=p.csv", "extra"}, "unexpected argument"},
	} {
		if _, err := parseImport(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
