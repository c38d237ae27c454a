module github.com/coder/hnsw

go 1.21.4

require github.com/stretchr/testify v1.9.0

require github.com/google/renameio v1.0.1

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.2 // indirect
	golang.org/x/sys v0.11.0 // indirect
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
