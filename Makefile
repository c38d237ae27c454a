# Quiver — build, run, test. `make run` and `make test` work on a fresh
# machine with Go installed; everything else they need is fetched here.

GO          ?= go
BIN         := bin
TOOLS       := $(BIN)/tools
STATICCHECK := $(TOOLS)/staticcheck
STATICCHECK_VERSION := v0.8.2
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X main.version=$(VERSION)
# Each fuzz target runs a fixed number of executions (about five seconds
# on two cores), FUZZSCALE times over. A count, not a duration: with a
# duration -fuzztime, Go 1.26's fuzz coordinator can report its own
# deadline as a failure ("context deadline exceeded", no crasher;
# golang/go#75804, fixed in Go 1.27).
FUZZSCALE   ?= 1
# The fuzz targets, name:package:executions at FUZZSCALE 1. make test
# runs FUZZ_SHORT; make test-long runs them and FUZZ_MORE.
FUZZ_SHORT := \
	FuzzParse:./engine/gql/:40000 \
	FuzzOpenBase:./engine/storage/:30000 \
	FuzzOpen:./engine/storage/wal/:15000 \
	FuzzDecodeRequest:./frontend/http/:5000 \
	FuzzWireSession:./frontend/wire/:5000 \
	FuzzStreamMessage:./frontend/stream/:5000 \
	FuzzAuthorizationHeader:./frontend/auth/:5000 \
	FuzzHandler:./frontend/http/:5000
FUZZ_MORE := \
	FuzzFullTextQuery:./engine/index/fulltext/:10000 \
	FuzzChangeRecord:./engine/changes/:10000 \
	FuzzBuild:./csr/:3000 \
	FuzzDecode:./csr/:150000 \
	FuzzDecode:./engine/storage/vfs/cryptfs/:10000 \
	FuzzOpen:./engine/fle/:5000 \
	FuzzDecodeRecord:./engine/storage/:10000 \
	FuzzDecodeSystemFile:./engine/storage/:5000 \
	FuzzBaseArchive:./engine/storage/:10000 \
	FuzzGraphalytics:./engine/load/:2500 \
	FuzzParquet:./engine/load/:1000 \
	FuzzParseManifest:./engine/export/:5000 \
	FuzzFastObject:./frontend/jsonio/:5000 \
	FuzzStream:./frontend/arrowio/:800 \
	FuzzParseTraceparent:./frontend/http/:2500 \
	FuzzListenAddr:./frontend/metrics/:2500 \
	FuzzParseConfig:./cmd/quiver/:1500 \
	FuzzHTTPAnswer:./client/:2500 \
	FuzzWireMessage:./client/:5000 \
	FuzzAccessToken:./frontend/auth/:5000 \
	FuzzAuditRecord:./frontend/auth/:10000 \
	FuzzMemberHandshake:./cluster/:2500 \
	FuzzRaftLogRecord:./cluster/:10000
