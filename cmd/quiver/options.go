package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/metrics"
)

// serveOptions are the start-up options of `quiver serve`, named as the
// interface contract names them.
type serveOptions struct {
	encryption      *engine.Encryption // at rest, nil when off (encryption.go)
	lockedDir       *engine.DataDir    // the data directory serve holds: its filesystem encrypts when encryption is on
	listen          string
	dataDir         string
	logLevel        slog.Level
	maxConnections  int
	queryTimeout    time.Duration
	tlsCert, tlsKey string
	authEnabled     bool
	replicationMode string
	// cluster is set in the raft and replica modes (cluster_options.go).
	cluster   *clusterOptions
	importDir string
	exportDir string
	// maxMemory is the server-wide memory budget in bytes (0: none);
	// maxMemoryPerQuery the ceiling of max_memory_per_query (0: none).
	maxMemory int64
	// algoCache bounds the algorithms' projection cache in bytes (0: the
	// engine's default, an eighth of maxMemory; negative: off).
	algoCache         int64
	maxMemoryPerQuery int64
	// planCache bounds the engine's plan cache in entries (0: none).
	planCache int
	// maxConnsPerClient caps one client address's connections;
	// allowedOrigins are web origins allowed besides loopback ones.
	maxConnsPerClient int
	allowedOrigins    []string
	// checkpointInterval (negative: no timer) and checkpointWALBytes
	// trigger background checkpoints (docs/durability.md).
	checkpointInterval time.Duration
	checkpointWALBytes int64
	// cdcRetention is --cdc-retention: how long or how much of the
	// change log is kept (docs/cdc.md); zero is change capture off.
	cdcRetention engine.CDCRetention
	// rateLimit is the HTTP API's requests per hour per client (0: none).
	rateLimit int
	// headerTimeout is how long an HTTP request's head may take from the
	// connection; minBodyRate the bytes per second a body must average
	// (negative: none); reservedConns the slots of maxConnections that
	// connections still sending their head (HTTP) or their HELLO (the
	// wire protocol) cannot take (docs/limits.md).
	headerTimeout time.Duration
	minBodyRate   int
	reservedConns int
	// tlsCertificate is --tls-cert and --tls-key loaded (config.go): every
	// TLS listener's (security.go); nil without TLS.
	tlsCertificate *tls.Certificate
	// allowInsecureAuth lets authentication run without TLS on a
	// non-loopback address (security.go).
	allowInsecureAuth bool
	// console serves the web console at / (frontend/console).
	console bool
	// notes are lines serve logs at start (config.go): what the
	// configuration file or the options leave aside.
	notes []string
}

// parseServe parses serve's flags. Options this version cannot honour are
// refused with a clear message rather than silently ignored.
func parseServe(args []string) (o serveOptions, err error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := defineServeFlags(fs, &o)
	if err := parseFlags(fs, args, serveEnvironment); err != nil {
		return o, err
	}
	if *f.configPath != "" {
		notes, lines, cerr := applyConfig(fs, *f.configPath)
		if cerr != nil {
			return o, cerr
		}
		o.notes = append(o.notes, notes...)
		defer func() { err = inConfigFile(err, *f.configPath, lines) }()
	}
	if o.encryption, err = f.keys.encryption(os.Getenv); err != nil {
		return o, err
	}
	if o.rateLimit < 0 {
		return o, fmt.Errorf("--rate-limit must be zero (no limit) or a positive number of requests per hour, not %d", o.rateLimit)
	}
	for _, origin := range strings.Split(*f.origins, ",") {
		if origin = strings.TrimSpace(origin); origin != "" {
			o.allowedOrigins = append(o.allowedOrigins, origin)
		}
	}
	if o.maxConnsPerClient <= 0 {
		return o, fmt.Errorf("--max-connections-per-client must be positive, not %d", o.maxConnsPerClient)
	}
	if err := f.memory(&o); err != nil {
		return o, err
	}
	if err := f.limits(&o); err != nil {
		return o, err
	}
	if o.listen == "" || !strings.Contains(o.listen, ":") {
		return o, fmt.Errorf("--listen must be host:port, not %q", o.listen)
	}
	if o.dataDir == "" {
		return o, errors.New("--data-dir must not be empty")
	}
	if err := loadTLS(&o); err != nil {
		return o, err
	}
	if err := checkAuthTransport(o, os.Getenv); err != nil {
		return o, err
	}
	if o.cluster, err = f.cluster.check(o.replicationMode); err != nil {
		return o, err
	}
	if o.cluster != nil {
		if o.cluster.auth, err = f.cluster.memberAuth(o, os.Getenv); err != nil {
			return o, err
		}
	}
	return o, nil
}

// serveFlags are the serve flags parsed into text or numbers that
// parseServe converts and checks before they reach serveOptions; the
// others are parsed into it directly.
type serveFlags struct {
	level, maxMemory, algoCache, maxPerQuery, walSize *string
	cdcRetention                                      *string
	origins, minBodyRate, reserved, configPath        *string
	timeoutMS                                         *int64
	cluster                                           *clusterFlags
	keys                                              keyFlags
}

