package bench

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestParquetDataSet: the Parquet files of a data set (several row
// groups) import to the same data directory, byte for byte, as its CSVs.
func TestParquetDataSet(t *testing.T) {
	defer func(n int) { parquetRowGroup = n }(parquetRowGroup)
	parquetRowGroup = 700
	g := Generate(2000, 12000, 7)
	data := t.TempDir()
	if err := g.WriteCSV(data); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteParquet(data); err != nil {
		t.Fatal(err)
	}
	dirs := [2]string{filepath.Join(t.TempDir(), "csv"), filepath.Join(t.TempDir(), "parquet")}
	for i, l := range []ImportLoader{{}, {Parquet: true}} {
		if _, err := l.Build(context.Background(), KnowsDataset, data, dirs[i]); err != nil {
			t.Fatalf("%s: %v", l.Name(), err)
		}
	}
	files := 0
	err := filepath.WalkDir(dirs[0], func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dirs[0], path)
		a, _ := os.ReadFile(path)
		b, err := os.ReadFile(filepath.Join(dirs[1], rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the CSV and the Parquet import (%v)", rel, err)
		}
		files++
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("%d files compared: %v", files, err)
	}
}