# A new interesting input is minimized for at most this long.
FUZZMINTIME ?= 5s
# The openCypher TCK is an external suite: TCK_DIR names its features
# folder; by default the one in shared/ beside the repository (as CI has).
TCK_DIR     ?=
TCK_FEATURES := $(abspath $(if $(TCK_DIR),$(TCK_DIR),../shared/tck/features))
# A package's tests may take this long (go test's default, 10 minutes, is
# near the engine's under the race detector on a loaded 2-core machine).
TEST_TIMEOUT ?= 25m
# Packages with goroutines of their own run again under the race detector.
RACE_PKGS   := ./csr/... ./engine/... ./frontend/... ./internal/netfault/ ./internal/linearcheck/ ./internal/serverproc/
# ... less those in which no test runs two goroutines: neither their code
# nor their tests start one, nor does any package they call (but the
# memory governor's, which none of them starts). The detector has nothing
# to see there, and each costs an instrumented build and a run.
RACE_PKG_SKIP := /engine/(access|errs|exec/(idset|inttable|pathtree|rowkey|rowstore)|expr|functions|gql|plan|plan/opt|plan/physical|procs|settings|storage/vfs)$$|/frontend/(console|console/build|serving)$$
# ... but not the tests that run one goroutine only, ten times slower under
# the detector for nothing: the query corpus sequentially (its queries run
# in parallel in TestMetamorphicCorpus, which stays; TestArrowCorpus runs
# it again over HTTP), the parser's hostile texts, and the storage's
# model tests (one goroutine against a model; concurrency_test.go and
# the engine's concurrent tests hold the store's races), and the row-level
# security and field-level encryption model tests over the random graph
# (their queries run the parallel operators TestMetamorphicRandomGraph
# already runs under the detector; the policies and the decrypt calls add
# no goroutine, and TestRowSecurityAlgoHiddenNode runs a restricted
# projection's workers under it), the adaptive hash join against its
# cross product (one goroutine); the enumerations of power
# cuts over one writer (the WAL's and cryptfs's torn tails, the encrypted
# audit trail; their concurrent appends and syncs are tested apart), the
# patched algorithm projection against a fresh one and the paths and
# code calls against their references (TestParallelAgainstReferences and
# the metamorphic tests run the parallel kernels under the detector), and
# HNSW's recall (TestHNSWParallelBuild builds in parallel); the 72
# orders of schema statements with restarts (one statement at a time;
# opening, closing and killing a database run under the detector in the
# crash and durability tests) and the hash aggregate's reuse of its
# pooled state over 510k groups (one goroutine).
RACE_SKIP   := ^(TestSchemaOrdersIndexAndConstraint|TestPooledStateStartsAtZero|TestPreallocatedTornTail|TestTornTail|TestAuditPowerLossEncrypted|TestPatchEqualsFreshProjection|TestPathsAgainstReference|TestCodeCallMatchesGeneral|TestHNSWRecall|TestQueryCorpus|TestArrowCorpus|TestHostileQueryTexts|TestModel|TestReplayRebuildsStore|TestRowSecurityModelRandomGraph|TestRowSecurityModelCorpus|TestRowSecurityAlgo(Model|Cache|RelsOnly)|TestFieldEncryptionModelRandomGraph|TestAdaptiveHashJoinMatchesCrossProduct)$$

.PHONY: all build install run test test-long crash-long powerloss-long fuzz-long soak-long promtool curl chromium nodejs arrowjs-vendor console console-vendor doctools test-unit test-race test-batch2 fuzz fuzz-targets metamorphic-long crash test-cluster lint bench bench-kuzu bench-duckdb bench-duckdb-check bench-micro bench-expr bench-writes bench-protocols bench-arrow bench-algo bench-wide bench-snb clean tck tck-update tck-gate

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/quiver ./cmd/quiver

## install: put quiver on PATH ($(go env GOBIN), or $(go env GOPATH)/bin).
install:
	$(GO) install -ldflags '$(LDFLAGS)' ./cmd/quiver

## run: start the server on 127.0.0.1:3141 with ./quiver-data
run: build
	./$(BIN)/quiver serve

## test: everything CI holds: lint, unit tests at batch sizes 1024 and 2,
## the race detector on concurrent packages, and short fuzz runs. Each
## stage prints its time.
test:
	@for stage in lint test-unit test-batch2 test-race fuzz; do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage || exit 1; \
		echo "== make $$stage: $$(( $$(date +%s) - start )) s"; \
	done

## promtool: Prometheus's promtool, with which the metrics tests check
## the exposition (`promtool check metrics`); installed from Debian's
## prometheus package when it is not on PATH (as root, or with sudo).
promtool:
	@command -v promtool >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "promtool is missing and this user cannot install it: apt-get install prometheus as root"; exit 1; fi; \
	echo "installing promtool (Debian package prometheus)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y --no-install-recommends prometheus >/dev/null || \
		{ $$sudo apt-get update >/dev/null && $$sudo apt-get install -y --no-install-recommends prometheus >/dev/null; } || exit 1; \
	command -v promtool >/dev/null || { echo "the prometheus package installed no promtool on PATH"; exit 1; }

## curl: the TLS tests of cmd/quiver check the server's certificate with
## `curl --cacert` too; installed from Debian's curl package when it is
## not on PATH (as root, or with sudo).
curl:
	@command -v curl >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "curl is missing and this user cannot install it: apt-get install curl as root"; exit 1; fi; \
	echo "installing curl"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y --no-install-recommends curl ca-certificates >/dev/null || \
		{ $$sudo apt-get update >/dev/null && $$sudo apt-get install -y --no-install-recommends curl ca-certificates >/dev/null; } || exit 1; \
	command -v curl >/dev/null || { echo "the curl package installed no curl on PATH"; exit 1; }