// defineServeFlags defines serve's flags on fs, into o or the returned
// serveFlags.
func defineServeFlags(fs *flag.FlagSet, o *serveOptions) *serveFlags {
	f := &serveFlags{}
	fs.StringVar(&o.listen, "listen", "127.0.0.1:3141", "address of the query listener (host:port)")
	fs.StringVar(&o.dataDir, "data-dir", "./quiver-data", "data directory")
	f.level = fs.String("log-level", "info", "log level: debug, info, warn or error")
	fs.IntVar(&o.maxConnections, "max-connections", 1000, "connection ceiling")
	f.timeoutMS = fs.Int64("query-timeout", 30000, "query timeout in milliseconds (0: none)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate file")
	fs.StringVar(&o.tlsKey, "tls-key", "", "TLS key file")
	fs.BoolVar(&o.authEnabled, "auth-enabled", false, "require authentication on every endpoint but the health probes (docs/security.md)")
	fs.BoolVar(&o.allowInsecureAuth, "allow-insecure-auth", false, "allow --auth-enabled on a non-loopback address without --tls-cert (credentials in clear text: only behind a TLS-terminating proxy)")
	fs.StringVar(&o.replicationMode, "replication-mode", modePrimary, "primary (a single server), raft (a voting member of a cluster) or replica (a non-voting read replica) (docs/replication.md)")
	f.cluster = defineClusterFlags(fs)
	f.keys = defineKeyFlags(fs)
	fs.StringVar(&o.importDir, "import-dir", "", "directory COPY … FROM may read CSV and Parquet files from (empty: COPY FROM is refused)")
	fs.StringVar(&o.exportDir, "export-dir", "", "directory CALL quiver.export and COPY (…) TO may write files under (empty: writing files through the server is refused)")
	f.maxMemory = fs.String("max-memory", "", "server-wide memory budget, e.g. 8GB (0: none); also sets GOMEMLIMIT unless it is set (default: 70% of the machine's or cgroup's memory)")
	f.algoCache = fs.String("algo-cache-size", "", "bytes of graph projections the algo.* procedures keep between calls, e.g. 2GB (0: none; default: an eighth of --max-memory, 1GB without a budget)")
	fs.IntVar(&o.planCache, "plan-cache-entries", engine.DefaultPlanCacheEntries, "optimized plans the server keeps, so that a statement text run again with parameters of the same types is not planned again (0: none)")
	f.maxPerQuery = fs.String("max-memory-per-query", "1GB", "memory one query may hold, the ceiling of max_memory_per_query (0: none)")
	fs.IntVar(&o.maxConnsPerClient, "max-connections-per-client", 256, "connection ceiling per client address (capped by --max-connections)")
	fs.DurationVar(&o.checkpointInterval, "checkpoint-interval", engine.DefaultCheckpointInterval, "how often a checkpoint runs when anything committed since the last one (0 or negative: only on log size, CHECKPOINT and shutdown)")
	f.walSize = fs.String("checkpoint-wal-size", "256MB", "log growth since the last checkpoint that starts one at once")
	f.cdcRetention = fs.String("cdc-retention", "off", "keep every commit's changes for cdc.changes and resuming change streams (docs/cdc.md): a duration (24h, 7d), a size (10GB), both (7d,10GB), or off")
	f.origins = fs.String("allowed-origins", "", "comma-separated web origins (scheme://host:port) whose pages may call the API, besides loopback and the server's own; * for any")
	fs.IntVar(&o.rateLimit, "rate-limit", 1000, "requests per hour one client address may make to the HTTP API (0: no limit; GET /api/v1/health is not counted)")
	fs.DurationVar(&o.headerTimeout, "header-timeout", qhttp.DefaultHeaderTimeout, "how long an HTTP request's line and headers may take to arrive, from the connection (or a keep-alive request's first byte)")
	f.minBodyRate = fs.String("min-body-rate", "1KB", "bytes per second an HTTP request body must average once 5 s have passed since its headers (0: no minimum)")
	f.reserved = fs.String("reserved-connections", "", "connections of --max-connections kept for clients that send their request promptly: HTTP connections still sending their request head, and wire connections without a completed HELLO, cannot take them (default: a tenth of --max-connections; 0: none)")
	fs.BoolVar(&o.console, "console", true, "serve the web console at / on the --listen port (docs/console.md); --console=false answers 404 there")
	f.configPath = fs.String("config", "", "YAML configuration file (docs/configuration.md); flags given on the command line override it")
	return f
}

