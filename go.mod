module github.com/cairn-kb/cairn

go 1.26

require (
	github.com/alecthomas/kong v1.17.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.6
)