## chromium: Debian's headless-capable browser, which the web console's
## tests drive (frontend/console, chromedp); installed from Debian's
## chromium package when it is not on PATH (as root, or with sudo).
chromium:
	@command -v chromium >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "chromium is missing and this user cannot install it: apt-get install chromium as root"; exit 1; fi; \
	echo "installing chromium"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y --no-install-recommends chromium >/dev/null || \
		{ $$sudo apt-get update >/dev/null && $$sudo apt-get install -y --no-install-recommends chromium >/dev/null; } || exit 1; \
	command -v chromium >/dev/null || { echo "the chromium package installed no chromium on PATH"; exit 1; }

## nodejs: Debian's Node.js, which runs the independent Arrow reader of
## the HTTP tests (apache-arrow, vendored in frontend/http/testdata/arrowjs);
## installed from Debian's nodejs package when node is not on PATH.
nodejs:
	@command -v node >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "node is missing and this user cannot install it: apt-get install nodejs as root"; exit 1; fi; \
	echo "installing nodejs"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y --no-install-recommends nodejs >/dev/null || \
		{ $$sudo apt-get update >/dev/null && $$sudo apt-get install -y --no-install-recommends nodejs >/dev/null; } || exit 1; \
	command -v node >/dev/null || { echo "the nodejs package installed no node on PATH"; exit 1; }

## arrowjs-vendor: after a change of frontend/http/testdata/arrowjs/package.json,
## refresh its lockfile and fetch the tarballs the reader needs at run
## time (apache-arrow, flatbuffers, tslib) into vendor/ (needs npm and its
## registry; make test and CI do not).
arrowjs-vendor:
	cd frontend/http/testdata/arrowjs && npm install --package-lock-only --save-exact --ignore-scripts --no-audit --no-fund && \
	rm -rf vendor && mkdir vendor && \
	node -e 'const l=require("./package-lock.json");for(const n of ["apache-arrow","flatbuffers","tslib"])console.log(n+"@"+l.packages["node_modules/"+n].version)' | \
		xargs npm pack --silent --pack-destination vendor >/dev/null

## console: rebuild the web console's bundle (frontend/console/dist) from
## src/ and the npm tarballs in vendor/, checked against package-lock.json;
## Go only (esbuild's Go API), no Node.js or network (docs/console.md).
console:
	$(GO) run ./frontend/console/build -dir frontend/console

## console-vendor: after a change of frontend/console/package.json, refresh
## the lockfile and fetch the exact tarballs it names into vendor/ (needs
## npm and its registry; make console and CI do not).
console-vendor:
	cd frontend/console && npm install --package-lock-only --save-exact --ignore-scripts --no-audit --no-fund && \
	rm -rf vendor && mkdir vendor && \
	node -e 'const l=require("./package-lock.json");for(const [k,v] of Object.entries(l.packages))if(k&&!v.dev)console.log(k.replace(/^.*node_modules\//,"")+"@"+v.version)' | \
		xargs npm pack --silent --pack-destination vendor >/dev/null
	$(MAKE) --no-print-directory console

## doctools: the tools the docs' examples use, which TestDocsExamples
## runs (cmd/quiver): OpenBSD netcat (nc -N), jq and openssl, installed from
## Debian's packages when they are not on PATH (as root, or with sudo).
doctools: curl
	@missing=; \
	command -v nc >/dev/null || missing="$$missing netcat-openbsd"; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "$$missing missing and this user cannot install them: apt-get install$$missing as root"; exit 1; fi; \
	echo "installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y --no-install-recommends $$missing >/dev/null || \
		{ $$sudo apt-get update >/dev/null && $$sudo apt-get install -y --no-install-recommends $$missing >/dev/null; } || exit 1

# The TCK gate runs on its own so that its per-folder counts are printed.
test-unit: promtool doctools chromium nodejs
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $$($(GO) list ./... | grep -v '/tck$$')
	@$(MAKE) --no-print-directory tck-gate

## tck-gate: the TCK scenarios of tck/passing.txt must pass; prints the
## passed/failed counts per folder. The TCK is an external suite: without
## it (a bare clone, no TCK_DIR) the gate says so and is not run.
tck-gate:
	@if [ -n "$(TCK_DIR)" ] && [ ! -d "$(TCK_FEATURES)" ]; then \
		echo "TCK_DIR=$(TCK_DIR): no such folder (point it at the TCK's features folder)"; exit 2; \
	fi; \
	if [ ! -d "$(TCK_FEATURES)" ]; then \
		$(GO) test -count=1 ./tck/ || exit 1; \
		echo "TCK gate not run: no openCypher TCK features at $(TCK_FEATURES); run make test TCK_DIR=path/to/tck/features to include it"; \
		exit 0; \
	fi; \
	summary=$$(mktemp); \
	$(GO) test -count=1 ./tck/ -args -tck.dir=$(TCK_FEATURES) -tck.summary=$$summary; rc=$$?; \
	echo "openCypher TCK, per folder (gate: tck/passing.txt must keep passing):"; \
	cat $$summary; rm -f $$summary; exit $$rc