// memory converts and checks the memory budgets and the checkpoint's
// triggers.
func (f *serveFlags) memory(o *serveOptions) (err error) {
	o.maxMemory = engine.DefaultMaxMemory()
	if *f.maxMemory != "" {
		if o.maxMemory, err = engine.ParseSize(*f.maxMemory); err != nil {
			return fmt.Errorf("--max-memory: %v", err)
		}
	}
	if *f.algoCache != "" {
		if o.algoCache, err = engine.ParseSize(*f.algoCache); err != nil {
			return fmt.Errorf("--algo-cache-size: %v", err)
		}
		if o.algoCache == 0 {
			o.algoCache = -1 // engine: off
		}
	}
	if o.checkpointWALBytes, err = engine.ParseSize(*f.walSize); err != nil || o.checkpointWALBytes <= 0 {
		return fmt.Errorf("--checkpoint-wal-size must be a positive size such as 256MB, not %q", *f.walSize)
	}
	if o.checkpointInterval <= 0 {
		o.checkpointInterval = -1 // engine: no timer
	}
	if o.cdcRetention, err = engine.ParseCDCRetention(*f.cdcRetention); err != nil {
		return fmt.Errorf("--cdc-retention: %v", err)
	}
	if o.maxMemoryPerQuery, err = engine.ParseSize(*f.maxPerQuery); err != nil {
		return fmt.Errorf("--max-memory-per-query: %v", err)
	}
	if o.maxMemory > 0 && (o.maxMemoryPerQuery == 0 || o.maxMemoryPerQuery > o.maxMemory) {
		o.maxMemoryPerQuery = o.maxMemory // one query can never hold more than the whole budget
	}
	return nil
}

// limits converts and checks the log level, the connection limits and
// the timeouts.
func (f *serveFlags) limits(o *serveOptions) error {
	switch strings.ToLower(*f.level) {
	case "debug":
		o.logLevel = slog.LevelDebug
	case "info":
		o.logLevel = slog.LevelInfo
	case "warn":
		o.logLevel = slog.LevelWarn
	case "error":
		o.logLevel = slog.LevelError
	default:
		return fmt.Errorf("--log-level must be debug, info, warn or error, not %q", *f.level)
	}
	if o.maxConnections <= 0 {
		return fmt.Errorf("--max-connections must be positive, not %d", o.maxConnections)
	}
	if o.planCache < 0 {
		return fmt.Errorf("--plan-cache-entries must be zero or a positive number, not %d", o.planCache)
	}
	if o.headerTimeout <= 0 {
		return fmt.Errorf("--header-timeout must be a positive duration such as 5s, not %v", o.headerTimeout)
	}
	rate, err := engine.ParseSize(*f.minBodyRate)
	if err != nil || rate > math.MaxInt32 {
		return fmt.Errorf("--min-body-rate must be a size per second such as 1KB (0: no minimum), not %q", *f.minBodyRate)
	}
	if o.minBodyRate = int(rate); rate == 0 {
		o.minBodyRate = -1 // qhttp: no minimum
	}
	o.reservedConns = o.maxConnections / 10
	if *f.reserved != "" {
		n, err := strconv.Atoi(*f.reserved)
		if err != nil || n < 0 || n >= o.maxConnections {
			return fmt.Errorf("--reserved-connections must be a number from 0 to --max-connections - 1 (%d), not %q", o.maxConnections-1, *f.reserved)
		}
		o.reservedConns = n
	}
	if o.reservedConns == 0 {
		o.reservedConns = -1 // qhttp: no reserve
	}
	if *f.timeoutMS < 0 {
		return fmt.Errorf("--query-timeout must be zero or a positive number of milliseconds, not %d", *f.timeoutMS)
	}
	o.queryTimeout = time.Duration(*f.timeoutMS) * time.Millisecond
	return nil
}

// serveEnvironment ends `quiver serve -h`: the environment variables
// serve reads, which have no flags (docs/configuration.md).
var serveEnvironment = `
environment:
  QUIVER_ADMIN_PASSWORD
    	the password of the user admin, created at the first start with --auth-enabled
    	(unset: a password is made up and printed once) (docs/security.md)
  ` + metrics.EnvPort + `
    	turns the metrics listener on (/metrics, /health, /ready, /live) at this port;
    	0: a free port, logged (docs/operations.md)
  ` + metrics.EnvBind + `
    	the metrics listener's address (default ` + metrics.DefaultBind + `)
  QUIVER_ENCRYPTION_KEY
    	the master key that encrypts the data directory at rest, as base64 or hex text
    	(instead of --encryption-key-file) (docs/encryption.md)
  QUIVER_CLUSTER_SECRET
    	the secret cluster members share to authenticate each other
    	(unless a secret file is given) (docs/replication.md)
  GOMEMLIMIT, GOGC
    	the Go runtime's; --max-memory sets GOMEMLIMIT unless it is set
`

// parseFlags parses a subcommand's flags: -h prints them as the error,
// followed by help's epilogue, and positional arguments are refused.
func parseFlags(fs *flag.FlagSet, args []string, epilogue ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var sb strings.Builder
			fs.SetOutput(&sb)
			fs.PrintDefaults()
			return fmt.Errorf("flags:\n%s%s", sb.String(), strings.Join(epilogue, ""))
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
