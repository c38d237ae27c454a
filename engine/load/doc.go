// Package load reads CSV and Parquet files into the storage layer's bulk
// form: the offline `quiver import` (Import) and the online COPY FROM
// (engine) share its readers. docs/import.md is the user's guide.
//
// A CSV file is parsed in parallel: its bytes are cut at line boundaries
// into one part per worker (GOMAXPROCS), each worker fills typed column
// buffers for its part, and the parts are concatenated in order. A Parquet
// file's row groups and columns are read in parallel into the same typed
// buffers. Errors name the file, the line (or row and row group) and the
// column; when several parts fail, the first in file order is reported.
package load