# The batch size (vector.Capacity, and csr's block sizes with it) is all
# the batch2 tag changes: a package whose test binary imports neither
# vector nor csr is built the same and is not run again (BATCH2_PKGS). Of
# the others, BATCH2_SKIP names those that do not see batches: the
# binary's and the client's tests build and run `quiver serve` without
# the tag; the metrics, the change stream, raft's replication (cluster),
# tokens and the audit trail (frontend/auth), the vector index (it reads
# vectors by node id, no batch), the harness and the layer check pass no
# query result through a batch of their own. BATCH2_RUN_SKIP
# are the engine tests of query texts the parser refuses or bounds
# (TestHostileQueryTexts; TestDepthIsBounded is in gql, not run).
BATCH2_SKIP := /tck$$|/cmd/quiver$$|/client$$|/bench|/frontend/metrics$$|/frontend/stream$$|/frontend/auth$$|/cluster$$|/engine/index/vector$$|^github.com/quiverdb/quiver$$
# The packages with files of their own for the batch2 tag, which make lint
# vets with it.
BATCH2_TAGGED := ./vector/ ./csr/ ./frontend/http/ ./frontend/wire/
BATCH2_RUN_SKIP := ^TestHostileQueryTexts$$
BATCH2_PKGS = $$($(GO) list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... | \
	awk '$$1 ~ /\.test$$/ { p = $$1; sub(/\.test$$/, "", p); hit = p ~ /\/quiver\/(vector|csr)$$/; \
		for (i = 2; i <= NF; i++) if ($$i ~ /^github\.com\/quiverdb\/quiver\/(vector|csr)$$/) hit = 1; \
		if (hit) print p }' | grep -Ev '$(BATCH2_SKIP)')
test-batch2:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -tags batch2 -skip '$(BATCH2_RUN_SKIP)' $(BATCH2_PKGS)
	@if [ -d "$(TCK_FEATURES)" ]; then \
		$(GO) test -count=1 -tags batch2 ./tck/ -args -tck.dir=$(TCK_FEATURES); \
	else \
		$(GO) test -count=1 -tags batch2 ./tck/ && \
		echo "TCK at batch size 2 not run: no openCypher TCK features at $(TCK_FEATURES) (set TCK_DIR)"; \
	fi

## test-long: the long suites, which .ci/run runs after make test (they
## are too long for it): each entry of TEST_LONG_STAGES is a make target,
## run in turn with its time printed.
TEST_LONG_STAGES += crash-long
TEST_LONG_STAGES += fuzz-long
TEST_LONG_STAGES += powerloss-long
TEST_LONG_STAGES += soak-long
TEST_LONG_STAGES += metamorphic-long
test-long:
	@for stage in $(TEST_LONG_STAGES); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage || exit 1; \
		echo "== make $$stage: $$(( $$(date +%s) - start )) s"; \
	done

## metamorphic-long: the metamorphic tests with every read query under
## every configuration (make test runs each under a rotating share of
## them), at batch size 1024 and under the race detector; and the
## row-level security model tests with every query.
metamorphic-long:
	QUIVER_METAMORPHIC_FULL=1 $(GO) test -count=1 -timeout 30m -run '^(TestMetamorphic|TestRowSecurityModelCorpus|TestRowSecurityAlgoModel)' ./engine/

## crash-long: the kill -9 crash test over CRASH_LONG_CYCLES cycles.
CRASH_LONG_CYCLES ?= 50
crash-long:
	@$(MAKE) --no-print-directory crash CRASH_CYCLES=$(CRASH_LONG_CYCLES)

