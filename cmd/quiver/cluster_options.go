package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/quiverdb/quiver/cluster"
)

// Replication modes of --replication-mode (docs/replication.md).
const (
	modePrimary = "primary" // a single server, no replication (the default)
	modeRaft    = "raft"    // a voting member of a raft cluster
	modeReplica = "replica" // a non-voting member: a read replica (raft learner)
)

// Answers to a write sent to a follower (--follower-writes).
const (
	followerRedirect = "redirect" // HTTP 307 to the leader's address
	followerError    = "error"    // the 25006 error naming the leader
)

// learnerSuffix marks a peer of --peers as a read replica (a learner):
// n4=127.0.0.1:7004/learner.
const learnerSuffix = "/learner"

// clusterOptions are serve's cluster options, used when the replication
// mode is raft or replica.
type clusterOptions struct {
	mode       string
	nodeID     string
	raftListen string
	peers      []cluster.Peer
	// peerHTTP maps a member's id to its HTTP base URL (scheme://host:port),
	// where writes sent to a follower are redirected.
	peerHTTP       map[string]string
	followerWrites string
	// auth is how the members authenticate each other (cluster_auth.go).
	auth cluster.MemberAuth
}

// clusterFlags are the cluster flags as text, checked by check.
type clusterFlags struct {
	nodeID, raftListen, peers, peerHTTP, followerWrites *string
	secretFile, ca                                      *string
}

func defineClusterFlags(fs *flag.FlagSet) *clusterFlags {
	return &clusterFlags{
		nodeID:         fs.String("node-id", "", "this member's id in the cluster (with --replication-mode raft or replica)"),
		raftListen:     fs.String("raft-listen", "", "host:port where this member's raft transport listens and the other members reach it"),
		peers:          fs.String("peers", "", "the cluster's initial members, this one included: id=host:port,… (raft addresses; append /learner for a read replica)"),
		peerHTTP:       fs.String("peer-http", "", "the members' HTTP addresses, where writes sent to a follower are redirected: id=http://host:port,… (this member's own may be left out)"),
		followerWrites: fs.String("follower-writes", followerRedirect, "what a follower answers to an HTTP write: redirect (307 to the leader) or error (25006 naming the leader)"),
		secretFile:     fs.String("cluster-secret-file", "", "file holding the secret the members share to authenticate each other (at least 16 bytes; or "+envClusterSecret+")"),
		ca:             fs.String("cluster-ca", "", "PEM CA certificate(s) the members' --tls-cert must chain to, for mutual TLS between members (without it: the member's own certificate, shared by all)"),
	}
}

// check validates the cluster flags for mode; o is nil for primary.
func (f *clusterFlags) check(mode string) (*clusterOptions, error) {
	switch mode {
	case "", modePrimary:
		for name, v := range map[string]string{"node-id": *f.nodeID, "raft-listen": *f.raftListen, "peers": *f.peers, "peer-http": *f.peerHTTP, "cluster-secret-file": *f.secretFile, "cluster-ca": *f.ca} {
			if v != "" {
				return nil, fmt.Errorf("--%s is a cluster option: it needs --replication-mode raft or replica", name)
			}
		}
		return nil, nil
	case modeRaft, modeReplica:
	default:
		return nil, fmt.Errorf("--replication-mode must be primary, raft or replica, not %q", mode)
	}
	o := &clusterOptions{mode: mode, nodeID: strings.TrimSpace(*f.nodeID), raftListen: strings.TrimSpace(*f.raftListen), followerWrites: *f.followerWrites}
	if o.nodeID == "" {
		return nil, fmt.Errorf("--replication-mode %s needs --node-id (this member's id)", mode)
	}
	if o.followerWrites != followerRedirect && o.followerWrites != followerError {
		return nil, fmt.Errorf("--follower-writes must be redirect or error, not %q", o.followerWrites)
	}
	peers, err := parsePairs("--peers", *f.peers)
	if err != nil {
		return nil, err
	}
	self := false
	for _, kv := range peers {
		addr, learner := strings.CutSuffix(kv[1], learnerSuffix)
		if err := checkHostPort(addr); err != nil {
			return nil, fmt.Errorf("--peers: member %s: %v", kv[0], err)
		}
		if kv[0] == o.nodeID {
			self = true
			learner = learner || mode == modeReplica
			if o.raftListen == "" {
				o.raftListen = addr
			}
		}
		o.peers = append(o.peers, cluster.Peer{ID: kv[0], Address: addr, Learner: learner})
	}
	if len(peers) > 0 && !self {
		return nil, fmt.Errorf("--peers does not list this member's --node-id %q", o.nodeID)
	}
	if o.raftListen == "" {
		return nil, errors.New("--raft-listen is needed (or this member's entry in --peers)")
	}
	if err := checkHostPort(o.raftListen); err != nil {
		return nil, fmt.Errorf("--raft-listen: %v", err)
	}
	httpPairs, err := parsePairs("--peer-http", *f.peerHTTP)
	if err != nil {
		return nil, err
	}
	o.peerHTTP = map[string]string{}
	for _, kv := range httpPairs {
		if len(peers) > 0 && !listed(o.peers, kv[0]) {
			return nil, fmt.Errorf("--peer-http names %q, which --peers does not list", kv[0])
		}
		u, err := url.Parse(kv[1])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("--peer-http: member %s: %q is not an address such as http://127.0.0.1:3141", kv[0], kv[1])
		}
		o.peerHTTP[kv[0]] = u.Scheme + "://" + u.Host
	}
	return o, nil
}

// parsePairs parses id=value,… (spaces around items allowed); ids are
// unique and not empty.
func parsePairs(flagName, s string) ([][2]string, error) {
	var out [][2]string
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		id, v, ok := strings.Cut(item, "=")
		id, v = strings.TrimSpace(id), strings.TrimSpace(v)
		if !ok || id == "" || v == "" {
			return nil, fmt.Errorf("%s: %q is not id=address", flagName, item)
		}
		if seen[id] {
			return nil, fmt.Errorf("%s lists the member %q twice", flagName, id)
		}
		seen[id] = true
		out = append(out, [2]string{id, v})
	}
	return out, nil
}

func listed(peers []cluster.Peer, id string) bool {
	for _, p := range peers {
		if p.ID == id {
			return true
		}
	}
	return false
}

// checkHostPort accepts host:port with a port number.
func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("%q is not host:port", s)
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return fmt.Errorf("%q has no port number", s)
		}
	}
	return nil
}

// httpAddresses are the members' client base URLs: --peer-http, and this
// member's own from --listen when it is left out.
func (c *clusterOptions) httpAddresses(o serveOptions) map[string]string {
	out := make(map[string]string, len(c.peerHTTP)+1)
	for id, u := range c.peerHTTP {
		out[id] = u
	}
	if _, ok := out[c.nodeID]; !ok {
		scheme := "http://"
		if o.tlsCertificate != nil {
			scheme = "https://"
		}
		out[c.nodeID] = scheme + o.listen
	}
	return out
}
