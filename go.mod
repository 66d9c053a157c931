module github.com/cairn-kb/cairn

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.4
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/term v0.48.0
)

require golang.org/x/sys v0.50.0 // indirect