## powerloss-long: the power-loss tests over POWERLOSS_WORKLOADS seeds
## (engine: workloads of 200 commits, the power cut before every sync and
## at one operation in three between syncs, thousands of cuts; the audit
## trail likewise). The seeds are logged; QUIVER_POWERLOSS_SEED=n reruns
## one.
POWERLOSS_WORKLOADS ?= 2
powerloss-long:
	QUIVER_POWERLOSS_WORKLOADS=$(POWERLOSS_WORKLOADS) $(GO) test ./engine/ ./frontend/auth/ -run 'PowerLoss' -count=1 -v -timeout 30m

## fuzz-long: every fuzz target, FUZZSCALE_LONG times as long as make
## test runs its short ones. CI's whole run (make test, then make
## test-long) must end within 90 minutes on two cores from a cold build
## cache, where each of the four builds (plain, batch2, race, fuzzing)
## compiles the whole tree: the long stages' sizes are set for that.
FUZZSCALE_LONG ?= 2
fuzz-long:
	@$(MAKE) --no-print-directory fuzz-targets FUZZ_RUN='$(FUZZ_SHORT) $(FUZZ_MORE)' FUZZSCALE=$(FUZZSCALE_LONG)

## soak-long: the two soaks (normal clients beside hostile requests and a
## slow-header flood from many addresses; in process, and against the
## binary) for SOAK_LONG_DURATION each, where make test runs them for
## seconds; each asserts the normal clients' success rate and p99.
SOAK_LONG_DURATION ?= 30s
soak-long:
	QUIVER_SOAK_DURATION=$(SOAK_LONG_DURATION) $(GO) test -count=1 -v -timeout 30m -run '^TestSoakWithHostileNeighbours$$' ./frontend/http/
	QUIVER_SOAK_DURATION=$(SOAK_LONG_DURATION) $(GO) test -count=1 -v -timeout 30m -run '^TestSoakBinaryUnderSlowHeaderFlood$$' ./cmd/quiver/

test-race: promtool
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -race -skip '$(RACE_SKIP)' $$($(GO) list $(RACE_PKGS) | grep -Ev '$(RACE_PKG_SKIP)')

## fuzz: the short fuzz run of make test, over the targets that read what
## a client or a torn file hands the server: the query parser, the HTTP
## request and handler, the wire session, the change stream's messages,
## the authorization header, the WAL and the base. fuzz-long runs these
## and every other target (FUZZ_MORE).
fuzz:
	@$(MAKE) --no-print-directory fuzz-targets FUZZ_RUN='$(FUZZ_SHORT)'

