# cairn's front door for people who have `just`. Every recipe is a plain
# command you can also type.

# List the recipes.
default:
    @just --list

# Build the cairn binary into ./cairn.
build:
    CGO_ENABLED=0 go build -o cairn ./cmd/cairn

# Run the bundled demo.
demo:
    go run ./cmd/cairn demo

# Run every test (the README's test command).
test:
    go test ./...

# Rewrite the golden outputs from the current code; review the diff like code.
golden:
    CAIRN_UPDATE_GOLDEN=1 go test ./...

# Check formatting and vet.
lint:
    test -z "$(gofmt -l .)"
    go vet ./...

# Fuzz the parsers and decoders for a while each (FUZZTIME=30s by default).
fuzz FUZZTIME="30s":
    go test ./artifacts -run '^$' -fuzz '^FuzzDecodeDocRow$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzDecodeKey$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzDecodePostingsLine$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzDecodeUsage$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzManifestHead$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzParseHex$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzParseBase32$' -fuzztime {{FUZZTIME}}
    go test ./artifacts -run '^$' -fuzz '^FuzzNumAt$' -fuzztime {{FUZZTIME}}
    go test ./query/tables -run '^$' -fuzz '^FuzzFinder$' -fuzztime {{FUZZTIME}}
    go test ./query/question -run '^$' -fuzz '^FuzzParse$' -fuzztime {{FUZZTIME}}
    go test ./query/rank -run '^$' -fuzz '^FuzzPassages$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/fieldpath -run '^$' -fuzz '^FuzzParse$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/fieldpath -run '^$' -fuzz '^FuzzParseJSON$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/fieldpath -run '^$' -fuzz '^FuzzSkipValue$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/lex -run '^$' -fuzz '^FuzzDecodeID$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/lex -run '^$' -fuzz '^FuzzExact$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/lex -run '^$' -fuzz '^FuzzFold$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/lex -run '^$' -fuzz '^FuzzFoldKey$' -fuzztime {{FUZZTIME}}
    go test ./stages/lib/markdown -run '^$' -fuzz '^FuzzLinkless$' -fuzztime {{FUZZTIME}}
    go test ./stages/load -run '^$' -fuzz '^FuzzDecodeYAML$' -fuzztime {{FUZZTIME}}
    go test ./stages/load -run '^$' -fuzz '^FuzzGovernanceLog$' -fuzztime {{FUZZTIME}}
    go test ./stages/load -run '^$' -fuzz '^FuzzLoadPage$' -fuzztime {{FUZZTIME}}
    go test ./stages/usage -run '^$' -fuzz '^FuzzCount$' -fuzztime {{FUZZTIME}}

# Benchmark builds on synthetic bases (SIZES=10k,100k by default; add 1m for the large one).
bench SIZES="10k,100k":
    CGO_ENABLED=0 go build -o bench-out/cairn ./cmd/cairn
    go run ./cmd/cairn-bench run --bin bench-out/cairn --sizes {{SIZES}}

# Print the eval reports: the demo suite, then the PEPs suite of REALDATA on a built copy of its base, and the peers on the same candidates (a failing question does not stop it).
eval REALDATA="../shared/realdata":
    -go run ./cmd/cairn --base golden/demo/base eval golden/demo/eval.yaml
    rm -rf bench-out/peps && mkdir -p bench-out && cp -r {{REALDATA}}/peps bench-out/peps
    go run ./cmd/cairn --base bench-out/peps build --quiet
    -go run ./cmd/cairn --base bench-out/peps eval {{REALDATA}}/peps-eval.yaml --candidates bench-out/peps-candidates.jsonl
    python3 cmd/cairn-bench/peers.py bench-out/peps-candidates.jsonl

# Write the man pages into bench-out/man and show cairn(1).
man:
    mkdir -p bench-out/man
    go run ./cmd/cairn man --dir bench-out/man
    man -l bench-out/man/cairn.1

# What CI runs.
ci:
    bash .ci/run

# Benchmark `cairn collect git` over a generated repository of 10,000 commits on 100 days.
bench-collect:
    go test ./cmd/cairn/internal/collect -run '^$' -bench CollectGit -benchtime 5x

# Import the real kapi files of REALDATA into a fresh base in bench-out/kapi, build it and ask what applies in docs/ and bowrain/ (stderr lists what could not be mapped).
kapi REALDATA="../shared/realdata":
    rm -rf bench-out/kapi && mkdir -p bench-out/kapi
    printf 'content: ["**/*.md"]\ngovernance:\n  default_voice: neokapi-documentation\n  points:\n    - {name: bowrain, paths: ["bowrain/**"], voice: bowrain}\n' > bench-out/kapi/cairn.yaml
    go run ./cmd/cairn --base bench-out/kapi import kapi {{REALDATA}}/kapi
    go run ./cmd/cairn --base bench-out/kapi build
    go run ./cmd/cairn --base bench-out/kapi context --at docs/index.md
    go run ./cmd/cairn --base bench-out/kapi context --at bowrain/landing.md --format json