# fuzz-targets runs each name:package:executions of FUZZ_RUN for
# executions times FUZZSCALE.
fuzz-targets:
	@set -e; for target in $(FUZZ_RUN); do \
		name=$${target%%:*}; rest=$${target#*:}; pkg=$${rest%%:*}; n=$${rest#*:}; \
		execs=$$(($$n * $(FUZZSCALE))); \
		echo "$(GO) test -run '^\$$' -fuzz '^$$name\$$' -fuzztime $${execs}x $$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $${execs}x -fuzzminimizetime $(FUZZMINTIME) $$pkg; \
	done

## crash: TestCrashRecovery and TestCrashRecoveryOnGraph (the same on a
## graph other than the default) over CRASH_CYCLES SIGKILLs of a real `quiver
## serve` under concurrent writers (make test runs 5); every acknowledged
## commit must survive whole. The seed is logged; QUIVER_CRASH_SEED=n
## reruns its choices. About half a second per cycle.
CRASH_CYCLES ?= 200
## test-cluster: the real-process cluster tests (TestClusterProcess*):
## three quiver serve members on loopback with their raft links through
## TCP proxies, through a leader's kill -9, partitions, pauses and
## restarts (docs/replication.md). About a minute on two busy cores; make
## test runs them within test-unit.
test-cluster:
	$(GO) test ./cmd/quiver -run '^TestClusterProcess' -count=1 -v -timeout 10m

crash:
	QUIVER_CRASH_CYCLES=$(CRASH_CYCLES) $(GO) test ./cmd/quiver -run '^TestCrashRecovery(OnGraph)?$$' -count=1 -v -timeout 40m

lint: $(STATICCHECK)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags batch2 $(BATCH2_TAGGED)
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(abspath $(TOOLS)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## bench: the harness (bench/README.md): generates the data set of SCALE
## (S, M, L), loads it into Quiver, Kùzu and DuckDB, times Q1–Q9 (median
## of RUNS; DuckDB the queries with a SQL form) and writes
## bench/RESULTS.md; fails when the engines' answers differ. Needs Node.js
## and npm for the Kùzu and DuckDB sides; BENCH_DUCKDB= (empty) leaves
## DuckDB out. Not part of `make test`.
SCALE      ?= S
RUNS       ?= 5
WARMUP     ?= 1
SEED       ?= 1
BENCH_DATA ?= bench/data/$(SCALE)-$(SEED)
BENCH_NOTE ?=
BENCH_SKIP ?=
BENCH_DUCKDB ?= bench/duckdb
# S writes bench/RESULTS.md, other scales bench/RESULTS-<SCALE>.md.
BENCH_OUT  ?= bench/RESULTS$(if $(filter S,$(SCALE)),,-$(SCALE)).md
bench: bench-kuzu $(if $(BENCH_DUCKDB),bench-duckdb)
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@test -f $(BENCH_DATA)/knows.csv || ./$(BIN)/quiverbench gen -scale $(SCALE) -seed $(SEED) -out $(BENCH_DATA)
	./$(BIN)/quiverbench run -scale $(SCALE) -seed $(SEED) -data $(BENCH_DATA) -runs $(RUNS) -warmup $(WARMUP) -out $(BENCH_OUT) -note "$(BENCH_NOTE)" -skip "$(BENCH_SKIP)" -duckdb "$(BENCH_DUCKDB)"

## bench-wide: issue 17's wider suite (W01–, bench/suite_wide.go) at
## WIDE_SCALE (M) beside Kùzu and DuckDB (BENCH_DUCKDB), answers compared,
## into bench/RESULTS-wide.md (other scales bench/RESULTS-wide-<scale>.md).
WIDE_SCALE ?= M
WIDE_DATA  ?= bench/data/$(WIDE_SCALE)-$(SEED)
WIDE_OUT   ?= bench/RESULTS-wide$(if $(filter M,$(WIDE_SCALE)),,-$(WIDE_SCALE)).md
bench-wide: bench-kuzu $(if $(BENCH_DUCKDB),bench-duckdb)
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@test -f $(WIDE_DATA)/knows.csv || ./$(BIN)/quiverbench gen -scale $(WIDE_SCALE) -seed $(SEED) -out $(WIDE_DATA)
	./$(BIN)/quiverbench run -suite wide -scale $(WIDE_SCALE) -seed $(SEED) -data $(WIDE_DATA) -runs $(RUNS) -warmup $(WARMUP) -out $(WIDE_OUT) -note "$(BENCH_NOTE)" -skip "$(BENCH_SKIP)" -duckdb "$(BENCH_DUCKDB)"

## bench-snb: the SNB-like data set (several labels and relationship
## types, bench/snb_gen.go) and its suite (S01–, bench/suite_snb.go) at
## SNB_SCALE (XS, S, M; default M: 1M nodes, 10M relationships) beside
## Kùzu, answers compared; generates into bench/data/snb-<scale>-<seed>
## when missing and writes bench/RESULTS-snb.md (other scales
## bench/RESULTS-snb-<scale>.md).
SNB_SCALE ?= M
SNB_DATA  ?= bench/data/snb-$(SNB_SCALE)-$(SEED)
SNB_OUT   ?= bench/RESULTS-snb$(if $(filter M,$(SNB_SCALE)),,-$(SNB_SCALE)).md
bench-snb: bench-kuzu
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@test -f $(SNB_DATA)/person_likes_post.csv || ./$(BIN)/quiverbench gen -dataset snb -scale $(SNB_SCALE) -seed $(SEED) -out $(SNB_DATA)
	./$(BIN)/quiverbench run -dataset snb -scale $(SNB_SCALE) -seed $(SEED) -data $(SNB_DATA) -runs $(RUNS) -warmup $(WARMUP) -out $(SNB_OUT) -note "$(BENCH_NOTE)" -skip "$(BENCH_SKIP)"

## bench-writes: auto-commit CREATEs over HTTP to a real `quiver serve`
## (1 and 32 clients: commits/s, median and p99 latency) beside Kùzu
## in-process, recovery after 1M logged commits, and the checkpoint of the
## M graph against its import; replaces the "Writes and durability"
## section of bench/RESULTS.md (bench/README.md). Needs Node.js and npm,
## and WRITES_TMP on a disk, not tmpfs. About 10 minutes.
WRITES_ROUNDS   ?= 3
WRITES_DURATION ?= 10s
WRITES_TMP      ?= $(or $(TMPDIR),/tmp)
WRITES_DATA     ?= bench/data/M-$(SEED)
bench-writes: bench-kuzu build
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@test -f $(WRITES_DATA)/knows.csv || ./$(BIN)/quiverbench gen -scale M -seed $(SEED) -out $(WRITES_DATA)
	./$(BIN)/quiverbench writes -quiver $(BIN)/quiver -rounds $(WRITES_ROUNDS) -duration $(WRITES_DURATION) -tmp $(WRITES_TMP) -mdata $(WRITES_DATA) -out bench/RESULTS.md -note "$(BENCH_NOTE)"

## bench-protocols: a trivial query's round trip and a 10M-row result
## streamed over HTTP, the wire protocol on TCP and on QUIC, and the change
## events delivered to 100 WebSocket subscribers during the 32-client write
## load, against a real `quiver serve`; replaces the "Protocols" section of
## bench/RESULTS.md (bench/README.md). About 3 minutes.
PROTOCOLS_ROUNDS ?= 3
bench-protocols: build
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	./$(BIN)/quiverbench protocols -quiver $(BIN)/quiver -rounds $(PROTOCOLS_ROUNDS) -tmp $(WRITES_TMP) -out bench/RESULTS.md -note "$(BENCH_NOTE)"

## bench-arrow: a 1M-row result of five column types (INTEGER, FLOAT,
## STRING, DATE, LIST) over HTTP as JSON and as Arrow (uncompressed, LZ4,
## ZSTD) against a server in the same process, and run in process: bytes,
## server CPU and the client's time to a usable table; replaces the
## "Arrow results over HTTP" section of bench/RESULTS.md (bench/README.md).
## About a minute.
ARROW_ROWS ?= 1000000
ARROW_REPS ?= 3
bench-arrow:
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	./$(BIN)/quiverbench arrow -rows $(ARROW_ROWS) -reps $(ARROW_REPS) -tmp $(WRITES_TMP) -out bench/RESULTS.md -note "$(BENCH_NOTE)"

## bench-algo: the algo.* procedures on a Graph500 Kronecker graph of
## ALGO_SCALE (20: 1M vertices, 16M edges; 22, about 4M and 64M, is the
## optional run at the size of the GAP anchors), each timed in the
## procedure and through the query language beside the GAP reference
## kernels; generates the graph into bench/data/kron<scale>-<seed> when
## missing and writes bench/RESULTS-algo.md (bench/README.md). With g++
## it compiles GAP's own bfs, pr, cc and sssp from GAPBS_DIR (the GAP
## Benchmark Suite's source beside the repository) into bin/gapbs, with
## the flags of GAP's Makefile, and times them on the same graph in the
## same run; and bench/gapref/gapref.cc, the answer-checked reference
## kernels. Needs no Node.js. Not part of `make test`.
GAPBS_DIR  ?= ../shared/gapbs
GAP_CXXFLAGS ?= -std=c++11 -O3 -Wall -fopenmp
ALGO_SCALE ?= 20
ALGO_RUNS  ?= 3
ALGO_ONLY  ?=
ALGO_TMP   ?= $(or $(TMPDIR),/tmp)
ALGO_OUT   ?= bench/RESULTS-algo$(if $(filter 20,$(ALGO_SCALE)),,-$(ALGO_SCALE)).md
bench-algo:
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@if command -v $(CXX) >/dev/null; then \
		$(CXX) -O3 -march=native -fopenmp -o $(BIN)/gapref bench/gapref/gapref.cc; \
	else echo "bench-algo: no $(CXX), so no same-run reference kernel (apt-get install g++)"; rm -f $(BIN)/gapref; fi
	@if command -v $(CXX) >/dev/null && test -f $(GAPBS_DIR)/src/bfs.cc; then \
		mkdir -p $(BIN)/gapbs; \
		for k in bfs pr cc sssp; do \
			test $(BIN)/gapbs/$$k -nt $(GAPBS_DIR)/src/$$k.cc || { echo "$(CXX) $(GAP_CXXFLAGS) $(GAPBS_DIR)/src/$$k.cc -o $(BIN)/gapbs/$$k"; \
				$(CXX) $(GAP_CXXFLAGS) $(GAPBS_DIR)/src/$$k.cc -o $(BIN)/gapbs/$$k || exit 1; }; \
		done; \
	else echo "bench-algo: no $(GAPBS_DIR) or no $(CXX), so GAP's own kernels are not timed"; rm -rf $(BIN)/gapbs; fi
	./$(BIN)/quiverbench algo -scale $(ALGO_SCALE) -seed $(SEED) -data bench/data/kron$(ALGO_SCALE)-$(SEED) -runs $(ALGO_RUNS) -warmup $(WARMUP) -only "$(ALGO_ONLY)" -tmp $(ALGO_TMP) -out $(ALGO_OUT) -note "$(BENCH_NOTE)" \
		$$(test -x $(BIN)/gapref && echo -reference $(BIN)/gapref) $$(test -x $(BIN)/gapbs/sssp && echo -gap $(BIN)/gapbs)

bench-kuzu:
	@test -d bench/kuzu/node_modules/kuzu || (cd bench/kuzu && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi)

## bench-duckdb: installs bench/duckdb's runner (npm @duckdb/node-api, the
## version pinned in its package-lock.json).
bench-duckdb:
	@test -d bench/duckdb/node_modules/@duckdb/node-api || (cd bench/duckdb && npm ci --no-audit --no-fund)

## bench-duckdb-check: the DuckDB runner end to end, outside `make test`
## (it needs npm): both suites once at S beside Quiver and Kùzu, DuckDB's
## answers compared with Quiver's; fails when DuckDB did not run or one
## of its answers differs. A difference between Quiver and Kùzu is
## printed, not failed on (that is `make bench`'s to judge). The reports
## go to a temporary directory, not RESULTS.md.
bench-duckdb-check: bench-kuzu bench-duckdb
	$(GO) build -o $(BIN)/quiverbench ./bench/cmd/quiverbench
	@test -f bench/data/S-$(SEED)/knows.csv || ./$(BIN)/quiverbench gen -scale S -seed $(SEED) -out bench/data/S-$(SEED)
	@out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	for suite in nine wide; do \
		./$(BIN)/quiverbench run -suite $$suite -scale S -seed $(SEED) -data bench/data/S-$(SEED) -runs 1 -warmup 0 -out $$out/$$suite.md -duckdb bench/duckdb \
			|| echo "bench-duckdb-check: the $$suite suite's run failed or its engines differ (above)"; \
		test -f $$out/$$suite.md || exit 1; \
		grep -q '^| DuckDB |' $$out/$$suite.md || { echo "bench-duckdb-check: DuckDB did not run the $$suite suite"; exit 1; }; \
		! grep -B2 '^    DuckDB: ' $$out/$$suite.md || { echo "bench-duckdb-check: DuckDB's answers differ from Quiver's (above)"; exit 1; }; \
	done && echo "bench-duckdb-check: DuckDB answered every query with a SQL form as Quiver did"

## bench-micro: Go microbenchmarks of the hot kernels, with allocations.
bench-micro:
	$(GO) test -run '^$$' -bench . -benchmem ./csr/ ./engine/... ./frontend/...

## bench-expr: the expression families over 1M rows in ns per row, beside a
## plain Go loop (BenchmarkExpr, engine/expr); bench/RESULTS-expr.md holds a run.
bench-expr:
	$(GO) test -run '^$$' -bench '^BenchmarkExpr$$' -benchtime 20x -count 5 ./engine/expr/

## tck: run the openCypher TCK over TCK_DIR and report per-folder and total
## counts, ending with "N passed, N failed". Failing scenarios do not fail
## the target; only a run that could not happen does (docs/tck.md).
tck:
	@if [ ! -d "$(TCK_FEATURES)" ]; then \
		echo "make tck: no openCypher TCK features at $(TCK_FEATURES)"; \
		echo "point TCK_DIR at a copy of the TCK's features folder: make tck TCK_DIR=path/to/tck/features"; \
		exit 0; \
	fi; \
	summary=$$(mktemp); \
	$(GO) test -count=1 -run '^TestTCK$$' ./tck/ -args -tck.gate=false -tck.dir=$(TCK_FEATURES) -tck.summary=$$summary >$$summary.log 2>&1 || { cat $$summary.log; rm -f $$summary $$summary.log; echo "the TCK run failed"; exit 1; }; \
	cat $$summary; rm -f $$summary $$summary.log

## tck-update: rewrite tck/passing.txt and tck/failing.txt from a run over
## TCK_DIR (the gate's list of scenarios that must keep passing).
tck-update:
	$(GO) test -count=1 -run '^TestTCK$$' ./tck/ -args -tck.update -tck.dir=$(TCK_FEATURES)

clean:
	rm -rf $(BIN)
